"""The static policy and the submission loader (both run in the grader, before any submission code)."""

import json
import os
import random
import time

import pytest

from autograder.engine.grader import grade
from autograder.format import policy
from autograder.format.exercise import discover, load
from autograder.format.loader import SubmissionError, load_submission, notebook_source, read_notebook
from conftest import ROOT, grade_json

SOLUTION = (ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py").read_text()
EXERCISES = {e.id: e for e in discover()}


def rules(code, exercise=None):
    return [f.rule for f in policy.check(code, exercise)]


# -- the policy refuses what no fix needs, at its line, saying why ---------------------------------

REFUSED = [
    # imports outside the allow-list, and the parts of allowed modules a fix never needs
    ("import ctypes", "import"), ("import gc", "import"), ("import subprocess", "import"), ("import socket", "import"),
    ("import threading", "import"), ("import importlib", "import"), ("import inspect", "import"), ("import builtins\nbuiltins.exec('1')", "import"),
    ("import pickle", "import"), ("import signal", "import"), ("import atexit", "import"), ("import resource", "import"),
    ("from os import system", "import"), ("import os\nos.fork()", "import"), ("import os\nos.write(3, b'{}')", "import"),
    ("import os\nos._exit(0)", "import"), ("import sys\nsys.modules['x'] = 1", "import"), ("import sys\nsys._getframe()", "import"),
    ("import sys\nsys.settrace(None)", "import"), ("from . import helper", "import"), ("from math import *", "import"),
    ("import autograder.engine.grader", "import"), ("import autograder.lab\nautograder.lab.run_reproducer", "import"),
    ("from autograder.lab import run_reproducer", "import"), ("import autograder.checks.core as c\nc.compare = None", "import"),
    ("import torch.utils.cpp_extension", "import"), ("import torch\ntorch.ops.load_library('x.so')", "import"),
    ("import typing\ntyping.get_type_hints(len)", "import"), ("import operator\noperator.attrgetter('x')", "import"),
    ("import numpy as np\nnp.load('x', allow_pickle=True)", "import"), ("import torch.utils.benchmark", "import"),
    ("import logging.handlers", "import"),
    # private names beyond the documented few
    ("import torch\ntorch._C._set_grad_enabled(False)", "private"), ("import torch._dynamo\ntorch._dynamo.utils.counters", "private"),
    ("from torch._dynamo.utils import counters", "import"), ("import torch._dynamo as d\nd.eval_frame", "private"),
    ("import torch\nd = torch._dynamo\nd.convert_frame", "private"), ("def f(x):\n    return x._base", "private"),
    ("def f(self):\n    return self._x", "private"), ("class A:\n    def f(self):\n        self = 1\n        return self._x", "private"),
    ("'{0._secret}'.format(1)", "private"), ("import torch\ntorch.load('/proc/self/mem')", "path"),
    ("import numpy as np\nnp.fromfile('x')", "import"),
    # dunders and introspection
    ("def f(x):\n    return x.__class__", "dunder"), ("print(__builtins__)", "dunder"), ("def f(g):\n    return g.__globals__", "dunder"),
    ("__name__ = '__main__'", "dunder"), ("def __getattr__(name):\n    return 1", "dunder"), ("x = '__glob' 'als__'", "dunder"),
    ("def f(g):\n    return g.gi_frame.f_back", "introspection"), ("def f(t):\n    return t.tb_frame", "introspection"),
    ("def f(c):\n    return c.co_code", "introspection"),
    # builtins that build names or code at run time
    ("name = 'real'\ngetattr(1, name)", "builtin"), ("import torch\ngetattr(torch, 'nn')", "builtin"),
    ("getattr(1, '_private', None)", "private"), ("import torch\nm = torch.nn.Linear(2, 2)\nm._orig_mod = m", "private"), ("getattr(1, '__class__')", "dunder"), ("setattr(1, 'x', 2)", "builtin"), ("vars()", "builtin"), ("globals()['x'] = 1", "builtin"),
    ("eval('1')", "builtin"), ("exec('x=1')", "builtin"), ("compile('1', 'f', 'eval')", "builtin"), ("__import__('os')", "dunder"),
    ("open('/etc/passwd')", "builtin"), ("breakpoint()", "builtin"), ("g = getattr", "builtin"),
    ("T = type('T', (), {})", "builtin"), ("import torch\ntorch.load('x', weights_only=False)", "builtin"),
    # special methods and metaclasses: objects that decide how the grader sees them
    ("class A:\n    def __eq__(self, other):\n        return True", "special"),
    # a restricted module under another name the rules cannot follow (`o.system`, `b.getattr`)
    ("import os\ndef f(o=os):\n    return o.system('x')", "restricted"), ("import builtins\nparts = [builtins]", "restricted"),
    ("import sys\nprint(sys)", "restricted"),
    ("class A:\n    def __repr__(self):\n        return 'x'", "special"), ("class M(type):\n    pass\nclass A(metaclass=M):\n    pass", "special"),
    ("class A:\n    __hash__ = None", "dunder"),
    # changing what was imported
    ("import time\ntime.perf_counter = lambda: 0.0", "module-write"), ("import torch\ntorch.compile = lambda f, **k: f", "module-write"),
    ("import torch\ntorch.Tensor.x = 1", "module-write"), ("import torch\ndel torch.compile", "module-write"),
    ("import time as t\nclock = t\nclock.perf_counter = None", "module-write"), ("import torch.nn.functional as F\nF.relu = abs", "module-write"),
    ("from torch import nn\nnn.Module.__call__ = None", "dunder"), ("import os\nos.environ['TORCHDYNAMO_DISABLE'] = '1'", "module-write"),
    ("import torch\ntorch._dynamo.config._config = {}", "private"),
    # what runs must be what the grader read
    ("# -*- coding: unicode_escape -*-\nx = 1", "coding"), ("#!/usr/bin/env python\n# coding=latin-1\nx = 1", "coding"),
]


@pytest.mark.parametrize("code, rule", REFUSED, ids=[f"{n}-{r}" for n, (_, r) in enumerate(REFUSED)])
def test_policy_refuses_what_no_fix_needs(code, rule):
    exercise = EXERCISES["breaks_checkpoint"]  # allows no config key, extends nothing
    findings = policy.check(code, exercise)
    assert rule in [f.rule for f in findings], findings
    last = code.count("\n") + 1
    for finding in findings:  # each names its line and says why, in words
        assert 1 <= finding.line <= last and len(finding.message) > 30 and "Traceback" not in finding.message
        assert str(finding).startswith(f"line {finding.line}: ")


@pytest.mark.parametrize("code", ['import os\nos.environ["TORCH_COMPILE_JOB_ID"] = "nightly"',
                                  'import os\nos.environ.setdefault("TORCH_LOGS", "recompiles")',
                                  'import os\nos.environ.update(TORCH_COMPILE_JOB_ID="nightly")',
                                  'import os\nos.putenv("TORCH_COMPILE_JOB_ID", "nightly")'])
def test_a_fix_that_sets_an_environment_variable_is_told_why_it_cannot_work(code):
    # A learner's own run honours TORCH_* set before `import torch`; the grading has torch imported
    # already. The message says so and names the setting to use instead, not "os.environ is allowed".
    findings = policy.check(code, EXERCISES["nightly_rerun"])
    assert findings and all("when it is imported" in f.message and "torch.compiler.config.job_id" in f.message
                            for f in findings), findings
    assert policy.check('import os\nlevel = os.environ.get("LEVEL", "info")', EXERCISES["nightly_rerun"]) == []


def test_every_master_and_starter_passes_the_policy():
    problems = []
    for exercise in EXERCISES.values():
        for path in (exercise.master, exercise.starter):
            problems += [f"{path.relative_to(ROOT)}: {f}" for f in policy.check(path.read_text(), exercise)]
    assert problems == []


def test_every_fair_and_wrong_variant_of_the_masters_passes_the_policy():
    """A master's FAIR variants are fair fixes its author wrote: none may be refused. Its WRONG ones
    must fail by the checks, with their own message, so the policy must not refuse them either."""
    import re

    from autograder.format.exercise import variant_source

    problems, seen = [], 0
    for exercise in EXERCISES.values():
        text = exercise.master.read_text()
        for kind, name in sorted(set(re.findall(r"^\s*# BEGIN (FAIR|WRONG) (\S+)", text, re.M))):
            source = variant_source(text, name, kind=kind, where=str(exercise.master), exercise_id=exercise.id, title=exercise.title)
            problems += [f"{exercise.id} {kind} {name}: {f}" for f in policy.check(source, exercise)]
            seen += 1
    assert seen >= 10 and problems == []


def test_every_scan_allow_entry_is_well_formed():
    assert [p for e in EXERCISES.values() for p in policy.allow_problems(e.scan_allow)] == []
    assert policy.allow_problems(["threading", "import:", "name:print", "special:eq"]) and not policy.allow_problems(["name:open"])


FAIR = {
    # what fair fixes plausibly write, beyond the masters: none of it is refused
    "typing and dataclasses": "from __future__ import annotations\nfrom dataclasses import dataclass, field\nfrom typing import Optional\n"
                               "import functools, itertools, operator, collections, math, random, time, warnings, logging, json, re\n"
                               "@dataclass\nclass Cfg:\n    size: int = 3\n    names: list = field(default_factory=list)\n"
                               "@functools.lru_cache(maxsize=None)\ndef table(n: Optional[int] = None):\n    return [math.sqrt(i) for i in range(n or 3)]\n"
                               "log = logging.getLogger(__name__)\nstart = time.perf_counter()\nlog.info('took %s', time.perf_counter() - start)\n",
    "a module with its own private state": "import torch\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                            "        self._cache = {}\n        self.lin = torch.nn.Linear(3, 3)\n    def forward(self, x):\n"
                                            "        self._cache['n'] = x.shape[0]\n        return self.lin(x)\n"
                                            "    def __call__(self, *args):\n        return super().__call__(*args)\n"
                                            "    def scaled(self, xs):\n        def one(x):\n            return x * self._cache['n']\n"
                                            "        return [one(x) for x in xs]\n",
    "the documented private torch names": "import torch\nimport torch._dynamo\nfrom torch._dynamo import config\n"
                                          "import torch.utils._pytree as pytree\ntorch._dynamo.config.recompile_limit\n"
                                          "def f(x):\n    torch._check(x.shape[0] > 1)\n    torch._dynamo.graph_break()\n"
                                          "    with torch._dynamo.error_on_graph_break(True):\n        y = x.sin()\n"
                                          "    with torch._dynamo.config.patch(capture_scalar_outputs=True):\n        pass\n"
                                          "    torch._dynamo.mark_dynamic(x, 0)\n    return pytree.tree_map(lambda t: t * 2, [y])\n"
                                          "helper = torch._dynamo.nonstrict_trace(lambda x: x + 1)\ntorch._logging.set_logs(graph_breaks=True)\n",
    "a custom operator": "import torch\nimport numpy as np\n@torch.library.custom_op('course::twice', mutates_args=())\n"
                         "def twice(x: torch.Tensor) -> torch.Tensor:\n    return torch.from_numpy(np.asarray(x) * 2)\n"
                         "@twice.register_fake\ndef _(x):\n    return torch.empty_like(x)\nop = torch.ops.course.twice.default\n",
    "environment and streams": "import os, sys\nlevel = os.environ.get('LEVEL', '1')\nprint('x', file=sys.stderr)\n"
                               "path = os.path.join(os.getcwd(), 'a.json')\n",
    "an experiment with the lesson toolkit": "import torch\ndef experiment():\n    from autograder.lab import tally_calls\n"
                                             "    return tally_calls(torch.sin, [(torch.ones(2),)])\n",
    "a demo under __main__": "import torch\ndef f(x):\n    return x + 1\nif __name__ == '__main__':\n    import sys, inspect\n"
                             "    print(torch._dynamo.explain(f)(torch.ones(2)))\n    print(globals().get('f'), open(__file__).read()[:10], sys.argv)\n"
                             "    torch.compile(f, backend='eager')(torch.ones(2))\n",
    "docstrings and names of the form __x__ that are fine": '"""Calls `__init__` and `__getattr__` (a docstring)."""\n'
                                                            "class A:\n    def __init__(self):\n        self.name = type(self).__name__\n"
                                                            "def f():\n    return f.__name__, f.__doc__, __file__\n",
    "a utf-8 coding line": "# -*- coding: utf-8 -*-\nx = 1\n",
    "print registered with Dynamo by its builtins name": ("import builtins\nimport torch\nimport torch._dynamo\n"
                                                          "torch._dynamo.config.reorderable_logging_functions.add(builtins.print)\n"
                                                          "import os as system_os\nenv = system_os\nlevel = env.environ.get('LEVEL')\n"),
    "getattr with the name written out, and torch's other check helpers": (
        "import torch\nclass M(torch.nn.Module):\n    pass\nm = M()\nbias = getattr(m, 'bias', None)\n"
        "torch._check_value(True, lambda: 'a message')\ntorch._check_index(True)\ntorch._assert(True, 'ok')\n"),
    "a compiled module unwrapped": ("import torch\nm = torch.compile(torch.nn.Linear(2, 2))\nplain = getattr(m, '_orig_mod', m)\n"
                                    "state = m._orig_mod.state_dict()\n"),
}


@pytest.mark.parametrize("name", sorted(FAIR))
def test_policy_leaves_fair_code_alone(name):
    assert policy.check(FAIR[name], EXERCISES["breaks_checkpoint"]) == []


def test_the_main_block_is_read_when_it_could_run():
    demo = "def f():\n    pass\nif __name__ == '__main__':\n    eval('1')\n"
    assert policy.check(demo) == []
    assert "builtin" in rules(demo.replace("    pass", "    __name__ = '__main__'"))  # rebinding __name__: read it all
    assert "builtin" in rules(demo + "else:\n    pass\n")  # an else branch runs while grading
    assert "builtin" in rules(demo.replace("==", "!="))
    assert "builtin" in rules("def f():\n    if __name__ == '__main__':\n        eval('1')\n")  # not at top level


def test_exercise_header_extends_the_policy():
    io = EXERCISES["io_calibration"]
    assert "name:open" in io.scan_allow and policy.check("open('x.json')", io) == []
    assert "builtin" in rules("open('x.json')", EXERCISES["breaks_checkpoint"])
    decomposition = "from torch._inductor import decomposition as d\nd.decompositions[1] = 2\n"
    assert policy.check(decomposition, EXERCISES["ablate_stage"]) == []
    assert {"import", "module-write"} <= set(rules(decomposition, EXERCISES["breaks_checkpoint"]))


def test_config_keys_are_left_to_the_grading_child():
    # which keys may change is decided in the child, against allow_config and config_may_add,
    # however the key was named (tests/test_chapter2_breaks.py, test_chapters3_4.py, attacks 13, 14, 41)
    assert policy.check("import torch\ntorch._dynamo.config.recompile_limit = 3\n", EXERCISES["breaks_checkpoint"]) == []
    assert policy.check("import torch\ntorch._dynamo.config.reorderable_logging_functions.add(print)\n") == []
    assert rules("import torch\ntorch._dynamo.config.recompile_limit.x = 3\n") == ["module-write"]


def test_only_the_masters_own_grader_block_is_skipped():
    master = EXERCISES["recompile_limit_layers"]
    text = master.master.read_text()
    assert "# BEGIN GRADER" in text and policy.check(text, master) == []
    tampered = text.replace("# BEGIN GRADER\n", "# BEGIN GRADER\nimport gc\n", 1)
    assert "import" in rules(tampered, master)
    smuggled = "import torch\n# BEGIN GRADER\nimport ctypes\n# END GRADER\n"
    assert "import" in rules(smuggled, master)


def test_the_policy_is_quick():
    texts = [(e, e.master.read_text()) for e in EXERCISES.values()]
    started = time.perf_counter()
    for exercise, text in texts:
        policy.check(text, exercise)
    assert (time.perf_counter() - started) / len(texts) < 0.1


def test_a_refused_submission_fails_and_never_runs(submission):
    result = grade("breaks_checkpoint", submission(SOLUTION + "\nimport gc\n"), seed=2)
    assert result.status == "failed" and result.score == 0
    assert "line" in result.message and "`import gc`" in result.message and result.extra["scan"]
    assert all(check.score == 0 for check in result.checks)
    assert result.measurements == {} and "sandbox" not in result.extra  # no grading child was started


def test_a_coding_cookie_submission_is_refused_through_the_cli(tmp_path):
    path = tmp_path / "breaks_checkpoint.py"
    path.write_bytes(b"# -*- coding: unicode_escape -*-\n" + SOLUTION.encode())
    code, data = grade_json("breaks_checkpoint", path)
    # grade() refuses the cookie as a load error before the policy reads the file (trust's coding_problem)
    assert code == 1 and data["status"] == "error" and "encoding" in data["message"] and "utf-8" in data["message"]


# -- the loader --------------------------------------------------------------------------------------

def test_a_symlink_is_refused_on_every_route(tmp_path):
    link = tmp_path / "breaks_checkpoint.py"
    link.symlink_to(EXERCISES["breaks_checkpoint"].master)
    loaded = load_submission(link)
    assert loaded.source is None and "symbolic link" in loaded.problem
    result = grade("breaks_checkpoint", link, seed=2)
    assert result.status == "error" and result.score == 0 and "symbolic link" in result.message
    code, data = grade_json("breaks_checkpoint", link)
    assert code == 1 and data["status"] == "error" and "symbolic link" in data["message"]
    with pytest.raises(SubmissionError, match="symbolic link"):
        read_notebook(link)


def test_a_path_through_a_linked_folder_is_refused_when_the_folder_is_known(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.py").write_text("x = 1\n")
    submitted = tmp_path / "student"
    submitted.mkdir()
    (submitted / "sub").symlink_to(outside)
    loaded = load_submission(submitted / "sub" / "x.py", within=submitted)
    assert loaded.source is None and "outside the submitted folder" in loaded.problem
    assert load_submission(outside / "x.py", within=outside).source == "x = 1\n"


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "answer.py"
    os.mkfifo(fifo)
    started = time.monotonic()
    loaded = load_submission(fifo)
    assert loaded.source is None and "not a regular file" in loaded.problem and time.monotonic() - started < 2


def test_the_loader_returns_the_exact_bytes_it_read(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\r\n")
    assert load_submission(path).data == b"x = 1\r\n"


@pytest.mark.parametrize("data, words", [
    (b'{"cells": ' + b"[" * 100000 + b"]" * 100000 + b"}", "too deeply nested"),
    (b'{"cells": [], "x": "\xff\xfe"}', "not UTF-8"),
    (b'{"cells": [' + b'{"cell_type": "code", "source": "x = 1"},' * 40000 + b'{}]}', "limited to"),
])
def test_a_notebook_that_cannot_be_read_is_a_per_file_error(tmp_path, data, words):
    path = tmp_path / "answer.ipynb"
    path.write_bytes(data)
    loaded = load_submission(path)
    assert loaded.source is None and words in loaded.problem
    with pytest.raises(SubmissionError):
        read_notebook(path)


def test_a_notebook_too_large_for_memory_is_a_per_file_error(tmp_path, monkeypatch):
    import autograder.format.loader as loader

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(loader.json, "loads", exhausted)
    path = tmp_path / "answer.ipynb"
    path.write_text('{"cells": []}')
    assert "too large" in load_submission(path).problem


def test_a_deeply_nested_notebook_gives_one_json_object_from_the_cli(tmp_path):
    path = tmp_path / "answer.ipynb"
    path.write_bytes(b"[" * 50000 + b"]" * 50000)
    code, data = grade_json("breaks_checkpoint", path)
    assert code == 1 and data["status"] == "error" and "too deeply nested" in data["message"]


def test_a_notebook_submission_grades_like_its_code(tmp_path):
    cells = [{"cell_type": "markdown", "source": "# task"},
             {"cell_type": "code", "source": "%matplotlib inline\n" + SOLUTION, "metadata": {}, "outputs": []}]
    path = tmp_path / "answer.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert grade("breaks_checkpoint", path, seed=2).passed


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"cells": 3}', '{"cells": [{"cell_type": "code", "source": "def ("}]}'])
def test_a_broken_notebook_is_a_clear_error(tmp_path, text):
    path = tmp_path / "answer.ipynb"
    path.write_text(text)
    result = grade("breaks_checkpoint", path, seed=2)
    assert result.status == "error" and "notebook" in result.message


def test_notebook_magics_become_comments():
    source = notebook_source(json.dumps({"cells": [{"cell_type": "code", "source": ["!pip install x\n", "y = 1"]}]}))
    assert "# (notebook magic) !pip install x" in source and "y = 1" in source


def test_loader_fuzz_never_raises(tmp_path):
    """Random bytes, truncated files and mangled notebooks: always a Loaded, never an exception."""
    rng = random.Random(1234)
    seeds = [SOLUTION.encode(), json.dumps({"cells": [{"cell_type": "code", "source": SOLUTION}]}).encode()]
    for number in range(400):
        base = rng.choice(seeds)
        kind = number % 4
        if kind == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        elif kind == 1:
            data = base[: rng.randrange(len(base))]
        elif kind == 2:
            data = bytearray(base)
            for _ in range(rng.randrange(1, 20)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            data = bytes(data)
        else:
            data = base.replace(b"(", b"((" * rng.randrange(1, 200), 1)
        path = tmp_path / ("f.ipynb" if number % 2 else "f.py")
        path.write_bytes(data)
        loaded = load_submission(path)
        assert (loaded.source is None) == bool(loaded.problem)


# -- property tests (hypothesis): derandomized, so CI sees the same examples every run -----------------

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.format.loader import Loaded

_FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)
_cell = st.dictionaries(st.sampled_from(["cell_type", "source", "metadata", "outputs", "id"]),
                        st.sampled_from(["code", "markdown", "raw"]) | st.text(max_size=40) | st.lists(st.text(max_size=20), max_size=4)
                        | _json, max_size=5)
_notebook = st.fixed_dictionaries({"cells": st.lists(_cell | _json, max_size=5)},
                                  optional={"metadata": _json, "nbformat": st.integers(), "nbformat_minor": _json})


def _load(tmp_path, data: bytes, suffix: str) -> Loaded:
    path = tmp_path / f"answer{suffix}"
    path.write_bytes(data)
    loaded = load_submission(path)  # anything but a Loaded (an exception included) fails the property
    assert isinstance(loaded, Loaded)
    assert (loaded.source is None) == bool(loaded.problem)
    if loaded.source is None:
        assert len(loaded.problem) > 20 and loaded.problem.endswith((".", ")")), loaded.problem
    else:
        compile(loaded.source, "answer", "exec")  # what the loader accepts, the child can compile
    return loaded


@_FAST
@given(data=st.binary(max_size=400), suffix=st.sampled_from([".py", ".ipynb"]))
def test_property_arbitrary_bytes_load_cleanly(tmp_path, data, suffix):
    _load(tmp_path, data, suffix)


@_FAST
@given(text=st.text(max_size=300))
def test_property_arbitrary_text_as_python(tmp_path, text):
    _load(tmp_path, text.encode("utf-8", "surrogatepass"), ".py")


@_FAST
@given(value=_json)
def test_property_arbitrary_json_as_a_notebook(tmp_path, value):
    loaded = _load(tmp_path, json.dumps(value).encode(), ".ipynb")
    if not (isinstance(value, dict) and isinstance(value.get("cells"), list)):
        assert loaded.source is None and "notebook" in loaded.problem


@_FAST
@given(notebook=_notebook)
def test_property_notebook_shaped_json_with_broken_cells(tmp_path, notebook):
    _load(tmp_path, json.dumps(notebook).encode(), ".ipynb")


@_FAST
@given(prefix=st.binary(max_size=30), cut=st.integers(min_value=0, max_value=400))
def test_property_truncated_or_prefixed_notebooks(tmp_path, prefix, cut):
    whole = json.dumps({"cells": [{"cell_type": "code", "source": SOLUTION}], "metadata": {}}).encode()
    _load(tmp_path, prefix + whole[:cut], ".ipynb")


@settings(max_examples=3, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(min_size=1, max_size=60).filter(lambda b: b"\n" not in b), suffix=st.sampled_from([".py", ".ipynb"]))
def test_property_grading_garbage_is_a_failed_result(tmp_path, data, suffix):
    """A few examples through grade() itself (each costs a grading): a failed Result with a message."""
    path = tmp_path / f"answer{suffix}"
    path.write_bytes(b"\x00" + data if suffix == ".py" else data)
    result = grade("breaks_checkpoint", path, seed=2)
    assert not result.passed and result.score == 0 and result.message


def test_the_damaged_notebook_reader_refuses_a_deep_notebook_instead_of_crashing():
    """grade-batch, Gradescope and nbgrader read notebooks through classroom/salvage.py, not the
    loader: the same depth limit holds there (json.loads alone raises RecursionError)."""
    from autograder.classroom.salvage import read_text

    reading = read_text(b'{"cells": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert reading.cells == [] and "nests more than 100 levels" in reading.problem
    cut_off = read_text(b'{"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}}, ' + b"[" * 100_000)
    assert "nests more than" in cut_off.problem
