"""The judge's decisions: validate what the learner's process sent, then decide every check.

Everything here runs in the judge and works on plain data only: the learner's payload (validated
against exact shapes first: known check names, known keys, builtin types, sizes capped), the
reference child's data, the exact text of the submission, and the judge's own copy of the
exercise, whose thresholds and rules alone count. A payload that does not have the expected shape
is not partly believed: the grade fails with "the grading process sent something the grader does
not accept".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from autograder.checks import facts as shapes
from autograder.checks.core import _lesson, unfed_calls_message
from autograder.checks.evidence import Evidence, Measured
from autograder.checks.all import load_all
from autograder.format.config_rules import config_problems
from autograder.format.exercise import COSTLY_KINDS, Exercise
from autograder.format.result import FAILED, CheckResult

MEMBER = shapes.Record({"kind": shapes.Text(20), "name": shapes.Text(400)})
CONFIG_REPORT = shapes.Record({
    "changes": shapes.DictOf(shapes.Record({"old": shapes.Text(400), "new": shapes.Text(400)}), max_len=2000),
    "sets": shapes.DictOf(shapes.Record({"added": shapes.ListOf(MEMBER, 1000), "removed": shapes.ListOf(MEMBER, 1000),
                                         "not_a_set": shapes.Bool()}), max_len=100)})
SHORT = shapes.Text(400)
PHASE1 = shapes.Record({"phase": shapes.Int(1, 1), "stage": shapes.Text(40), "torch": SHORT, "device": SHORT,
                        "sandbox": shapes.ListOf(SHORT, 50)}, {
    "message": shapes.Text(20_000), "traceback": shapes.Text(8000), "measurement": shapes.MEASUREMENT,
    "facts": shapes.DictOf(shapes.Plain(), max_len=200), "options": shapes.DictOf(shapes.Either(shapes.Nothing(), shapes.Bool(), shapes.Int(), shapes.Text(200)), max_len=20),
    "config": shapes.Record({"after_import": CONFIG_REPORT, "during": CONFIG_REPORT}),
    "stance": shapes.Record({"after_import": SHORT, "after_measure": SHORT}), "watch": shapes.ListOf(shapes.Text(2000), 500)})
PHASE2 = shapes.Record({"phase": shapes.Int(2, 2), "stage": shapes.Text(40), "facts": shapes.DictOf(shapes.Plain(), max_len=200),
                        "watch": shapes.ListOf(shapes.Text(2000), 500), "stance": SHORT})
REJECTED = "The grading process sent something the grader does not accept"
STAGES = {"graded", "syntax", "import", "entry", "internal"}
MEASURE_FAILED = shapes.Record({"measure_failed": shapes.Text(2000)})


class Rejected(Exception):
    """A payload that does not have the shape the judge accepts."""


# Stances a fix may leave in effect once its calls are done. Skipping guard evaluation after the
# warm-up is lesson 6.4's fix, and set_stance may be called as a plain function: it never runs code
# eagerly, a stale answer fails ``correct``, and the grader's own runs reset the stance
# (``probe.clean_state`` before each measurement, ``process_state`` around the starting file).
# A stance that runs code eagerly ("force_eager", "eager_on_recompile") left behind still fails.
_STANCES_LEFT_HARMLESS = ("default", "default, skip_guard_eval_unsafe")


@dataclass
class Judgement:
    exercise: Exercise
    reference: dict  # the reference child's data for the judge (expected outputs, each check's part)
    source: str
    filename: str
    device: str
    costly: bool | str = True
    phase1: dict = field(default_factory=dict)
    results: dict = field(default_factory=dict)  # check name -> CheckResult

    # -- validation ----------------------------------------------------------------------------------

    def accept(self, payload, shape) -> dict:
        try:
            shapes.validate(payload, shape)
        except shapes.Invalid as exc:
            raise Rejected(f"{REJECTED} ({exc}).") from None
        return payload

    def accept_phase1(self, payload) -> dict:
        payload = self.accept(payload, PHASE1)
        if payload["stage"] not in STAGES:
            raise Rejected(f"{REJECTED} (an unknown stage {payload['stage'][:40]!r}).")
        if payload["stage"] == "graded":
            missing = [key for key in ("measurement", "facts", "options", "config", "stance", "watch") if key not in payload]
            if missing:
                raise Rejected(f"{REJECTED} (no {', '.join(missing)}).")
            allowed = set(self.exercise.compile) | set(self.exercise.submission_may_set)
            if not set(payload["options"]) <= allowed:
                raise Rejected(f"{REJECTED} (compile options {sorted(set(payload['options']) - allowed)[:3]}).")
            self._accept_facts(payload["facts"], costly=False)
            if payload["measurement"]["calls"] > self.reference["calls"] or len(payload["measurement"]["outputs"]) > self.reference["calls"]:
                raise Rejected(f"{REJECTED} (more calls than the schedule has).")
        self.phase1 = payload
        return payload

    def accept_phase2(self, payload) -> dict:
        payload = self.accept(payload, PHASE2)
        self._accept_facts(payload["facts"], costly=True)
        return payload

    def _accept_facts(self, facts: dict, costly: bool) -> None:
        deciders = load_all()
        by_name = {spec.name: spec for spec in self.exercise.checks}
        for name, value in facts.items():
            spec = by_name.get(name)
            if spec is None or (spec.kind in COSTLY_KINDS) != costly:
                raise Rejected(f"{REJECTED} (facts for {name[:60]!r}, which is no such check).")
            schema = deciders[spec.kind].facts
            if schema is None:
                raise Rejected(f"{REJECTED} (facts for {name[:60]!r}, whose kind measures nothing of its own).")
            try:
                shapes.validate(value, MEASURE_FAILED, f"facts.{name}")
                continue
            except shapes.Invalid:
                pass
            try:
                shapes.validate(value, schema, f"facts.{name}")
            except shapes.Invalid as exc:
                raise Rejected(f"{REJECTED} ({exc}).") from None

    # -- deciding ------------------------------------------------------------------------------------

    def evidence(self, spec, facts: dict) -> Evidence:
        ref = self.reference
        return Evidence(exercise=self.exercise, measurement=Measured(self.phase1["measurement"]), facts=facts.get(spec.name, {}),
                        reference=(ref.get("checks") or {}).get(spec.name, {}), expected=ref["expected"],
                        expected_output=ref["expected_output"], calls=ref["calls"], source=self.source,
                        filename=self.filename, options=self.phase1.get("options", {}), others=ref.get("checks") or {},
                        device=self.device)

    def _decide(self, spec, facts: dict) -> CheckResult:
        decider = load_all()[spec.kind]
        try:
            return decider.function(spec, self.evidence(spec, facts))
        except Exception as exc:  # noqa: BLE001 - a check must never take the whole grade down
            return CheckResult.outcome(spec, False, f"This check could not run: {type(exc).__name__}: {exc}")

    def decide_structure(self) -> bool:
        """Decide every check that is not a timing; True when none of them failed."""
        driver_problem = self._driver_problem()
        for spec in self.exercise.checks:
            if spec.kind in COSTLY_KINDS:
                continue
            result = self._decide(spec, self.phase1["facts"])
            if driver_problem and result.status != FAILED:  # what it measured is plain Python: it proves nothing
                result = CheckResult.outcome(spec, False, f"{driver_problem} {_lesson(spec, self.exercise)}")
            self.results[spec.name] = result
        return all(result.status != FAILED for result in self.results.values())

    def _driver_problem(self) -> str | None:
        """A driver exercise in which no compiled code ran at all: every measurement is of plain Python."""
        m = self.phase1["measurement"]
        if not self.exercise.driver or m["error"] is not None or m["compiled_calls"] > 0 or not m["calls"]:
            return None
        if m.get("unfed_calls") or m.get("partly_fed_calls"):
            unfed = unfed_calls_message(m.get("unfed_calls") or [], self.exercise, m.get("partly_fed_calls") or [])
            return f"Not measured: {unfed[0].lower()}{unfed[1:]}"
        return (f"Not measured: in none of the {m['calls']} calls did compiled code run ({m['graphs']} graph(s) compiled). The grader "
                f"calls your `{self.exercise.driver}` with the compiled `{self.exercise.entry}`; it must call that function (not "
                "the plain one of your file), under the default stance (set_stance inside the driver runs it eagerly).")

    def costly_wanted(self, structure_ok: bool) -> bool:
        timed = [spec for spec in self.exercise.checks if spec.kind in COSTLY_KINDS]
        return bool(timed) and bool(self.costly) and (structure_ok or self.costly == "always")

    def decide_costly(self, structure_ok: bool, phase2: dict | None) -> None:
        for spec in self.exercise.checks:
            if spec.kind not in COSTLY_KINDS:
                continue
            if not self.costly:
                self.results[spec.name] = CheckResult.skipped(spec, "Not measured in this run: it grades structure only.")
            elif not structure_ok and self.costly != "always":
                self.results[spec.name] = CheckResult.skipped(spec, "Not timed: the other checks fail, so timing cannot change the "
                                                                    "grade. Fix those first.")
            elif phase2 is None:
                self.results[spec.name] = CheckResult.outcome(spec, False, "Not timed: the grading process ended before it sent its timings.")
            else:
                self.results[spec.name] = self._decide(spec, phase2["facts"])

    def violations(self, phase2: dict | None) -> list[str]:
        found = list(self.phase1.get("watch") or [])
        config = self.phase1["config"]
        found += config_problems(config["after_import"], self.exercise.allow_config, self.exercise.config_may_add)[0]
        found += [p for p in config_problems(config["during"], self.exercise.allow_config, self.exercise.config_may_add, during=True)[0]
                  if p not in found]
        stance = self.phase1["stance"]
        if stance["after_import"] != "default":
            found.append(f"the compiler stance was set to {stance['after_import']!r}; the grader uses the default stance")
        if stance["after_measure"] not in _STANCES_LEFT_HARMLESS:
            found.append(f"the compiler stance was changed to {stance['after_measure']!r} while your code ran")
        if phase2 is not None:
            found += [v for v in phase2["watch"] if v not in found]
            if phase2["stance"] not in _STANCES_LEFT_HARMLESS:
                found.append(f"the compiler stance was changed to {phase2['stance']!r} while your code was timed")
        return found

    def checks(self) -> list[CheckResult]:
        return [self.results[spec.name] for spec in self.exercise.checks]

    def measurements(self, phase2: dict | None) -> dict:
        m = self.phase1["measurement"]
        shown = {key: m[key] for key in ("calls", "graphs", "ops_per_graph", "graph_breaks", "break_sites", "recompiles",
                                         "recompile_reasons", "compiled_calls", "unfed_calls", "partly_fed_calls", "skipped_frames", "graph_ops", "error", "break_types",
                                         "skipped_sites")}
        timings = {}
        deciders = load_all()
        for spec in self.exercise.checks:
            timing = deciders[spec.kind].timing
            # a costly kind's facts come in the second phase; a kind that times in every grading
            # (warm_start) sends them with the structure
            facts = (phase2 or {}).get("facts", {}).get(spec.name) or (self.phase1.get("facts") or {}).get(spec.name)
            if timing is not None and isinstance(facts, dict) and "measure_failed" not in facts and not facts.get("not_run") \
                    and not facts.get("skipped"):
                try:
                    timings[spec.name] = timing(facts)
                except (KeyError, TypeError, ValueError, ZeroDivisionError):
                    pass
        shown["timings"] = timings
        shown["compile_options"] = dict(self.phase1.get("options") or {})
        return shown
