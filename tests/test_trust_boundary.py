"""The trust boundary (issue 17): one attack per class, each graded "not passed", nothing left behind.

The design these prove (docs/THREAT_MODEL.md, "How a grading runs"): the judge, a process that never
runs learner code, alone decides and alone holds the verdict's channel; the reference child, which
alone imports the master, ends before any learner code starts; the learner child runs the exact text
the grader read, as a user of its own (root), as process 1 of a PID namespace of its own, and sends
back plain data only, sealed with a key only the grader's code there was given.
"""

import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest

from autograder.engine import grader as grader_module
from autograder.engine.grader import grade
from autograder.format.exercise import load
from autograder.sandbox.identity import POOL_BASE, POOL_SIZE, packages_block_the_drop, processes_of
from conftest import ROOT
from exercise_text import message, solution, starter, status, swap, violations

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0 and packages_block_the_drop() is None
as_root = pytest.mark.skipif(not AS_ROOT, reason="identities of its own and PID namespaces need root")
SEED = 4


@pytest.fixture(autouse=True)
def boundary_only(monkeypatch):
    """The trust boundary on its own (the judge, the reference child, the plain-data channel, the
    watch): the static policy and the audit hook, which refuse many of these attacks before any
    child starts, are switched off here; tests/test_attacks.py runs them through every layer."""
    monkeypatch.setitem(grader_module.DEFENCES, "policy", False)
    monkeypatch.setitem(grader_module.DEFENCES, "audit", False)


def not_passed(result):
    assert not result.passed, result.message
    assert result.message, "every failed grade explains itself"
    return result


def uid_of(result) -> int | None:
    for item in result.extra.get("sandbox", []):
        if item.startswith("ran as uid "):
            return int(item.split()[3].rstrip(","))
    return None


# -- class 1: the reference lives in another process ------------------------------------------------

def test_class1_the_master_cannot_be_imported_and_no_truth_is_in_reach(submission):
    attack = starter("dynamic_predict") + (
        "\nimport gc, sys\n"
        "found = {}\n"
        "try:\n"
        "    import autograder_reference\n"  # the grader's copy of the master, in the old design
        "    found = autograder_reference.expected_graphs()\n"
        "except Exception:\n"
        "    pass\n"
        "try:\n"  # a truth table left in memory: a dict with the experiments' keys and whole numbers
        "    for candidate in gc.get_objects():\n"
        "        if type(candidate) is dict and set(candidate) == set(EXPERIMENTS) and all(type(v) is int for v in candidate.values()):\n"
        "            found = candidate\n"
        "    frame = sys._getframe()\n"
        "    while frame is not None:\n"
        "        for value in list(frame.f_locals.values()):\n"
        "            if type(value) is dict and 'truth' in str(list(value)[:50]):\n"
        "                found = value\n"
        "        frame = frame.f_back\n"
        "except Exception:\n"
        "    pass\n"
        "print('FOUND', len(found))\n"
        "GRAPHS = dict(found) or GRAPHS\n")
    result = not_passed(grade("dynamic_predict", submission(attack), seed=SEED))
    assert "FOUND 0" in result.output_tail or result.extra.get("scan"), result.output_tail


# -- class 2: the verdict's channel is out of reach, and what does arrive is validated -------------

FORGED = json.dumps({"ok": True, "stage": "graded", "checks": [], "measurements": {}, "violations": []})


def test_class2_forged_verdicts_and_reports_on_every_descriptor_are_refused(submission):
    attack = starter("breaks_checkpoint") + (
        "\nimport os, struct\n"
        f"verdict = {FORGED!r}.encode()\n"
        "frame = b'AGF1' + struct.pack('!H', 6) + b'phase1' + struct.pack('!Q', len(verdict)) + verdict\n"
        "for fd in range(3, 64):\n"
        "    for data in (verdict, frame):\n"
        "        try:\n"
        "            os.write(fd, data)\n"
        "        except OSError:\n"
        "            pass\n")
    result = not_passed(grade("breaks_checkpoint", submission(attack), seed=SEED))
    assert result.score == 0


def test_class2_a_report_not_sealed_by_the_grader_is_rejected(submission, monkeypatch):
    # A well-formed frame written on the facts channel by anything but the grader's code: refused,
    # even when the static scan would let it through.
    monkeypatch.setattr(grader_module, "static_findings", lambda source, exercise: [])
    attack = solution("breaks_checkpoint") + (
        "\nimport os, struct, io, torch\n"
        "buffer = io.BytesIO()\n"
        "torch.save({'phase': 1, 'stage': 'graded'}, buffer)\n"
        "body = b'\\0' * 32 + buffer.getvalue()\n"
        "frame = b'AGF1' + struct.pack('!H', 6) + b'phase1' + struct.pack('!Q', len(body)) + body\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, frame)\n"
        "    except OSError:\n"
        "        pass\n")
    result = not_passed(grade("breaks_checkpoint", submission(attack), seed=SEED))
    assert "does not accept" in result.message, result.message


def test_class2_replacing_the_result_types_and_deciders_in_the_learner_process_changes_nothing(submission):
    attack = starter("breaks_checkpoint") + (
        "\nimport autograder.format.result as result, autograder.checks.all as deciding\n"
        "result.CheckResult.outcome = classmethod(lambda cls, spec, ok, text: cls(spec.name, spec.kind, 'passed', spec.points,"
        " spec.points, 'ok', spec.section))\n"
        "result.settle = lambda r: r\n"
        "for decider in deciding.load_all().values():\n"
        "    decider.function = lambda spec, evidence: result.CheckResult.outcome(spec, True, 'ok')\n")
    result = not_passed(grade("breaks_checkpoint", submission(attack), seed=SEED))
    assert status(result)["compiles"] == "failed"  # decided in the judge, with the judge's own code


# -- class 3: the watch sees swapped code and run-time names; check parameters are not in reach --------

def test_class3_a_swapped_code_object_and_a_binding_made_through_vars_are_caught(submission):
    attack = starter("breaks_checkpoint") + (
        "\nimport autograder.sandbox.probe as probe\n"
        "probe.GraphTally.__call__.__code__ = (lambda self, gm, example_inputs: gm.forward).__code__\n"
        "vars(torch)['com' + 'pile'] = lambda fn=None, **kw: fn\n")
    result = not_passed(grade("breaks_checkpoint", submission(attack), seed=SEED))
    assert result.score == 0 and "Integrity" in result.message
    found = violations(result) + " ".join(result.extra.get("scan", []))
    assert "GraphTally.__call__" in found or result.extra.get("scan"), found


def test_class3_the_check_parameters_are_not_in_the_learner_process(submission):
    attack = starter("recompile_global_log") + (
        "\nimport gc\n"
        "for candidate in gc.get_objects():\n"
        "    if type(candidate).__name__ in ('CheckSpec', 'SpecView') and isinstance(getattr(candidate, 'params', None), dict):\n"
        "        candidate.params.update({'max': 10**6, 'min': 0, 'equal': 8})\n")
    result = not_passed(grade("recompile_global_log", submission(attack), seed=SEED))
    assert status(result)["recompiles"] == "failed"  # the threshold is the judge's own copy


# -- class 4: what runs is exactly what was read and scanned ---------------------------------------

def test_class4_a_coding_cookie_other_than_utf8_is_refused(submission):
    hidden = "# -*- coding: unicode_escape -*-\n" + starter("breaks_checkpoint") + "\n# \\u000atorch.compile = lambda fn=None, **kw: fn\n"
    result = not_passed(grade("breaks_checkpoint", submission(hidden), seed=SEED))
    assert result.status == "error" and "unicode_escape" in result.message and "UTF-8" in result.message
    assert result.extra["stage"] == "load"


def test_class4_the_learner_process_runs_the_text_read_never_the_file(submission, monkeypatch):
    # The file on disk is the starter; the text the grader read (and scanned) is the fix. Were the file
    # read again later (after a swap by another process), the starter would be graded.
    path = submission(starter("breaks_checkpoint"))
    real = grader_module.load_submission

    def read_then_swap(target):
        loaded = real(target)
        loaded.source = solution("breaks_checkpoint")
        return loaded

    monkeypatch.setattr(grader_module, "load_submission", read_then_swap)
    assert grade("breaks_checkpoint", path, seed=SEED).passed


# -- class 5: nothing outlives the grading; gradings cannot reach each other ------------------------

DAEMON = (
    "\nimport os, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        time.sleep(120)\n"
    "    os._exit(0)\n"
    "time.sleep(0.5)\n")


@as_root
def test_class5_a_setsid_double_fork_does_not_outlive_the_grading(submission):
    result = not_passed(grade("breaks_checkpoint", submission(starter("breaks_checkpoint") + DAEMON), seed=SEED))
    uid = uid_of(result)
    assert uid is not None and POOL_BASE <= uid < POOL_BASE + POOL_SIZE, result.extra
    deadline = time.monotonic() + 5
    while processes_of(uid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_of(uid) == [], "a process of the grading survived it"


@as_root
def test_class5_a_grading_that_kills_everything_it_can_does_not_touch_a_concurrent_one(submission):
    killer = submission("import os, signal, time\nend = time.time() + 8\nwhile time.time() < end:\n"
                        "    for target in (-1, os.getppid(), 1):\n        try:\n            os.kill(target, signal.SIGKILL)\n"
                        "        except OSError:\n            pass\n    time.sleep(0.05)\n", name="killer.py")
    fair = ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py"
    results = {}
    attacker = threading.Thread(target=lambda: results.setdefault("killer", grade("breaks_checkpoint", killer, seed=SEED, warm=False)))
    attacker.start()
    time.sleep(3)  # the killer runs (a cold grading imports torch first)
    results["fair"] = grade("breaks_checkpoint", fair, seed=SEED, warm=False)
    attacker.join()
    assert results["fair"].passed, results["fair"].message
    assert not results["killer"].passed


@as_root
def test_class5_a_grading_killed_from_outside_is_the_machines_and_is_retried(submission, monkeypatch):
    # A pool range of its own, so that this test's killer cannot hit another test's grading.
    base = POOL_BASE - 1000
    monkeypatch.setenv("AUTOGRADER_UID_BASE", str(base))
    monkeypatch.setenv("AUTOGRADER_UID_POOL", "4")
    slow = submission(solution("breaks_checkpoint") + "\nimport time\ntime.sleep(6)\n")
    killed = []

    def kill_the_first_learner():
        end = time.monotonic() + 120
        while not killed and time.monotonic() < end:
            for uid in range(base, base + 4):
                for pid in processes_of(uid):
                    os.kill(pid, 9)
                    killed.append(pid)
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_the_first_learner)
    watcher.start()
    result = grade("breaks_checkpoint", slow, seed=SEED, warm=False)
    watcher.join()
    assert killed, "the test never found the learner's process"
    assert result.extra.get("attempts") == 2 and result.passed, result.message  # the retry was not killed


def test_a_grading_whose_every_attempt_is_stopped_from_outside_never_blames_the_learner(submission, monkeypatch):
    from autograder.engine.runner import ChildRun

    monkeypatch.setattr(grader_module, "run_child", lambda job, limit: ChildRun(None, "", -9, False))
    result = grade("breaks_checkpoint", submission(solution("breaks_checkpoint")), seed=SEED, warm=False)
    assert result.status == "error" and result.extra["attempts"] == 2 and result.extra["cause"] == "machine"
    assert "stopped from outside" in result.message and "retried once" in result.message
    assert "your code may" not in result.message.lower() and "crash" not in result.message.lower()


# -- class 7: a submission that is a link to the reference ----------------------------------------

def test_class7_a_symlink_to_the_reference_solution_is_refused(tmp_path):
    link = tmp_path / "breaks_checkpoint.py"
    link.symlink_to(ROOT / "solutions/01_dynamo_core/breaks_checkpoint.py")
    result = not_passed(grade("breaks_checkpoint", link, seed=SEED))
    assert result.status == "error" and "link" in result.message


# -- class 8: check semantics a submission could bend ---------------------------------------------

def test_class8_an_answer_equal_to_everything_is_no_answer(submission):
    attack = starter("dynamic_predict") + (
        "\nclass Anything(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
        "GRAPHS = {name: Anything(0) for name in EXPERIMENTS}\n")
    result = not_passed(grade("dynamic_predict", submission(attack), seed=SEED))
    assert status(result)["graph_counts"] == "failed"


def test_class8_answers_are_compared_as_plain_normalised_data(submission):
    fair = swap(solution("logs_breaks_guards"), '"failed_guard_on_call_3": "reduce == \'sum\'"',
                '"failed_guard_on_call_3": "  reduce == \'sum\'\\n"')
    fair = swap(fair, '"breaking_line": 40', '"breaking_line": 40.0')
    assert grade("logs_breaks_guards", submission(fair), seed=SEED).passed
    wrong = swap(solution("logs_breaks_guards"), '"failed_guard_on_call_3": "reduce == \'sum\'"', '"failed_guard_on_call_3": "reduce"')
    result = not_passed(grade("logs_breaks_guards", submission(wrong), seed=SEED))
    assert "count" not in message(result, "log_answers").lower()  # a copied string is read off, not counted


def test_class8_a_nonstrict_output_must_come_from_the_replayed_graph(submission):
    attack = swap(solution("pure_global_offset"), "    return torch.sigmoid(calibrate(x, CALIBRATION))\n",
                  "    calibrate(x, CALIBRATION)\n    return torch.sigmoid((x - CALIBRATION) * 2.0)\n")
    result = not_passed(grade("pure_global_offset", submission(attack), seed=SEED))
    assert "does not come from the replayed graph" in message(result, "follows_calibration")


def test_class8_a_driver_that_calls_the_plain_function_measures_nothing(submission):
    attack = swap(solution("io_calibration"), '    return step(x, torch.tensor(stats["scale"]), torch.tensor(stats["shift"]))\n',
                  '    return calibrate(x, torch.tensor(stats["scale"]), torch.tensor(stats["shift"]))\n')
    result = not_passed(grade("io_calibration", submission(attack), seed=SEED))
    assert re.search(r"in none of the \d+ calls did compiled code run", message(result, "correct"))


COMPILE_TIME_MASTER = '''# /// exercise
# format_version = 1
# title = "Compile less"
# syllabus = ["5.3"]
# entry = "f"
# starter_fails = ["one_graph"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "correct"
#
# [[checks]]
# kind = "graphs"
# name = "one_graph"
# max = 1
#
# [[checks]]
# kind = "compile_time"
# min_ratio = 2.0
# repeats = 2
# ///
"""Compile less."""

import torch


def f(x):
    # BEGIN SOLUTION
    return (x.sin() + x.cos()).relu()
    # END SOLUTION
    # BEGIN STARTER
    # y = x.sin() + x.cos()
    # print("halfway")  # TODO: a break, so two graphs
    # return y.relu()
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(8, generator=gen),) for _ in range(2)]
# END GRADER
'''


def test_class8_a_compile_time_with_no_graph_compiled_fails(tmp_path, monkeypatch, submission):
    # Before: a submission that compiles nothing measured "359824000x faster" and passed.
    import autograder.format.exercise as exercise_format

    folder = tmp_path / "solutions" / "05_fixture"
    folder.mkdir(parents=True)
    (folder / "compile_fixture.py").write_text(COMPILE_TIME_MASTER)
    monkeypatch.setattr(exercise_format, "SOLUTIONS", tmp_path / "solutions")
    nothing_compiled = submission("import torch\n\n\ndef f(x):\n    return torch.compiler.disable(lambda y: (y.sin() + y.cos()).relu())(x)\n")
    result = not_passed(grade("compile_fixture", nothing_compiled, seed=SEED))
    assert status(result)["correct"] == "passed" and status(result)["compile_time"] == "failed"
    assert "no graph" in message(result, "compile_time")


def test_class8_an_operator_that_behaves_only_under_opcheck_fails(submission):
    honest_fake = swap(starter("custom_op_mutation"), "    return x.new_empty(())\n", "    return x.new_empty(1)\n")
    attack = swap(honest_fake, "    x.clamp_(-limit, limit)\n",
                  "    import traceback\n    if not any('opcheck' in frame.name or 'optests' in frame.filename "
                  "for frame in traceback.extract_stack()):\n        x.clamp_(-limit, limit)\n    else:\n"
                  "        x = x.clamp(-limit, limit)\n")
    result = not_passed(grade("custom_op_mutation", submission(attack), seed=SEED))
    assert status(result)["opcheck"] == "failed" and "called directly" in message(result, "opcheck")


def test_class8_allow_in_graph_is_found_by_identity_not_by_name(submission):
    attack = swap(solution("nonstrict_layer"), "    h = torch._dynamo.nonstrict_trace(vendor_layer)(x, spec)\n",
                  "    h = vendor_layer(x, spec)\n")
    attack = swap(attack, "pytree.register_dataclass(LayerSpec)\n",  # marked at import, under a name built at run time
                  "pytree.register_dataclass(LayerSpec)\nvendor_layer = vars(torch.compiler)['allow_in_' + 'graph'](vendor_layer)\n")
    result = not_passed(grade("nonstrict_layer", submission(attack), seed=SEED))
    assert result.extra.get("scan") or "marked with allow_in_graph" in message(result, "no_dodge")


def test_class8_the_reproducers_hand_raise_test_does_not_trust_file_names(submission):
    # An error raised by the reproducer's own code, compiled under the name of a torch file.
    fake = ("import torch\n\nBACKEND = 'aot_eager_decomp_partition'\n\n"
            "def make_inputs():\n    return torch.randn(6, 4), torch.randn(6)\n\n"
            "_raise = compile(\"raise torch._dynamo.exc.BackendCompilerFailed(lambda: None, RuntimeError('Attempting to "
            "broadcast a dimension of length 6'))\", torch._dynamo.__file__, 'exec')\n\n"
            "def fn(x, gate):\n    if torch.compiler.is_compiling():\n        exec(_raise)\n    return x * gate[:, None]\n")
    result = not_passed(grade("minimal_repro", submission(fake), seed=SEED))
    assert "raised inside torch" not in message(result, "reproducer")


def test_class8_a_failing_gate_is_a_failed_grade_with_no_points(submission):
    attack = swap(solution("branch_on_data"), "def ", "@torch.compiler.disable\ndef ", count=1)
    result = not_passed(grade("branch_on_data", submission(attack), seed=SEED))
    assert result.score == 0 and all(check.score == 0 for check in result.checks)
    gates = [c for c in result.checks if c.status == "failed" and c.max_score == 0]
    if gates and all(c.max_score == 0 for c in result.checks if c.status == "failed"):
        assert "gate" in result.message and "0 points" in result.message


# -- the grader itself: a Python without torch is the environment's problem, never the learner's -------

def test_a_python_without_torch_says_so_and_never_blames_the_file():
    code = (f"import sys, json; sys.path.insert(0, {str(ROOT)!r})\n"
            "from autograder.engine.grader import grade\n"
            f"r = grade('breaks_checkpoint', {str(ROOT / 'solutions/01_dynamo_core/breaks_checkpoint.py')!r})\n"
            "print(json.dumps({'status': r.status, 'message': r.message, 'stage': r.extra.get('stage')}))\n")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["status"] == "error" and seen["stage"] == "environment"
    assert sys.executable in seen["message"] and "./course check" in seen["message"] and "fix your file" not in seen["message"].lower()


# -- the control: fair solutions that differ from the reference still pass --------------------------

@pytest.mark.parametrize("exercise_id", ["breaks_checkpoint", "guard_hot_path", "pure_global_offset", "custom_op_mutation",
                                         "dynamic_predict", "io_calibration", "compile_in_place"])
def test_control_the_reference_solutions_pass(exercise_id):
    assert grade(exercise_id, load(exercise_id).master, seed=SEED, costly=False).passed


# -- predictions with hidden variants ------------------------------------------------------------

VARIANTS_MASTER = '''# /// exercise
# format_version = 1
# title = "Predict, for any draw"
# syllabus = ["1.5"]
# entry = "shift"
# starter_fails = ["predicts"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "answers"
# name = "predicts"
# variants = "draw"
# function = "graphs_for"
# truth = "measured_graphs"
# ///
"""Say how many graphs `shift` compiles, with dynamic=False, for calls on `count` distinct sizes."""

import torch


def shift(x):
    return x + 1


def graphs_for(count):
    # BEGIN SOLUTION
    return count
    # END SOLUTION
    # BEGIN STARTER
    # return None  # TODO: how many graphs?
    # END STARTER


# BEGIN GRADER
def draw(gen):
    return [{"count": int(n)} for n in torch.randint(2, 6, (3,), generator=gen)]


def measured_graphs(params):
    from autograder.lab import tally_calls

    return tally_calls(shift, [(torch.randn(n + 1),) for n in range(params["count"])], dynamic=False).graphs


def calls(gen):
    return [(torch.randn(3, generator=gen),)]
# END GRADER
'''


@pytest.fixture
def variants_master(tmp_path, monkeypatch):
    import autograder.format.exercise as exercise_format

    folder = tmp_path / "solutions" / "01_fixture"
    folder.mkdir(parents=True)
    (folder / "predict_fixture.py").write_text(VARIANTS_MASTER)
    monkeypatch.setattr(exercise_format, "SOLUTIONS", tmp_path / "solutions")


def test_hidden_variants_the_function_is_checked_on_parameters_drawn_per_seed(variants_master, submission):
    fair = submission("import torch\n\n\ndef shift(x):\n    return x + 1\n\n\ndef graphs_for(count):\n    return count\n")
    assert grade("predict_fixture", fair, seed=1).passed
    copied = submission("def shift(x):\n    return x + 1\n\n\ndef graphs_for(count):\n    return 3\n", name="copied.py")
    verdicts = [grade("predict_fixture", copied, seed=seed) for seed in (1, 2, 3)]
    assert not all(r.passed for r in verdicts), "a number copied from one draw passes every draw"
    failed = next(r for r in verdicts if not r.passed)
    assert "drawn afresh on each grading" in message(failed, "predicts")
    missing = submission("def shift(x):\n    return x + 1\n", name="missing.py")
    assert "Define a function `graphs_for`" in message(grade("predict_fixture", missing, seed=1), "predicts")


def test_the_output_check_speaks_of_reordering_only_where_print_was_made_reorderable():
    import dataclasses

    from autograder.checks.breaks import check_output
    from autograder.checks.evidence import Evidence, Measured
    from autograder.sandbox.probe import Measurement

    exercise = load("print_in_step")
    spec = exercise.check("message")
    measured = Measured(dataclasses.asdict(Measurement(calls=1, call_output=[{"stdout": "loss: 2\n", "logs": []}])))
    base = dict(exercise=exercise, measurement=measured, calls=1, expected_output=[{"stdout": "loss: 1\n", "logs": []}])
    plain = check_output(spec, Evidence(facts={"print_reorderable": False}, **base))
    reordered = check_output(spec, Evidence(facts={"print_reorderable": True}, **base))
    assert plain.status == reordered.status == "failed"
    assert "reorder" not in plain.message and "reordered print runs after the graph" in reordered.message


# -- compile caches private to a grading ----------------------------------------------------------

def test_inductor_compiles_into_the_gradings_folder_without_the_machine_wide_precompiled_header(tmp_path):
    # Inductor writes precompiled headers to /tmp/torchinductor_USER/precompiled_headers whatever
    # TORCHINDUCTOR_CACHE_DIR says; an Inductor imported before the grading (the warm worker's) must
    # be switched off too, and a process the grading starts must inherit the switch.
    script = (
        "import json, os, subprocess, sys\n"
        "import torch._inductor.config as config\n"
        "from torch._inductor.runtime.cache_dir_utils import cache_dir\n"
        "from autograder.sandbox import identity, probe\n"
        f"identity.compile_caches_in({str(tmp_path)!r})\n"
        "probe.private_compile_caches()\n"
        "started = subprocess.run([sys.executable, '-c', 'import torch._inductor.config as c; print(c.cpp_cache_precompile_headers)'],"
        " capture_output=True, text=True).stdout.strip()\n"
        "print(json.dumps({'headers': config.cpp_cache_precompile_headers, 'cache': cache_dir(),"
        " 'triton': os.environ['TRITON_CACHE_DIR'], 'started': started}))\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={**os.environ, "TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS": "1"})
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["headers"] is False and seen["started"] == "False"
    assert seen["cache"].startswith(str(tmp_path)) and seen["triton"].startswith(str(tmp_path))


def test_functions_of_the_file_cross_by_name_and_the_learners_own_are_called():
    # A schedule may pass the file's own functions (isolate_skip's monitors); they cross as names,
    # and the learner child calls the learner's functions of those names, never the master's.
    import types

    from autograder.sandbox.plain import FUNCTION, file_functions_named, name_file_functions, with_file_functions

    master = types.ModuleType("autograder_reference")
    exec("def monitor(h):\n    return 'master'\n", master.__dict__)
    helper = lambda h: h  # noqa: E731 - not a top-level function of the master: stays as it is
    calls = [(1, [master.monitor, helper]), {"m": master.monitor}]
    named = name_file_functions(calls, master)
    assert named[0][1][0] == {FUNCTION: "monitor"} and named[0][1][1] is helper
    assert file_functions_named(named) == {"monitor"}
    learner = {"monitor": lambda h: "learner"}
    resolved = with_file_functions(named, learner)
    assert resolved[0][1][0] is learner["monitor"] and resolved[1]["m"] is learner["monitor"]
    shared = [1, 2]  # pure_list_pop hands every call the same list: it must stay one list
    aliased = [(shared, master.monitor), (shared,)]
    rebuilt = with_file_functions(name_file_functions(aliased, master), learner)
    assert rebuilt[0][0] is rebuilt[1][0] is shared
    untouched = [(shared,), {"k": 1}]
    assert name_file_functions(untouched, master) is untouched


def test_a_file_without_a_function_the_schedule_passes_is_told_which(submission):
    text = swap(solution("isolate_skip"), "def norm_monitor(h):", "def renamed_monitor(h):")
    result = grade("isolate_skip", submission(text))
    assert result.status != "passed"
    assert "norm_monitor" in result.message and "Traceback" not in result.message
