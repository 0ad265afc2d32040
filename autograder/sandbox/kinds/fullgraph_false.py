"""Measure part of ``probe_variant`` (decisions for chapter 2, part 2: ``autograder.checks.fullgraph_false``).

The probe proves that a strict setting (``error_on_graph_break(True)``, as a decorator, a ``with``
block, or a strict caller) covers the helper's work: Dynamo is made to meet a graph break at each
call the helper's frame makes (``probe.added_break``), one site per run, and every run must raise.
The learner's function is never rewritten: its code, its globals, its decorators and its ``with``
blocks stay as written. The helper's code object is found by identity among the code objects
compiled from the learner's file, through whatever wraps the module attribute.
"""

from __future__ import annotations

import types

from autograder.sandbox.kinds import measures

MAX_SITES = 6


def _resolve(module, dotted: str):
    value = module
    for part in dotted.split("."):
        namespace = type.__dict__["__dict__"].__get__(value) if isinstance(value, type) else getattr(value, "__dict__", {})
        if part not in namespace:
            raise LookupError(dotted)
        value = namespace[part]
    return value


def helper_code(lab, dotted: str):
    """The code object of the file's function ``dotted`` ("hot", "Block.forward"), reached through the
    wrappers around it (``__wrapped__``, closures, ``__func__``), and required to be one the file defines."""
    own = {id(code): code for code in lab.code_objects}
    name = dotted.split(".")[-1]
    todo, seen = [_resolve(lab.submission, dotted)], set()
    while todo:
        value = todo.pop()
        if id(value) in seen or len(seen) > 64:
            continue
        seen.add(id(value))
        if isinstance(value, (staticmethod, classmethod)):
            todo.append(value.__func__)
            continue
        if isinstance(value, types.FunctionType):
            code = value.__code__
            if id(code) in own and code.co_name == name:
                return code
            todo += [cell.cell_contents for cell in value.__closure__ or () if _filled(cell)]
            wrapped = value.__dict__.get("__wrapped__")
            if wrapped is not None:
                todo.append(wrapped)
        elif isinstance(value, types.MethodType):
            todo.append(value.__func__)
    raise LookupError(dotted)


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _spread(sites: list, limit: int) -> list:
    """At most ``limit`` sites, taken in turn from each call of the helper (its first calls' sites
    first): a helper called twice has sites of its second call probed too, however many the first
    has."""
    by_caller: dict = {}
    for site in sites:
        by_caller.setdefault(site[0], []).append(site)
    chosen, queues = [], list(by_caller.values())
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return sorted(chosen, key=sites.index)


@measures("probe_variant", params=("helper",))
def probe_variant_measure(spec, lab) -> dict:
    from autograder.sandbox import probe

    helper = spec.params["helper"]
    if lab.measurement.error:
        return {"not_run": True}
    try:
        code = helper_code(lab, helper)
    except (LookupError, AttributeError):
        return {"helper_missing": True}
    calls = lab.calls[:1]
    with probe.added_break(code, None) as seen:
        probe.measure(lab.entry, calls, lab.options, prefer_file=lab.filename, driver=lab.driver)
    sites = _spread(seen["sites"], MAX_SITES)
    runs = []
    for site in sites:
        caller, _, line = site
        with probe.added_break(code, site) as record:
            probed = probe.measure(lab.entry, calls, lab.options, prefer_file=lab.filename, driver=lab.driver)
        error = probed.error or {}
        called_from = caller[4] if caller is not None and caller[0] == lab.filename else None  # a line of the learner's file
        runs.append({"line": line, "called_from": called_from if isinstance(called_from, int) else None,
                     "placed": record["placed"] is not None, "graphs": probed.graphs,
                     "error": {k: error.get(k) for k in ("kind", "gb_type", "message", "file", "line", "function") if k in error} or None})
        if not error:  # ran through: the judge fails the check at this run whatever the later ones do
            break
    return {"helper_missing": False, "first_line": code.co_firstlineno, "sites": len(seen["sites"]), "runs": runs}
