"""Pictures drawn from live measurements, for lessons: which ops went to which graph.

    from autograder.sandbox.probe import tally_calls
    from autograder.learner.pictures import graph_diagram
    graph_diagram(tally_calls(f, [(x,)]))

Uses matplotlib only; the numbers come from ``probe.Tally``, never from the picture.
"""

from __future__ import annotations

import textwrap


def _short_op(name: str) -> str:
    # "<built-in method sin of type object at 0x..>" -> "sin"; "aten.mul.Tensor" stays readable.
    if name.startswith("<built-in method "):
        return name.split()[2]
    if name.startswith("<built-in function "):
        return name.split()[2].rstrip(">")
    if name.startswith("<function "):
        return name.split()[1]
    return name.rsplit(".", 1)[-1] if name.startswith("torch.") else name


def graph_diagram(tally, title: str = "", max_ops: int = 8):
    """One box per compiled graph, left to right in compile order, listing its ops; the break
    reason that ended each graph is written under the arrow to the next. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    graphs = tally.graph_ops or [[]]
    width = max(3.2 * len(graphs), 4)
    fig, ax = plt.subplots(figsize=(width, 2.8))
    ax.set_xlim(0, 3.2 * len(graphs))
    ax.set_ylim(0, 2.8)
    ax.axis("off")
    colours = ["#cfe2ff", "#d1e7dd", "#fff3cd", "#f8d7da", "#e2d9f3"]
    for number, ops in enumerate(graphs):
        left = number * 3.2 + 0.2
        ax.add_patch(FancyBboxPatch((left, 0.9), 2.4, 1.7, boxstyle="round,pad=0.05",
                                    facecolor=colours[number % len(colours)], edgecolor="#444"))
        names = [_short_op(op) for op in ops]
        shown = names[:max_ops] + ([f"... {len(names) - max_ops} more"] if len(names) > max_ops else [])
        ax.text(left + 1.2, 2.45, f"graph {number + 1}", ha="center", va="top", fontsize=10, weight="bold")
        ax.text(left + 1.2, 2.1, "\n".join(shown) or "(no ops)", ha="center", va="top", fontsize=8, family="monospace")
        if number + 1 < len(graphs):
            ax.annotate("", xy=(left + 3.0, 1.75), xytext=(left + 2.65, 1.75), arrowprops={"arrowstyle": "->"})
            reason = tally.break_reasons[number] if number < len(tally.break_reasons) else "recompile or resume"
            ax.text(left + 2.8, 0.75, "\n".join(textwrap.wrap(reason, 22)[:3]), ha="center", va="top", fontsize=7,
                    color="#a00")
    ax.set_title(title or str(tally), fontsize=9)
    fig.tight_layout()
    return fig


def speed_bars(medians: dict, title: str, unit: str = "ms per call (median)"):
    """The run times a lesson measured, one bar per side, top to bottom in the order given: the first
    grey (eager code), the second red (the broken version), any others green (the fixes). Returns the
    figure; the numbers stay the caller's to print and assert."""
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(6, 1.0 + 0.4 * len(medians)))
    plt.barh(list(medians), list(medians.values()), color=(["grey", "tab:red"] + ["tab:green"] * len(medians))[:len(medians)])
    plt.xlabel(unit)
    plt.title(title)
    plt.gca().invert_yaxis()
    plt.show()
    return figure
