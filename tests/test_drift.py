"""Drift alarms and `python -m autograder drift`: the facts the lessons rely on, checked on the
installed torch, and every starter still failing for its declared reason.

The alarm machinery is tested with alarms made up here (one that holds, one that flips, one whose
observation breaks), so that a "torch changed" message is proven to appear without waiting for a
torch release. The slow test runs the real command, as CI does.
"""

import ast
import json
import re

import pytest

from autograder import cli
from autograder.format.exercise import discover, lesson_files, lesson_headings
from autograder.sandbox.probe import drift as drift_module
from autograder.sandbox.probe import messages
from conftest import ROOT, run_cli


@pytest.fixture
def fake_alarms(monkeypatch):
    alarms = {}
    monkeypatch.setattr(drift_module, "ALARMS", alarms)

    def add(name, expects, observe):
        alarms[name] = drift_module.Alarm(name, expects, observe, ("1.2",))

    add("a fact that holds", 8, lambda: 8)
    add("a fact that flipped", False, lambda: True)
    return add


def test_an_alarm_that_flips_says_torch_changed_and_where_to_look(fake_alarms):
    drift_module.drift("a fact that holds")
    drift_module.drift("a fact that flipped", False)  # the lesson's own observation still matches
    with pytest.raises(drift_module.TorchChanged) as flipped:
        drift_module.drift("a fact that flipped")
    text = str(flipped.value)
    assert text.startswith("torch changed: a fact that flipped: expected False, observed True")
    assert "lesson section(s) 1.2" in text and isinstance(flipped.value, AssertionError)
    with pytest.raises(drift_module.TorchChanged):
        drift_module.drift("a fact that holds", 9)


def test_an_unknown_alarm_name_is_a_clear_error(fake_alarms):
    with pytest.raises(KeyError, match="no drift alarm named 'nope'"):
        drift_module.drift("nope")


def test_an_observation_that_breaks_counts_as_a_change(fake_alarms):
    def broken():
        raise RuntimeError("an internal moved")

    fake_alarms("a fact whose observation breaks", 1, broken)
    readings = {r.alarm.name: r for r in drift_module.check_all()}
    assert readings["a fact that holds"].holds and not readings["a fact that flipped"].holds
    assert not readings["a fact whose observation breaks"].holds
    assert readings["a fact whose observation breaks"].error == "RuntimeError: an internal moved"


def test_the_drift_command_prints_a_table_and_fails_when_an_alarm_flips(fake_alarms, capsys):
    code = cli.main(["drift", "--alarms-only"])
    out = capsys.readouterr().out
    assert code == 1
    assert re.search(r"holds\s+a fact that holds", out) and re.search(r"CHANGED\s+a fact that flipped\s+expected False, observed True", out)
    assert "1/2 alarms hold" in out and "torch differs from what the course says" in out


def test_the_drift_command_passes_when_every_alarm_holds(monkeypatch, capsys):
    monkeypatch.setattr(drift_module, "ALARMS", {"a fact": drift_module.Alarm("a fact", 1, lambda: 1, ("1.1",))})
    assert cli.main(["drift", "--alarms-only", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rows"] == [{"kind": "alarm", "name": "a fact", "holds": True, "expected": "1", "observed": "1",
                               "where": "lesson 1.1"}]


def test_every_alarm_points_at_lesson_sections_and_is_used_by_a_lesson():
    headings = {sid for lesson in lesson_files() for sid in lesson_headings(lesson)}
    named = set()
    for lesson in lesson_files():
        for node in ast.walk(ast.parse(lesson.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "drift" and node.args:
                named.add(node.args[0].value)
    for alarm in drift_module.ALARMS.values():
        assert alarm.sections and set(alarm.sections) <= headings, f"{alarm.name}: sections {alarm.sections}"
        assert alarm.name in named, f"no lesson relies on the alarm {alarm.name!r}: delete it or use it"


# -- the probe's readers of Dynamo's messages, on canned text ---------------------------------------

def test_gb_id_reads_the_link_or_the_registry():
    assert messages.gb_id("Whatever\n For more details ... https://x/gb/gb0059.html\n") == "GB0059"
    assert messages.gb_id("Failed to trace builtin operator") == "GB0059"
    assert messages.gb_id("Not a break type anyone registered") is None


def test_failed_guard_reads_the_kind_and_the_subject():
    read = messages.failed_guard
    assert (read("0/0: alpha == 0.25").kind, read("0/0: alpha == 0.25").subject) == ("value", "alpha")
    assert read("0/1: tensor 'x' size mismatch at index 0. expected 2, actual 3").kind == "size"
    assert read("0/0: tensor 'a' requires_grad mismatch. expected requires_grad=0").subject == "a"
    assert read("0/1: len(G['seen']) == 1").kind == "length" and read("0/0: not G['seen']").subject == "G['seen']"
    assert read("0/0: GLOBAL_STATE changed: grad_mode").kind == "global state: grad_mode"


def test_the_guard_tree_keeps_each_guard_and_the_line_that_made_it():
    tree = messages.parse_guard_tree(
        "TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
        "| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None            # _dynamo/output_graph.py:1122 in init_ambient_guards\n"
        "| +- GuardManager: source=L['a'], accessed_by=FrameLocalsGuardAccessor(key='a', framelocals_idx=0)\n"
        "| | +- EQUALS_MATCH: L['a'] == 0.25                                   # return a * 2  # mp/x.py:6 in blend\n")
    assert [(g.kind, g.depth) for g in tree] == [("DEFAULT_DEVICE", 0), ("GuardManager", 0), ("EQUALS_MATCH", 1)]
    assert tree[2].text == "L['a'] == 0.25" and tree[2].user_code == "return a * 2" and tree[2].where == "mp/x.py:6 in blend"
    assert tree[0].user_code == "" and tree[0].where.endswith("in init_ambient_guards")


def test_torch_logs_are_read_back_as_records():
    stderr = ("V1201 10:05:46.507000 18187 /t/guards.py:5396] [1/1] [__recompiles] Recompiling function f in /x.py:1\n"
              "V1201 10:05:46.507000 18187 /t/guards.py:5396] [1/1] [__recompiles]     - 1/0: k == 2.0  # k  # x.py:2 in f\n"
              "a line of the program's own\n"
              "V1201 10:05:47.000000 18187 /t/symbolic_convert.py:1] [0/0] [__graph_breaks] Graph break in user code at /x.py:3\n")
    records = messages.read_torch_logs(stderr)
    assert [(r.compile_id, r.artifact) for r in records] == [("1/1", "recompiles"), ("0/0", "graph_breaks")]
    assert records[0].failed_guards[0].subject == "k" and records[1].first_line.endswith("/x.py:3")


# -- the real command ---------------------------------------------------------------------------------

# Every starter failing for its declared reason on the installed torch is what drift's starter rows
# say; tests/test_exercises.py proves it for every exercise in every run, so the command itself is
# run here on every alarm and on one starter of each chapter.
FIRST_OF_EACH_CHAPTER = sorted({e.chapter: e.id for e in reversed(discover())}.values())


@pytest.mark.slow
def test_drift_holds_on_the_installed_torch_for_every_alarm_and_a_starter_of_each_chapter():
    code, out, err = run_cli("drift", "--json", *FIRST_OF_EACH_CHAPTER, timeout=1500)
    assert out.strip(), f"drift printed no report (exit status {code}); its stderr ends:\n{err[-3000:]}"
    report = json.loads(out)
    changed = [row for row in report["rows"] if not row["holds"]]
    assert code == 0 and changed == [], changed
    kinds = [row["kind"] for row in report["rows"]]
    assert kinds.count("alarm") == len(drift_module.ALARMS) and kinds.count("starter") == len(FIRST_OF_EACH_CHAPTER)
    assert (ROOT / "autograder" / "sandbox" / "probe" / "drift.py").is_file()
