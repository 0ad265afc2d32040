"""A corpus of cheats, generated from every exercise's own starting file, each graded as failed.

Each cheat tries to turn the still-broken starter into a pass without fixing it. Every one must
fail, within the time limit, with a message, and earn no more than the starter alone; where the
grader detects the cheat itself (not only the broken code), the grade is voided (0 points) and the
message must say so.
"""

import pytest

from autograder.format.exercise import discover
from autograder.engine.grader import grade

EXERCISES = discover()

CHEATS = {
    # name: (code appended to the starter, a word the message or findings must contain, or "").
    # Every layer is on: the static policy names what it refuses, the child's watch what it caught
    # (test_integrity.py tests the watch with the policy off).
    "patch_torch_compile": ("\nimport torch\ntorch.compile = lambda fn=None, **kw: fn\n", "torch.compile"),
    "patch_dynamo_optimize": ("\nimport torch._dynamo\ntorch._dynamo.optimize = lambda *a, **k: (lambda fn: fn)\n", "torch._dynamo.optimize"),
    "force_eager_stance": ("\nimport torch\ntorch.compiler.set_stance('force_eager')\n", "stance"),
    "eager_on_recompile_stance": ("\nimport torch\ntorch.compiler.set_stance('eager_on_recompile')\n", "stance"),
    "raise_recompile_limit": ("\nimport torch._dynamo\ntorch._dynamo.config.recompile_limit = 100000\n", "recompile_limit"),
    "suppress_errors": ("\nimport torch._dynamo\ntorch._dynamo.config.suppress_errors = True\n", "suppress_errors"),
    # The deciding table lives in the judge; what the learner's process holds is the table of measures.
    "clear_the_measure_table": ("\nimport autograder.sandbox.kinds as k\nk.MEASURERS.clear()\n", "autograder.sandbox.kinds"),
    "clear_the_decider_table": ("\nimport autograder.checks.registry as r\nr.DECIDERS.clear()\n", "autograder.checks.registry"),
    "fake_json_on_stdout": ('\nprint(\'{"status": "passed", "score": 100, "max_score": 100}\')\n', ""),
    "exit_before_the_verdict": ("\nimport os\nos._exit(0)\n", ""),
    "hidden_exit": ("\ngetattr(__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__), 'get', lambda *a: None)\n"
                    "import importlib\nimportlib.import_module('o' + 's')._exit(0)\n", ""),
    "verdict_at_exit": ("\nimport atexit\natexit.register(lambda: print('{\"status\": \"passed\"}'))\n", "atexit"),
    "swap_the_probe_module": ("\nimport sys, types\nfake = types.ModuleType('autograder.sandbox.probe')\nsys.modules['autograder.sandbox.probe'] = fake\n", "sys.modules"),
}


# Cheats whose outcome depends on the exercise's own rules (its config allow-lists) run on every
# exercise; the generic ones (patching the grader, stances, forged output, exiting early), which the
# child detects the same way whatever the exercise, on the first exercise of each chapter and on
# every exercise whose static scan allows something.
EVERYWHERE = {"raise_recompile_limit", "suppress_errors"}


def _representative(exercise) -> bool:
    first_of_chapter = next(e for e in EXERCISES if e.chapter == exercise.chapter) is exercise
    # Config allow-lists are what the EVERYWHERE cheats probe; a scan exception is what the exiting
    # and module-swapping cheats probe; an exercise that itself uses a stance is what the stance ones do.
    uses_a_stance = any(check.kind == "stance_calls" for check in exercise.checks)
    return first_of_chapter or bool(exercise.scan_allow) or uses_a_stance


def _allowed(exercise, name):
    if name == "raise_recompile_limit":
        return "recompile_limit" in exercise.allow_config or "cache_size_limit" in exercise.allow_config
    return False


@pytest.mark.slow
@pytest.mark.parametrize("exercise", [pytest.param(e, marks=pytest.mark.xdist_group(e.id)) for e in EXERCISES],
                         ids=[e.id for e in EXERCISES])
def test_every_cheat_fails_on_every_exercise(exercise, tmp_path, graded):
    starter = exercise.starter.read_text()
    # Structure only (costly=False): timing checks are proven by the starter/solution runs of
    # test_exercises.py; a cheat must not gain anything the structure checks award. The starter's
    # own grading is the session's (`graded`: seed 11, structure only), shared with those tests.
    baseline = graded(exercise.id, "starter").score
    problems = []
    for name, (code, marker) in CHEATS.items():
        if _allowed(exercise, name) or (name not in EVERYWHERE and not _representative(exercise)):
            continue
        path = tmp_path / f"{name}.py"
        path.write_text(starter + code)
        result = grade(exercise.id, path, seed=11, timeout=60, costly=False)
        text = " ".join([result.message, *result.extra.get("violations", []), *result.extra.get("scan", [])])
        detected = bool(marker)
        if result.passed or (detected and result.score != 0) or result.score > baseline:
            problems.append(f"{name}: scored {result.score}/{result.max_score} (the starter alone scores {baseline})")
        elif not result.message:
            problems.append(f"{name}: failed without a message")
        elif marker and marker not in text:
            problems.append(f"{name}: not named as a cheat ({marker!r} missing from: {text[:300]})")
    assert not problems, problems
