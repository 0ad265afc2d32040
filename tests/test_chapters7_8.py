"""Chapters 7 (observability) and 8 (reporting issues): coverage, the probe's log and trace readers,
the ``reproducer`` check kind, and the claim that the grader reads what the learner reads.

The end-to-end tests run each log/trace exercise's starting file the way the lesson tells the
learner to (TORCH_LOGS or TORCH_TRACE set, in a fresh interpreter), parse what it printed or wrote,
and check that the answers found there are the reference solution's, which test_exercises proves
equal to what the grader measures itself. The reproducer tests grade fake reproducers, each of which
must fail with a message that names why.
"""

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from autograder.checks.reporting import code_lines, foreign_imports, raised_by_hand, starter_line
from autograder.format.exercise import ExerciseFormatError, discover, load, parse_master
from autograder.engine.grader import grade
from conftest import ROOT, run_cli
from exercise_text import message, solution, status, swap

CHAPTERS = {"07_observability": 7, "08_reporting_issues": 8}
WANTED_SECTIONS = {"07_observability": ["7.1", "7.2"], "08_reporting_issues": ["8.1", "8.2", "8.3"]}
TORCH_DIR = None


def run_file(path, **env):
    """Run a file in a fresh interpreter, as the learner does, with extra environment variables."""
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **env}, cwd=ROOT)


def solution_answers(exercise_id, constant="ANSWERS"):
    """The reference solution's answers (test_exercises proves the grader measures exactly these)."""
    module = types.ModuleType("solution_constants")
    text = solution(exercise_id)
    block = re.search(rf"^{constant} = (\{{.*?^\}}|\{{.*?\}})$", text, re.S | re.M)[1]
    exec(f"{constant} = {block}", module.__dict__)
    return getattr(module, constant)


# -- the chapters as a whole ---------------------------------------------------------------------

def test_list_json_maps_six_or_more_exercises_to_chapters_7_and_8_covering_every_id():
    code, out, _ = run_cli("list", "--json")
    assert code == 0
    listed = [e for e in json.loads(out) if e["chapter_slug"] in CHAPTERS]
    assert len(listed) >= 6
    assert all(e["chapter"] == CHAPTERS[e["chapter_slug"]] for e in listed)
    covered = {sid for e in listed for sid in e["syllabus"]}
    assert {"7.1", "7.2", "8.1", "8.2", "8.3"} <= covered
    assert len([e for e in listed if e["chapter"] == 7]) >= 4 and len([e for e in listed if e["chapter"] == 8]) >= 3


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_lesson_has_each_section_once_and_links_runs_and_checks_every_exercise(chapter):
    text = (ROOT / "lessons" / f"{chapter}.py").read_text()
    found = re.findall(r"^# #{2,6} (\d+(?:\.\d+)+) ", text, re.M)
    assert sorted(found) == WANTED_SECTIONS[chapter], found
    assert "data:image" not in text
    exercises = [e for e in discover() if e.chapter == chapter]
    assert exercises
    for exercise in exercises:
        assert f"(../exercises/{chapter}/{exercise.id}.py)" in text, exercise.id
        assert f"# !{{sys.executable}} ../exercises/{chapter}/{exercise.id}.py" in text, exercise.id
        assert f'check("{exercise.id}")' in text, exercise.id


def test_lesson_7_runs_tlparse_for_real_and_shows_the_report_in_jupyterlab():
    text = (ROOT / "lessons" / "07_observability.py").read_text()
    assert "TORCH_TRACE" in text and "subprocess.run([TLPARSE" in text
    assert "display(HTML(" in text and "index.html" in text
    assert "set_logs" in text and all(a in text for a in ("graph_breaks", "recompiles", "guards", "graph_code", "output_code"))


def test_lesson_8_names_every_stage_and_the_bisector_and_says_the_failures_are_planted():
    text = (ROOT / "lessons" / "08_reporting_issues.py").read_text()
    assert all(f'"{b}"' in text for b in ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor"))
    assert "CompilerBisector.do_bisect" in text and "planted by the course" in text


def test_tlparse_is_a_pinned_dependency_and_installed():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'"tlparse==[0-9.]+"', pyproject)
    tlparse = Path(sys.executable).with_name("tlparse")
    assert tlparse.is_file(), "pip install the pinned tlparse into the course's environment"


@pytest.mark.parametrize("exercise", [e for e in discover() if e.chapter in CHAPTERS], ids=lambda e: e.id)
def test_starter_has_a_todo_and_a_demo(exercise):
    text = exercise.starter.read_text()
    assert "# TODO:" in text and 'if __name__ == "__main__":' in text


# -- the probe: traces and logs --------------------------------------------------------------------

PROGRAM = '''\
import torch


def head(x):
    print("half way")
    return x.sin() * 2


def run():
    compiled = torch.compile(head, backend="eager")
    for n in (3, 3, 5):
        compiled(torch.ones(n))


if __name__ == "__main__":
    run()
'''


def test_read_trace_of_a_real_torch_trace_agrees_with_the_in_process_structured_trace(tmp_path):
    from autograder.sandbox import probe

    script = tmp_path / "traced.py"
    script.write_text(PROGRAM)
    done = run_file(script, TORCH_TRACE=str(tmp_path / "trace"))
    assert done.returncode == 0, done.stderr[-2000:]
    from_file = probe.compilations(probe.read_trace(tmp_path / "trace"))

    sys.path.insert(0, str(tmp_path))
    try:
        import traced
        probe.clean_state()
        with probe.structured_trace() as records:
            traced.run()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("traced", None)
    in_process = probe.compilations(records)
    assert [(c.compile_id, c.attempt, c.function, c.ops) for c in from_file] == \
           [(c.compile_id, c.attempt, c.function, c.ops) for c in in_process]
    assert [c.compile_id for c in from_file] == ["0/0", "1/0", "1/1"]  # head's frame guards nothing before the print
    assert from_file[0].attempt == 1 and "size mismatch" in from_file[2].recompile_reason


def test_call_log_attributes_breaks_and_recompiles_to_the_call_that_caused_them():
    import torch

    from autograder.sandbox.probe import call_log

    def f(x, k):
        y = x * k
        print("between")
        return y + k

    log = call_log(f, [(torch.ones(2), 1.0), (torch.ones(2), 1.0), (torch.ones(2), 2.0)], backend="eager")
    assert [len(c.breaks) for c in log] == [1, 0, 1]  # the recompile of f breaks again at the print
    assert log[1].recompiled == [] and log[1].compile_ids == []
    functions = sorted(r["function"] for r in log[2].recompiled)
    assert functions[0] == "f" and functions[1].startswith("torch_dynamo_resume_in_f_at_") and len(functions) == 2
    assert all(guard.endswith("k == 1.0") for r in log[2].recompiled for guard in r["guards"])


def test_starter_line_maps_a_master_line_to_the_line_the_learner_sees():
    exercise = load("logs_breaks_guards")
    master = exercise.master.read_text().splitlines()
    number = next(i for i, line in enumerate(master, start=1) if "torch.nonzero" in line)
    mapped = starter_line(str(exercise.master), number)
    assert exercise.starter.read_text().splitlines()[mapped - 1] == master[number - 1]
    assert mapped != number  # the header and banner differ: the mapping matters


def test_code_lines_and_foreign_imports():
    source = '"""A docstring\nover two lines."""\n\nimport os\nimport numpy as np  # no\nfrom torch import nn\n# a comment\n\nx = 1\n'
    assert code_lines(source) == 4
    assert foreign_imports(source) == ["numpy (line 5)"]
    assert foreign_imports("from . import sibling\nimport autograder.sandbox.probe\n") == [". (line 1)", "autograder.sandbox.probe (line 2)"]


def test_raised_by_hand_names_each_way_of_faking_a_torch_error():
    torch_dir = "/site-packages/torch"
    inside = {"where": "torch", "file": f"{torch_dir}/_refs/__init__.py", "line": 1, "function": "_broadcast_shapes", "code": "x"}
    own = {"where": "repro", "file": "/tmp/repro.py", "line": 9, "function": "decomp", "code": "return x * w"}
    check = {"where": "torch", "file": f"{torch_dir}/__init__.py", "line": 2, "function": "_check", "code": "..."}
    assert raised_by_hand({"frames": [own, inside]}) is None
    assert "raises it itself" in raised_by_hand({"frames": [{**own, "code": "raise RuntimeError('x')"}]})
    assert "calls torch's `_check`" in raised_by_hand({"frames": [own, check, {**check, "function": "_check_with"}]})
    assert "outside torch" in raised_by_hand({"frames": [inside, {**own, "where": "other", "file": "/x/lib.py"}]})
    # The message is the file's own phrase, whichever torch function raised it (an assert operator here);
    # quoting the error in a docstring, or a short name such as the operator's, is not that.
    broadcast = {"frames": [own, inside], "root_message": "Attempting to broadcast a dimension of length 6 at -1!"}
    planted = 'def decomp(x, w):\n    torch.ops.aten._assert_scalar(False, "Attempting to broadcast a dimension of length 6")\n'
    assert "a phrase your file writes itself" in raised_by_hand(broadcast, planted)
    quoted = '"""Fails with: Attempting to broadcast a dimension of length 6."""\nOP = "course::row_scale"\n'
    assert raised_by_hand(broadcast, quoted) is None
    # An assert operator raises its caller's message, however the file built it (attack 67); called from
    # code torch generated (a runtime shape assertion), it is torch's own finding.
    ops = f"{torch_dir}/_ops.py"
    assert_op = {"where": "torch", "file": ops, "line": 3, "function": "__call__", "code": "return self._op(*args)",
                 "op": "aten::_assert_scalar.default"}
    dispatch = {"where": "torch", "file": f"{torch_dir}/_subclasses/fake_tensor.py", "line": 4, "function": "dispatch", "code": "..."}
    assert "calls the assert operator aten::_assert_scalar.default (line 9" in raised_by_hand({"frames": [own, assert_op, dispatch, assert_op]})
    generated = {"where": "other", "file": "<eval_with_key>.3", "line": 5, "function": "forward", "code": "_assert_scalar(ge, 'u0 >= 0')"}
    assert raised_by_hand({"frames": [own, inside, generated, assert_op]}) is None
    mul = {**assert_op, "op": "aten::mul.Tensor"}
    assert raised_by_hand({"frames": [own, mul, inside]}) is None


def test_the_reproducer_kind_is_validated(tmp_path):
    master = solution("minimal_repro")
    folder = tmp_path / "solutions" / "08_reporting_issues"
    folder.mkdir(parents=True)
    for old, new, message in [('# backend = "aot_eager_decomp_partition"\n', "", "reproducer.backend"),
                              ('# failure = "exception"', '# failure = "crash"', "reproducer.failure"),
                              ("# max_lines = 30", "# max_lines = 30\n# lines = 3", "does not take")]:
        path = folder / "minimal_repro.py"
        path.write_text(swap(master, old, new))
        with pytest.raises(ExerciseFormatError, match=message):
            parse_master(path)


# -- the grader reads what the learner reads ----------------------------------------------------

def test_logs_breaks_guards_answers_are_in_the_logs_of_the_starting_file():
    exercise = load("logs_breaks_guards")
    done = run_file(exercise.starter, TORCH_LOGS="graph_breaks,recompiles")
    assert done.returncode == 0, done.stderr[-2000:]
    calls = done.stderr.split("=== call ")[1:]
    breaks = re.findall(r"Graph break in user code at (.+?):(\d+)", done.stderr)
    assert breaks and {Path(f).name for f, _ in breaks} == {"logs_breaks_guards.py"}
    third = re.findall(r"Recompiling function (\S+) in", calls[2])
    guard = re.search(r"- \d+/\d+: (.+?)\s*(?:#.*)?$", calls[2], re.M)[1].strip()
    seen = {"breaking_line": int(breaks[0][1]), "recompiled_on_call_3": third[0], "failed_guard_on_call_3": guard,
            "recompiles_on_call_4": len(re.findall("Recompiling function", calls[3]))}
    assert len(third) == 1 and seen == solution_answers("logs_breaks_guards")


def test_logs_graph_code_answers_are_in_the_logs_of_the_starting_file():
    exercise = load("logs_graph_code")
    done = run_file(exercise.starter, TORCH_LOGS="graph_code,guards")
    assert done.returncode == 0, done.stderr[-2000:]
    forward = re.search(r"def forward\(self, (.*)\):", done.stderr)[1]
    seen = {
        "graph_inputs": len(re.findall(r"L_\w+: \"", forward)),
        "baked_constant": float(re.search(r"= linear \* ([0-9.]+);", done.stderr)[1]),
        "activation": re.search(r"torch\._C\._nn\.(\w+)\(h\)", done.stderr)[1],
        "guarded_config_keys": sorted(set(re.findall(r"EQUALS_MATCH: G\['CONFIG'\]\['(\w+)'\]", done.stderr))),
    }
    assert seen == solution_answers("logs_graph_code")


def test_trace_report_answers_are_in_a_real_trace_of_the_starting_file(tmp_path):
    from autograder.sandbox import probe

    exercise = load("trace_report")
    done = run_file(exercise.starter, TORCH_TRACE=str(tmp_path / "trace"))
    assert done.returncode == 0, done.stderr[-2000:]
    compiled = probe.compilations(probe.read_trace(tmp_path / "trace"))
    per_function = {}
    for c in compiled:
        per_function[c.function] = per_function.get(c.function, 0) + 1
    by_size = sorted(compiled, key=lambda c: c.ops)
    seen = {"frames_compiled": len({c.frame for c in compiled}), "compiles": len(compiled),
            "most_compiled_function": max(per_function, key=per_function.get), "largest_graph": by_size[-1].compile_id}
    assert seen == solution_answers("trace_report")
    assert by_size[-1].ops > 10 * by_size[-2].ops  # the answer is far from a tie, and no timing decides it


def test_trace_report_renders_with_tlparse(tmp_path):
    exercise = load("trace_report")
    run_file(exercise.starter, TORCH_TRACE=str(tmp_path / "trace"))
    (log,) = (tmp_path / "trace").glob("*.log")
    done = subprocess.run([str(Path(sys.executable).with_name("tlparse")), str(log), "-o", str(tmp_path / "out"),
                           "--overwrite", "--no-browser"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    ids = json.loads((tmp_path / "out" / "compile_directory.json").read_text())
    assert {"[0/0]", "[1/0]", "[3/2]"} <= set(ids)
    assert "torch_dynamo_resume_in_pipeline_at_" in (tmp_path / "out" / "index.html").read_text()


# -- the reproducer check -------------------------------------------------------------------------

def test_the_starting_script_fails_with_the_signature_the_exercise_declares():
    """The header declares how the original script fails; check it on the script itself."""
    from autograder.sandbox.probe import run_reproducer

    exercise = load("minimal_repro")
    spec = exercise.check("reproducer").params
    report = run_reproducer(str(exercise.starter), backends=[spec["backend"], *spec["passes"]], culprit=spec["culprit"])
    named = report["runs"][spec["backend"]]
    assert report["runs"]["reference"]["status"] == "ok"
    assert named["status"] == "raised" and named["type"] == spec["exception"] and spec["match"] in named["message"]
    assert raised_by_hand(named) is None
    assert all(report["runs"][b]["status"] == "ok" for b in spec["passes"])
    assert report["culprit"]["status"] == "ok"


def _repro(**swaps):
    text = solution("minimal_repro")
    for old, new in swaps.items():
        text = swap(text, old, new)  # the first: the SOLUTION region (the STARTER one is commented out)
    return text


FAKES = {
    # name: (text of the fake reproducer, a phrase its failure message must contain). The master's
    # WRONG variants prove the others (a raise in the file, another operator, the stage, numpy, length,
    # a decomposition that is right).
    "raises_through_torch_check": (
        _repro(**{"    return x * gate  # the planted bug: broadcasts gate along the wrong dimension\n":
                  "    torch._check(False, lambda: 'Attempting to broadcast a dimension of length 6')\n    return x\n"}),
        "calls torch's `_check`"),
    "differs_whenever_compiled": (
        _repro(**{"def fn(x, gate):\n    return row_scale(x, gate)\n":
                  "def fn(x, gate):\n    if torch.compiler.is_compiling():\n"
                  "        return row_scale(x, gate[:, None].expand_as(x)[:, 0]) + 1\n"
                  "    return row_scale(x, gate)\n"}),
        "under backend='eager' it gives wrong results"),
    # Dynamo cannot trace the raise, so it runs the frame eagerly, where is_compiling() is False.
    "raises_only_while_traced": (
        _repro(**{"def fn(x, gate):\n    return row_scale(x, gate)\n":
                  "def fn(x, gate):\n    if torch.compiler.is_compiling():\n"
                  "        raise RuntimeError('Attempting to broadcast a dimension of length 6')\n"
                  "    return row_scale(x, gate)\n"}),
        "does not raise"),
    "fails_eagerly_too": (
        _repro(**{"def fn(x, gate):\n    return row_scale(x, gate)\n": "def fn(x, gate):\n    return x * gate\n"}),
        "already fails without torch.compile"),
    # The culprit rule (culprit = "course::row_scale"): the same failure from another operator alone is
    # the master's WRONG same_error_from_another_operator; here the culprit's decomposition is right and
    # another operator (in a namespace of its own, mylib) fails the same way.
    "the_culprit_decomposed_rightly_and_another_operator_failing": (
        _repro(**{"    return x * gate  # the planted bug: broadcasts gate along the wrong dimension\n":
                  "    return x * gate[:, None]\n",
                  "decomposition.fast_random_decomps.cache_clear()\n":
                  '\n\n@torch.library.custom_op("mylib::col_scale", mutates_args=())\n'
                  "def col_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:\n"
                  "    return x * gate[:, None]\n\n\n"
                  "col_scale.register_fake(lambda x, gate: torch.empty_like(x))\n"
                  "decomposition.decompositions[torch.ops.mylib.col_scale.default] = lambda x, gate: x * gate\n"
                  "decomposition.fast_random_decomps.cache_clear()\n",
                  "def fn(x, gate):\n    return row_scale(x, gate)\n": "def fn(x, gate):\n    return col_scale(row_scale(x, gate), gate)\n"}),
        "still fails under backend='aot_eager_decomp_partition' with the decomposition of course::row_scale removed"),
}


@pytest.mark.parametrize("name", sorted(FAKES))
def test_a_fake_reproducer_fails_and_says_why(name, submission):
    text, phrase = FAKES[name]
    result = grade("minimal_repro", submission(text), seed=3)
    assert not result.passed and result.score == 0, result.message
    assert phrase in result.message, result.message


def test_a_real_reproducer_in_other_words_passes(submission):
    text = '''"""My reproducer."""
import torch
import torch._inductor.decomposition as decomps

BACKEND = "aot_eager_decomp_partition"


@torch.library.custom_op("course::row_scale", mutates_args=())
def row_scale(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    return x * gate[:, None]


row_scale.register_fake(lambda x, gate: torch.empty_like(x))
decomps.decompositions[torch.ops.course.row_scale.default] = lambda x, gate: x * gate
decomps.fast_random_decomps.cache_clear()


def fn(a, b):
    return row_scale(a, b) + 1


def make_inputs():
    return torch.ones(5, 3), torch.arange(5.0)


if __name__ == "__main__":
    torch.compile(fn, backend=BACKEND)(*make_inputs())
'''
    result = grade("minimal_repro", submission(text), seed=4)
    assert result.passed, result.message


# -- the bisection exercise: the learner's test_fn is bisected too ------------------------------

def test_bisect_with_a_test_fn_that_never_fails_is_graded_as_wrong(submission):
    text = swap(solution("bisect_decomp"), "    return torch.allclose(torch.compile(block)(X), expected, atol=1e-5)",
                "    return True")
    result = grade("bisect_decomp", submission(text), seed=5)
    assert status(result) == {"bisection": "passed", "test_fn": "failed"}
    assert "the grader's own bisection finds" in message(result, "test_fn")
