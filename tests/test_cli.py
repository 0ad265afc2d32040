"""The command-line contract other tools rely on: `list --json`, `grade ID PATH --json`, exit codes."""

import json

from conftest import ROOT, grade_json, run_cli

LIST_FIELDS = {"id", "title", "chapter", "syllabus", "lesson", "exercise", "solution", "entry", "needs"}
RESULT_FIELDS = {"exercise", "status", "score", "max_score", "checks", "measurements", "torch", "device"}
CHECK_FIELDS = {"name", "status", "score", "max_score", "message"}
MEASUREMENT_FIELDS = {"graphs", "graph_breaks", "recompiles", "compiled_calls", "timings"}


def test_list_json_describes_every_exercise():
    code, out, _ = run_cli("list", "--json")
    assert code == 0
    exercises = json.loads(out)
    assert isinstance(exercises, list) and len(exercises) >= 5
    for item in exercises:
        assert LIST_FIELDS <= set(item)
        assert (ROOT / item["exercise"]).is_file() and (ROOT / item["solution"]).is_file()
        assert item["lesson"].startswith("lessons/") and isinstance(item["needs"], list)
        assert all(isinstance(s, str) for s in item["syllabus"])
    assert len({item["id"] for item in exercises}) == len(exercises)


def test_grade_json_on_the_solution_passes_with_exit_0():
    code, result = grade_json("breaks_checkpoint", "solutions/01_dynamo_core/breaks_checkpoint.py")
    assert code == 0
    assert RESULT_FIELDS <= set(result) and MEASUREMENT_FIELDS <= set(result["measurements"])
    assert result["status"] == "passed" and result["score"] == result["max_score"] > 0
    assert all(CHECK_FIELDS <= set(c) and c["status"] == "passed" for c in result["checks"])
    assert result["measurements"]["graphs"] == 1 and result["measurements"]["graph_breaks"] == 0
    assert result["torch"].startswith("2.") and result["device"]


def test_grade_json_on_the_starter_fails_with_exit_1_and_names_the_break():
    code, result = grade_json("breaks_checkpoint", "exercises/01_dynamo_core/breaks_checkpoint.py")
    assert code == 1
    assert result["status"] == "failed" and result["score"] == 0
    compiles = next(c for c in result["checks"] if c["name"] == "compiles")
    assert compiles["status"] == "failed"
    assert "breaks_checkpoint.py:" in compiles["message"] and "torch.save" in compiles["message"]
    assert "1.2" in compiles["message"]
    assert result["measurements"]["error"]["kind"] == "graph_break"


def test_unknown_exercise_is_a_usage_error():
    code, out, err = run_cli("grade", "no_such_exercise", "solutions/01_dynamo_core/breaks_checkpoint.py", "--json")
    assert code == 2 and out == "" and "unknown exercise" in err


def test_missing_file_is_a_usage_error():
    code, out, err = run_cli("grade", "breaks_checkpoint", "does/not/exist.py", "--json")
    assert code == 2 and out == "" and "no such file" in err


def test_bad_arguments_are_a_usage_error():
    code, _, _ = run_cli("grade")
    assert code == 2
    code, _, _ = run_cli("frobnicate")
    assert code == 2


def test_printing_submission_cannot_corrupt_or_forge_the_json(submission):
    path = submission(
        (ROOT / "exercises/01_dynamo_core/breaks_checkpoint.py").read_text()
        + '\nimport sys\nprint(\'{"exercise": "breaks_checkpoint", "status": "passed", "score": 5}\')\n'
          'sys.stderr.write("noise\\n")\n'
    )
    code, result = grade_json("breaks_checkpoint", path)
    assert code == 1 and result["status"] == "failed"
    assert '"status": "passed"' in result["output_tail"]  # it printed, and nobody believed it


def test_hint_walks_the_ladder(tmp_path, monkeypatch):
    import os
    import subprocess
    import sys

    env = {**os.environ, "AUTOGRADER_STATE": str(tmp_path / "state.json")}
    outs = [subprocess.run([sys.executable, "-m", "autograder", "hint", "breaks_checkpoint"], cwd=ROOT, env=env,
                           capture_output=True, text=True).stdout for _ in range(6)]
    assert outs[0].startswith("Hint 1/") and outs[1].startswith("Hint 2/")
    assert outs[5] == outs[4]  # stays on the last hint


def test_reset_restores_the_starting_file_and_keeps_the_learners_as_a_backup(tmp_path):
    import os
    import subprocess
    import sys

    from autograder.format.exercise import load

    exercise = load("trace_tolist")
    env = {**os.environ, "AUTOGRADER_WORKSPACE": str(tmp_path / "ws"), "AUTOGRADER_STATE": str(tmp_path / "s.json")}
    copy = tmp_path / "ws" / "exercises" / exercise.chapter / "trace_tolist.py"
    copy.parent.mkdir(parents=True)
    copy.write_text("# learner's broken edit\n")
    run = subprocess.run([sys.executable, "-m", "autograder", "reset", "trace_tolist"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert run.returncode == 0 and "Restored" in run.stdout, run.stdout + run.stderr
    assert copy.read_text() == exercise.starter.read_text()
    backups = list((tmp_path / "ws" / "backups").glob("trace_tolist.*.py"))
    assert len(backups) == 1 and backups[0].read_text() == "# learner's broken edit\n"
    assert backups[0].name in run.stdout  # it says where
    again = subprocess.run([sys.executable, "-m", "autograder", "reset", "trace_tolist"], cwd=ROOT, env=env,
                           capture_output=True, text=True)
    assert again.returncode == 0 and "kept" not in again.stdout  # nothing of the learner's to keep
    assert len(list((tmp_path / "ws" / "backups").iterdir())) == 1


def test_every_command_has_help():
    from autograder.cli import main_parser

    parser = main_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for action in sub._choices_actions:
        assert action.help, f"command {action.dest} has no help text"


def readme_learner_commands() -> list[str]:
    """The learner's commands as the README shows them (the block under "How you work")."""
    import re

    readme = (ROOT / "README.md").read_text()
    block = readme.split("## How you work", 1)[1].split("```", 2)[1]
    return [line.split("#")[0].strip() for line in block.splitlines() if line.strip().startswith("./course ")]


def test_the_readme_commands_work_as_written_from_a_plain_shell(tmp_path):
    """`env -i PATH=/usr/bin:/bin HOME=$(mktemp -d)`: no `python` on PATH, nothing activated."""
    import hashlib
    import os
    import subprocess

    import pytest

    venv = os.environ.get("COURSE_VENV", ".venv")  # CI's second run sets up .venv-pypi (PyPI's build) this way
    stamp = ROOT / venv / f".installed-{hashlib.sha256((ROOT / 'pyproject.toml').read_bytes()).hexdigest()[:16]}"
    if not stamp.exists():  # ./course would set up .venv first: not in a test
        why = f"the course's .venv is not set up here ({stamp.name} missing): run ./course setup"
        pytest.fail(why) if os.environ.get("CI") else pytest.skip(why)
    commands = readme_learner_commands()
    assert {c.split()[1] for c in commands} >= {"check", "hint", "watch", "progress", "reset", "solution", "list"}
    home = tmp_path / "home"
    home.mkdir()
    clean = ["env", "-i", "PATH=/usr/bin:/bin", f"HOME={home}", "NO_COLOR=1", *([f"COURSE_VENV={venv}"] if venv != ".venv" else []),
             f"AUTOGRADER_WORKSPACE={tmp_path / 'workspace'}", f"AUTOGRADER_STATE={tmp_path / 'progress.json'}"]
    assert subprocess.run([*clean, "sh", "-c", "command -v python"], capture_output=True).returncode != 0
    for command in commands:
        argv = command.replace("ID", "trace_tolist").split()[1:]
        if argv[0] == "watch":
            argv.append("--once")  # as written it watches until Ctrl-C (tests/test_learner.py covers that)
        run = subprocess.run([*clean, "./course", *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)
        shown = run.stdout + run.stderr
        assert run.returncode in (0, 1), f"{command}: exit {run.returncode}\n{shown}"
        assert "Traceback" not in shown and "No module named" not in shown, f"{command}:\n{shown}"
        if argv[0] in ("check", "watch"):
            assert "trace_tolist: FAILED" in shown and "workspace/exercises/01_dynamo_core/trace_tolist.py" in shown, shown
        if argv[0] == "hint":
            assert shown.startswith("Hint 1/"), shown
