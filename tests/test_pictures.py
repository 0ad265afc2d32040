"""Pictures are drawn from measurements: one box per graph, the break reason between them."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

from autograder.learner.pictures import _short_op, graph_diagram  # noqa: E402


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
