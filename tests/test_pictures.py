"""Pictures are drawn from measurements: one box per graph, the break reason between them."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

from autograder.learner.pictures import _short_op, graph_diagram, speed_bars  # noqa: E402


def test_one_box_per_graph_with_its_ops_and_the_break_reason():
    tally = SimpleNamespace(graph_ops=[["<built-in method sin of type object at 0x1>", "<built-in function mul>"],
                                       ["<built-in method cos of type object at 0x1>"]],
                            break_reasons=["Failed to trace builtin operator"])
    figure = graph_diagram(tally, title="t")
    axes = figure.axes[0]
    texts = " ".join(t.get_text() for t in axes.texts)
    assert len(axes.patches) == 2
    assert "graph 1" in texts and "graph 2" in texts and "sin" in texts and "cos" in texts
    assert "Failed to trace" in texts


def test_op_names_are_short():
    assert _short_op("<built-in method sin of type object at 0x7f>") == "sin"
    assert _short_op("<built-in function add>") == "add"
    assert _short_op("aten.mul.Tensor") == "aten.mul.Tensor"


def test_speed_bars_draw_one_bar_per_side_eager_grey_broken_red_fixes_green():
    from matplotlib.colors import to_rgba

    figure = speed_bars({"eager": 10.0, "broken": 9.0, "fixed": 2.0, "fixed too": 2.5}, "a chain", "ms per pass")
    axes = figure.axes[0]
    bars = axes.patches
    assert [bar.get_width() for bar in bars] == [10.0, 9.0, 2.0, 2.5]
    assert [bar.get_facecolor() for bar in bars] == [to_rgba(c) for c in ("grey", "tab:red", "tab:green", "tab:green")]
    assert axes.get_title() == "a chain" and axes.get_xlabel() == "ms per pass"
    assert [t.get_text() for t in axes.get_yticklabels()] == ["eager", "broken", "fixed", "fixed too"]
    assert len(speed_bars({"eager": 1.0}, "alone").axes[0].patches) == 1
