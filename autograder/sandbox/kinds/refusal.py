"""Reference and measure parts of ``refuses`` (decision: ``autograder.checks.refusal``).

- reference: the master's function named by ``inputs``, called with the schedule the grader drew
  (so the invalid inputs vary with the seed like the valid ones), gives one tuple of arguments
  per input that must be refused; they go to the learner's process as a probe's inputs, each
  between valid calls of the schedule at places drawn from the seed (the judge alone knows which);
- measure: a fresh compile of the learner's entry (``probe.measure``, with the options and driver
  of the common measurement), one call per invalid input; for each, plain data: whether it returned and, if it
  raised, the error's kind (``exception``: raised while the code ran; ``graph_break`` or
  ``compiler_error``: the compiler refused it), its type name and first line.
"""

from __future__ import annotations

from autograder.sandbox.kinds import Prepared, measures, references
from autograder.sandbox.plain import to_plain


@references("refuses")
def refuses_reference(spec, ref) -> Prepared:
    """The invalid inputs, each between valid calls of the schedule at places drawn from the seed, so
    that what is refused must be told from the batch itself, never from how many calls came before."""
    import copy

    import torch

    invalid = [tuple(args) for args in getattr(ref.master, spec.params["inputs"])(ref.calls)]
    gen = torch.Generator().manual_seed(int(ref.seed) * 7919 + 17)
    valid = [tuple(args) for args in ref.calls]

    def some_valid() -> list:
        count = 1 + int(torch.randint(2, (1,), generator=gen))
        return [copy.deepcopy(valid[int(torch.randint(len(valid), (1,), generator=gen))]) for _ in range(count)]

    mixed, refused = [], []
    for args in invalid:
        before = some_valid() if valid else []
        mixed += before + [args]
        refused += [False] * len(before) + [True]
    after = some_valid() if valid else []
    mixed += after
    refused += [False] * len(after)
    return Prepared(learner={"inputs": to_plain(mixed)}, judge={"refused": refused})


def measure_refusals(entry, inputs: list, options: dict, prefer_file: str | None = None, driver=None) -> list[dict]:
    """One outcome per input, as plain data: {"returned", "kind", "type", "message"}."""
    from autograder.sandbox import probe

    measured = probe.measure(entry, inputs, options, prefer_file=prefer_file, stop_on_error=False, driver=driver)
    outcomes = []
    for output in measured.outputs:
        if isinstance(output, BaseException):
            described = probe.describe_error(output, prefer_file)
            first = described["message"].splitlines()[0][:300] if described["message"] else ""
            outcomes.append({"returned": False, "kind": str(described["kind"]),
                             "type": type.__dict__["__name__"].__get__(type(output)), "message": str(first)})
        else:
            outcomes.append({"returned": True, "kind": None, "type": None, "message": ""})
    return outcomes


@measures("refuses")
def refuses_measure(spec, lab) -> dict:
    if lab.measurement.error:
        return {"not_run": True}
    inputs = [tuple(args) for args in (lab.data.get(spec.name, {}).get("inputs") or [])]
    return {"outcomes": measure_refusals(lab.entry, inputs, lab.options, prefer_file=lab.filename, driver=lab.driver)}
