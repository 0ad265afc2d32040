"""The speed check kind: a ratio measured in one run, thresholds per device, skipped (never passed)
when it needs a GPU that is not there."""

import pytest

import autograder.format.exercise as exercise_format
from autograder.engine.grader import grade
from autograder.format.result import NOT_JUDGED

MASTER = '''# /// exercise
# format_version = 1
# title = "Fuse a pointwise chain"
# syllabus = ["5.1"]
# entry = "chain"
# starter_fails = ["correct"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "speed"
# name = "fast"
# min_ratio = {{ cpu = {cpu}, cuda = 2.0 }}
# backend = "{backend}"
# repeats = 9
# needs = {needs}
# points = 2
# ///
"""Make chain fast."""

import torch


def chain(x):
    # BEGIN SOLUTION
    return ((x.sin() + 1) * x.cos()).relu().sqrt()
    # END SOLUTION
    # BEGIN STARTER
    # return ((x.sin() + 1) * x.cos()).relu()  # TODO: the square root is missing
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(1_000_000, generator=gen),)]
# END GRADER
'''


@pytest.fixture
def fixture_master(tmp_path, monkeypatch):
    def make(template=MASTER, **fields):
        folder = tmp_path / "solutions" / "05_speed"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "speed_fixture.py"
        path.write_text(template.format(**fields))
        monkeypatch.setattr(exercise_format, "SOLUTIONS", tmp_path / "solutions")
        return path
    return make


def test_a_speed_check_that_needs_cuda_is_skipped_not_passed_on_cpu(fixture_master):
    path = fixture_master(cpu=1.5, backend="inductor", needs='["cuda"]')
    result = grade("speed_fixture", path, seed=1)
    fast = next(c for c in result.checks if c.name == "fast")
    assert fast.status == "skipped" and fast.score == 0 and "needs a CUDA GPU" in fast.message
    assert result.status == "passed" and result.score == 1 and result.max_score == 3


def test_an_impossible_threshold_fails_with_the_measured_ratio(fixture_master):
    # The eager backend does no fusion, so the compiled chain is no faster than eager.
    path = fixture_master(cpu=50.0, backend="eager", needs="[]")
    result = grade("speed_fixture", path, seed=1)
    fast = next(c for c in result.checks if c.name == "fast")
    assert fast.status == "failed" and ("x faster than eager" in fast.message or "x slower than eager" in fast.message) and "needs 50.0x faster on cpu" in fast.message
    timed = result.measurements["timings"]["fast"]
    # 9 repeats, or 18 when the first 9 scattered and were retried
    assert timed["repeats"] == 9 * len(timed["spreads"]), timed


@pytest.mark.slow
def test_inductor_fuses_a_pointwise_chain_on_cpu(fixture_master):
    # Measured 5.5-5.9x at 1e6 elements on the reference machine; 1.3x leaves room for noise.
    path = fixture_master(cpu=1.3, backend="inductor", needs="[]")
    result = grade("speed_fixture", path, seed=1, timeout=240)
    fast = next(c for c in result.checks if c.name == "fast")
    assert fast.status == "passed", fast.message
    # As root, the child drops to a user of its own. Where that user cannot read the headers Inductor
    # compiles against (an interpreter under /root, as here), it compiles against root's public copy
    # of them; only where no copy can be made does it keep root, and the result says why.
    import os

    from autograder.sandbox import python_headers
    from autograder.sandbox.identity import closed_package_folder

    sandbox = " ".join(result.extra.get("sandbox", []))
    if os.geteuid() == 0 and closed_package_folder() is not None:
        assert "privileges kept: nobody cannot read" in sandbox, sandbox
    elif os.geteuid() == 0 and python_headers.readable_copy() is None:
        assert "privileges kept: Inductor compiles C++" in sandbox, sandbox
    elif os.geteuid() == 0:
        assert "an identity of this grading's own" in sandbox, sandbox
    from autograder.sandbox.identity import some_grading_keeps_root

    if os.geteuid() == 0 and some_grading_keeps_root() is None:
        # A fresh interpreter's grading (the command line's) checks the CPU and finds the shared
        # header in its judge, before the learner fork, as the warm worker does once.
        assert "Inductor's precompiled header: the grader's" in sandbox, sandbox


BROKEN_CHAIN = MASTER.replace('''    # return ((x.sin() + 1) * x.cos()).relu()  # TODO: the square root is missing''', '''    # y = x.sin() + 1
    # print("halfway")  # TODO: what does this line cost the compiled chain?
    # y = y * x.cos()
    # print("three quarters")
    # return y.relu().sqrt()''').replace('# starter_fails = ["correct"]', '# starter_fails = ["one_graph"]').replace(
    '''# [[checks]]
# kind = "correct"
# points = 1
''', '''# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "graphs"
# name = "one_graph"
# equal = 1
# points = 1
''').replace("# repeats = 9\n", "# repeats = 9\n# against = \"starter\"\n{extra}")


def _fast(result):
    return next(c for c in result.checks if c.name == "fast")


def _judged(grading, attempts: int = 3):
    """Grade again while the timing is not judged (its repeats scattered around the threshold: the
    grader's fault, reported as such), as a learner would; a verdict either way ends it. Under the
    load of a shared CI machine (a load average near 5 on 2 cores) a 1 ms schedule sometimes scatters."""
    for _ in range(attempts):
        result = grading()
        if not _fast(result).message.startswith(NOT_JUDGED):
            break
    return result


@pytest.mark.slow
def test_a_fix_faster_than_the_compiled_starter_passes_and_shows_all_three_times(fixture_master):
    # The starter's two prints cut the chain into three graphs, each writing its result to memory:
    # measured about 2-3x slower than the fused chain at 1e6 elements here; 1.2x leaves room for load.
    path = fixture_master(cpu=1.2, backend="inductor", needs="[]", template=BROKEN_CHAIN, extra="# eager_min_ratio = 1.2\n")
    result = _judged(lambda: grade("speed_fixture", path, seed=1, timeout=300))
    fast = _fast(result)
    assert fast.status == "passed", fast.message
    for said in ("faster than the compiled starter (needs 1.2x faster on cpu)", "faster than eager (needs 1.2x faster on cpu)",
                 "yours ", "the compiled starter ", "eager ", "Load average "):
        assert said in fast.message, (said, fast.message)
    timed = result.measurements["timings"]["fast"]
    assert timed["starter_ms"] > timed["candidate_ms"] and timed["against"] == "starter" and len(timed["load"]) == 2


@pytest.mark.slow
def test_a_fix_no_faster_than_the_compiled_starter_fails_saying_so(fixture_master):
    # Compiled with the eager backend neither side fuses anything: the fix is not 20x faster than the starter.
    path = fixture_master(cpu=20.0, backend="eager", needs="[]", template=BROKEN_CHAIN, extra="")
    fast = _fast(grade("speed_fixture", path, seed=1, timeout=300))
    assert fast.status == "failed" and "than the compiled starter (needs 20.0x faster on cpu)" in fast.message, fast.message


@pytest.mark.slow
def test_end_to_end_times_whole_cold_schedules(fixture_master):
    path = fixture_master(cpu=0.01, backend="inductor", needs="[]", template=BROKEN_CHAIN,
                          extra="# mode = \"end_to_end\"\n# rounds = 1\n")
    result = grade("speed_fixture", path, seed=1, timeout=300)
    fast = _fast(result)
    assert fast.status == "passed" and "from a fresh compiler state, compile included" in fast.message, fast.message
    timed = result.measurements["timings"]["fast"]
    # Compile included: a cold Inductor compile takes far longer than one eager pass of 1e6 elements.
    assert timed["mode"] == "end_to_end" and timed["candidate_ms"] > 10 * timed["eager_ms"], timed


def _decide(timing: dict, min_ratio=2.0):
    from autograder.checks.core import check_speed
    from autograder.checks.evidence import Evidence, Measured
    from autograder.format.exercise import CheckSpec

    spec = CheckSpec("speed", "fast", 2, {"min_ratio": {"cpu": min_ratio}, "against": "starter"}, "5.1")
    base = {"baseline_ms": 10.0, "candidate_ms": 4.0, "repeats": 30, "eager_ms": 9.0, "starter_ms": 10.0, "eager_ratio": 2.2,
            "load": [3.5, 4.1], "cores": 2, "against": "starter", "mode": "steady"}
    exercise = type("Exercise", (), {"rel": staticmethod(str), "lesson": "lessons/x.py"})()
    return check_speed(spec, Evidence(exercise=exercise, measurement=Measured({}), facts={"graphs": 1, "timing": {**base, **timing}}))


def test_an_unreliable_spread_around_the_threshold_is_not_the_learners_failure():
    from autograder.format.result import ERROR, Result, settle

    scattered = {"ratio": 1.9, "ratio_q1": 0.9, "ratio_q3": 3.1, "spreads": [1.1, 1.15], "unreliable": True}
    fast = _decide(scattered)
    assert fast.status == "skipped" and fast.unjudged and "not of your file" in fast.message and "Load average 4.1" in fast.message
    result = settle(Result("speed_fixture", "failed", 0, 2, [fast], {}))
    assert result.status == ERROR and result.extra["cause"] == "machine" and "Grade again" in result.message


def test_a_scattered_timing_that_still_decides_is_judged():
    # Even the lower quartile of the ratios clears the threshold: scattered, but a pass all the same;
    # even the upper quartile is below it: a failure all the same.
    assert _decide({"ratio": 4.0, "ratio_q1": 2.5, "ratio_q3": 6.0, "spreads": [0.9, 0.9], "unreliable": True}).status == "passed"
    slow = _decide({"ratio": 1.1, "ratio_q1": 0.7, "ratio_q3": 1.6, "spreads": [0.9, 0.9], "unreliable": True})
    assert slow.status == "failed" and "1.10x faster than the compiled starter (needs 2.0x faster on cpu)" in slow.message
    # Reliable and below the threshold: the learner's failure, with all three times.
    steady = _decide({"ratio": 1.5, "ratio_q1": 1.45, "ratio_q3": 1.55, "spreads": [0.05], "unreliable": False})
    assert steady.status == "failed" and "yours 4.000 ms, the compiled starter 10.000 ms, eager 9.000 ms" in steady.message


def test_structure_only_runs_skip_timing_checks(fixture_master):
    path = fixture_master(cpu=50.0, backend="eager", needs="[]")
    result = grade("speed_fixture", path, seed=1, costly=False)
    fast = next(c for c in result.checks if c.name == "fast")
    assert fast.status == "skipped" and "structure only" in fast.message


def test_the_gpu_script_says_there_is_no_gpu_and_measures_nothing_without_cuda():
    import subprocess
    import sys

    import torch
    from conftest import ROOT

    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: benchmarks/gpu.sh measures for real there")
    proc = subprocess.run(["bash", str(ROOT / "benchmarks" / "gpu.sh")], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable})
    assert proc.returncode == 0, proc.stderr
    assert "No CUDA device here: no GPU table" in proc.stdout and "|" not in proc.stdout


# -- the speed check's own inputs (`inputs`): large timed inputs, their answers fingerprinted ---------

def test_fingerprints_of_a_compiled_chain_match_eager_and_tell_another_computation():
    import torch

    from autograder.checks.core import fingerprints_differ
    from autograder.sandbox.plain import fingerprint, to_plain

    def chain(x):
        return torch.relu(torch.clamp(x * 1.7 - 0.3, -3, 3).abs() - 0.25) * 0.8 + 0.1

    x = torch.randn(512, 2048, generator=torch.Generator().manual_seed(0))
    eager = [fingerprint(to_plain(chain(x)))]
    compiled = [fingerprint(to_plain(torch.compile(chain, backend="inductor")(x)))]
    assert fingerprints_differ(eager, compiled) is None  # Inductor's arithmetic order is not a different answer
    nudged = x.clone()
    nudged.view(-1)[:1000] += 1.0  # 0.1% of the values changed
    assert fingerprints_differ(eager, [fingerprint(to_plain(chain(nudged)))]) is not None
    assert "shape" in fingerprints_differ(eager, [fingerprint(to_plain(chain(x)[:-1]))])
    with_nan = chain(x)
    with_nan[3, 3] = float("nan")
    assert fingerprints_differ(eager, [fingerprint(to_plain(with_nan))]) is not None
    assert "returned 2 value" in fingerprints_differ(eager, [fingerprint(to_plain((chain(x), 1.0)))])
    assert fingerprints_differ(eager, []) == "0 timed call(s) returned, for 1"
    both = [fingerprint(to_plain((chain(x), 2.5, None)))]
    assert fingerprints_differ(both, [fingerprint(to_plain((chain(x), 2.5, None)))]) is None
    assert fingerprints_differ(both, [fingerprint(to_plain((chain(x), 3.5, None)))]) is not None


def test_the_speed_inputs_are_drawn_only_for_a_grading_that_times():
    """The reference part of `speed` prepares nothing without `inputs` or in a structure-only grading,
    so a structure grading stays as cheap as the schedule `calls`."""
    from types import SimpleNamespace

    from autograder.sandbox.kinds.core import speed_reference

    drawn = []
    master = SimpleNamespace(speed_calls=lambda gen: drawn.append(1) or [])
    spec = SimpleNamespace(params={"inputs": "speed_calls"})
    run = SimpleNamespace(master=master, seed=3, costly=False, reference=None)
    assert speed_reference(spec, run).learner == {} and not drawn
    assert speed_reference(SimpleNamespace(params={}), SimpleNamespace(master=master, seed=3, costly=True)).learner == {}
    run.costly = True
    assert speed_reference(spec, run).learner == {"calls": []} and drawn == [1]


FACTORY_MASTER = '''# /// exercise
# format_version = 1
# title = "A randomly initialised model timed on inputs of its own"
# syllabus = ["5.1"]
# entry = "make_model"
# factory = true
# starter_fails = ["correct"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "speed"
# name = "fast"
# inputs = "speed_calls"
# min_ratio = { cpu = 0.01, cuda = 0.01 }
# backend = "eager"
# repeats = 3
# points = 1
# ///
"""A model whose weights come from torch's global generator."""

import torch


def make_model():
    # BEGIN SOLUTION
    return torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU())
    # END SOLUTION
    # BEGIN STARTER
    # return torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Tanh())  # TODO: the activation is wrong
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(2, 16, generator=gen),)]


def speed_calls(gen):
    return [(torch.randn(64, 16, generator=gen),)]
# END GRADER
'''


@pytest.mark.parametrize("seed", [0, 3])
def test_a_factory_is_timed_as_built_under_the_gradings_seed(fixture_master, seed):
    """The reference's answers on the speed inputs come from a model built under the grading's seed;
    the timed fix was built under seed 0, so on any other seed a randomly initialised model's right
    answers differed from the reference's and the solution failed."""
    path = fixture_master(template=FACTORY_MASTER.replace("{", "{{").replace("}", "}}"))
    result = grade("speed_fixture", path, seed=seed)
    assert result.status == "passed" and _fast(result).status == "passed", _fast(result).message


def test_interleaved_timing_starts_each_repeat_with_another_side():
    from autograder.sandbox import timing

    order = []
    sides = {name: (lambda name=name: order.append(name)) for name in ("eager", "fix", "starter")}
    timing.interleaved(sides, warmup=0, repeats=3)
    assert [order[i * 3] for i in range(3)] == ["eager", "fix", "starter"]
    assert all(sorted(order[i * 3:i * 3 + 3]) == ["eager", "fix", "starter"] for i in range(3))


def test_one_thread_sets_one_thread_and_puts_the_count_back_even_after_an_error():
    import torch

    from autograder.lab import one_thread

    before = torch.get_num_threads()
    with pytest.raises(ZeroDivisionError):
        with one_thread():
            assert torch.get_num_threads() == 1
            1 / 0
    assert torch.get_num_threads() == before


# -- against the starter run eagerly: eager work around the compiled code counts in full ------------

SERVED_MASTER = '''# /// exercise
# format_version = 1
# title = "Serve a fused chain"
# syllabus = ["5.1"]
# entry = "chain"
# driver = "serve"
# starter_fails = ["one_graph"]
# hints = ["where", "how"]
#
# [[checks]]
# kind = "correct"
# points = 1
#
# [[checks]]
# kind = "graphs"
# name = "one_graph"
# equal = 1
# points = 1
#
# [[checks]]
# kind = "speed"
# name = "fast"
# against = "{against}"
# min_ratio = {{ cpu = 1.2, cuda = 2.0 }}
# backend = "inductor"
# repeats = 9
# points = 2
# ///
"""Serve chain, compiled by the grader."""

import torch


def chain(x):
    # BEGIN SOLUTION
    return ((x.sin() + 1) * x.cos()).relu().sqrt()
    # END SOLUTION
    # BEGIN STARTER
    # y = (x.sin() + 1) * x.cos()
    # print("halfway")  # TODO: what does this line cost the compiled chain?
    # return y.relu().sqrt()
    # END STARTER


def serve(fn, x):
    # BEGIN SOLUTION
    {extra}
    return fn(x)
    # END SOLUTION
    # BEGIN STARTER
    # return fn(x)
    # END STARTER


# BEGIN GRADER
def calls(gen):
    return [(torch.randn(1_000_000, generator=gen),)]
# END GRADER
'''
# The whole chain asked again eagerly, outside the compiled call: right answers, compiled code, and
# work the compiled starter never did.
ASKED_AGAIN = "peak = ((x.sin() + 1) * x.cos()).relu().sqrt().amax()  # the chain again, eagerly"


@pytest.mark.slow
def test_eager_work_around_the_compiled_call_counts_in_full_against_the_starter_run_eagerly(fixture_master):
    # Against its own eager code the repeated chain is on both sides: the fused chain measured about
    # 5x over eager here, so the diluted ratio (2E / (E/5 + E)) still clears 1.2x...
    diluted = fixture_master(template=SERVED_MASTER, against="eager", extra=ASKED_AGAIN)
    fast = _fast(_judged(lambda: grade("speed_fixture", diluted, seed=1, timeout=300)))
    assert fast.status == "passed", fast.message
    # ...against the starter run eagerly it is not (E / (E/5 + E) < 1).
    counted = fixture_master(template=SERVED_MASTER, against="starter_eager", extra=ASKED_AGAIN)
    fast = _fast(_judged(lambda: grade("speed_fixture", counted, seed=1, timeout=300)))
    assert fast.status == "failed" and "than the starting code run eagerly (needs 1.2x faster on cpu)" in fast.message, fast.message
    assert "the starting code run eagerly " in fast.message.split("Times")[1], fast.message
    # The same server without the eager repeat: the fused chain alone passes.
    fair = fixture_master(template=SERVED_MASTER, against="starter_eager", extra="pass")
    result = _judged(lambda: grade("speed_fixture", fair, seed=1, timeout=300))
    assert _fast(result).status == "passed", _fast(result).message
    timed = result.measurements["timings"]["fast"]
    assert timed["against"] == "starter_eager" and timed["starter_eager_ms"] > timed["candidate_ms"], timed


@pytest.mark.parametrize("params, problem", [
    ('against = "starter_eager"\n# mode = "end_to_end"', "mode \"steady\""),
    ('against = "compiled"', "speed.against is"),
    ('eager_min_ratio = 1.5', "eager_min_ratio needs against"),
    # The fixture's starter fails `correct`: a timing against it could not compare the answers.
    ('against = "starter_eager"', "the starter must answer as the reference does"),
])
def test_speed_parameters_that_cannot_be_timed_are_refused_when_the_master_loads(fixture_master, params, problem):
    from autograder.format.exercise import ExerciseFormatError, parse_master

    path = fixture_master(cpu=1.2, backend="inductor", needs="[]")
    path.write_text(path.read_text().replace("# repeats = 9\n", f"# repeats = 9\n# {params}\n"))
    with pytest.raises(ExerciseFormatError, match=problem):
        parse_master(path)


# -- fresh inputs for every timed pass, answers compared ---------------------------------------------

def test_every_timed_pass_gets_new_tensors_with_values_no_pass_saw():
    import torch

    from autograder.sandbox.kinds.core import PERTURBATION, perturbed

    shared = torch.randn(64, 8)
    calls = [(shared, torch.arange(5), 3, "name"), ({"x": shared, "scale": 0.5},)]
    first = perturbed(calls, torch.Generator().manual_seed(1))
    again = perturbed(calls, torch.Generator().manual_seed(1))
    other = perturbed(calls, torch.Generator().manual_seed(2))
    x, ids, number, name = first[0]
    assert x is not shared and x.shape == shared.shape and x.dtype == shared.dtype and not torch.equal(x, shared)
    assert ((x - shared).abs() <= PERTURBATION * shared.abs() * 1.0001).all()  # nudged, never more than 2^-5 of itself
    assert first[1][0]["x"] is x  # one tensor twice stays one tensor
    assert ids is not calls[0][1] and torch.equal(ids, calls[0][1]) and (number, name) == (3, "name") and first[1][0]["scale"] == 0.5
    assert torch.equal(again[0][0], x) and not torch.equal(other[0][0], x)  # the values follow the generator


def test_the_timing_prepares_each_block_and_reports_each_repeat():
    from autograder.sandbox import timing

    events = []
    sides = {name: (lambda name=name: events.append(("run", name))) for name in ("fix", "starter")}
    timing.interleaved(sides, warmup=1, repeats=2, prepare=lambda side, repeat, runs: events.append(("prepare", side, repeat)),
                       after_repeat=lambda repeat: events.append(("after", repeat)))
    assert events == [("prepare", "fix", -1), ("run", "fix"), ("prepare", "starter", -1), ("run", "starter"),
                      ("prepare", "fix", 0), ("run", "fix"), ("prepare", "starter", 0), ("run", "starter"), ("after", 0),
                      ("prepare", "starter", 1), ("run", "starter"), ("prepare", "fix", 1), ("run", "fix"), ("after", 1)]


def test_answers_that_differ_from_the_starting_files_fail_the_speed_check():
    fast = _decide({"ratio": 250.0, "ratio_q1": 240.0, "ratio_q3": 260.0, "spreads": [0.05], "unreliable": False})
    assert fast.status == "passed"
    from autograder.checks.core import check_speed
    from autograder.checks.evidence import Evidence, Measured
    from autograder.format.exercise import CheckSpec

    spec = CheckSpec("speed", "fast", 2, {"min_ratio": {"cpu": 2.0}, "against": "starter"}, "5.1")
    exercise = type("Exercise", (), {"rel": staticmethod(str), "lesson": "lessons/x.py"})()
    timing = {"ratio": 250.0, "baseline_ms": 10.0, "candidate_ms": 0.04, "repeats": 15, "eager_ms": 9.0, "starter_ms": 10.0,
              "eager_ratio": 225.0, "against": "starter", "mode": "steady"}
    facts = {"graphs": 1, "timing": timing, "answers": {"checked": 1, "differ": "call 7 returned values that differ from the starting file's"}}
    verdict = check_speed(spec, Evidence(exercise=exercise, measurement=Measured({}), facts=facts))
    assert verdict.status == "failed" and "did not answer as the starting file does (call 7" in verdict.message, verdict.message
