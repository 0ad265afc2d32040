"""The nbgrader autograde steps that make the score: answer cells graded outside the kernel.

The generated ``nbgrader_config.py`` puts ``StartGradingAnswers`` before nbgrader's ``Execute`` and
``GradeAnswersOutOfKernel`` after it, before ``SaveAutoGrades`` records the scores. Both run in
nbgrader's own process, not in the kernel, so no code in the notebook (a replaced
``torch.compile``, a patched grader, a fake ``subprocess``) can reach them. For each exercise of
the assignment they

1. take the *source* of the learner's answer cell (by its nbgrader id, else a cell that starts
   with ``# ANSWER <id>:``; a missing answer scores 0 with a message), before the kernel runs;
2. grade it with ``grade()``: a file in a temporary directory, a fresh child, in background
   threads while nbgrader executes the notebook;
3. rewrite the check cell (restoring it if it was deleted or retyped) so that its outputs are the
   learner-facing report, hidden checks left out, plus what nbgrader reads as the score: no error
   for full marks, an ``execute_result`` with the points for partial credit, an error for 0;
4. record every full Result, hidden checks and all, for the instructor in
   ``<course>/autograder_results/<assignment>/<student>.json``, with what the kernel's own check
   cell had shown (during autograding an untouched check cell fails on purpose; one that did not
   was tampered with).

``GradeAnswersOutOfKernel`` alone also works (it grades when nothing was started).
"""

from __future__ import annotations

import datetime
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbgrader import utils as nbgrader_utils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Int, Unicode

from autograder.classroom import nbgrader_bridge as bridge
from autograder.format.exercise import load
from autograder.learner.view import learner_view, render


def _kernel_check(cell) -> dict:
    """What the check cell showed when the kernel ran it (during autograding it must fail)."""
    if cell is None:
        return {"present": False, "failed": None, "expected": False}
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    failed = bool(errors)
    return {"present": True, "failed": failed, "error": errors[0].get("ename", "") if errors else "",
            "expected": failed and errors[0].get("ename") == "NotPassed"}


def _outputs(text: str, earned: float, points: float, exercise_id: str) -> list:
    outputs = [new_output("stream", name="stdout", text=text + "\n")]
    if earned >= points:
        return outputs
    if earned > 0:
        outputs.append(new_output("execute_result", data={"text/plain": repr(float(earned))}, metadata={}, execution_count=None))
        return outputs
    outputs.append(new_output("error", ename="NotPassed", evalue=f"{exercise_id} scored 0/{points:g}",
                              traceback=[f"NotPassed: {exercise_id} scored 0/{points:g}; the lines above say what to fix."]))
    return outputs


_PENDING: dict[tuple, dict] = {}
_LOCK = threading.Lock()


def _write_atomic(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class AnswerGrading(NbGraderPreprocessor):
    """Settings shared by the two steps; configure them as ``c.AnswerGrading.<name>``."""

    manifest = Unicode("", help="Path of the course's autograder_course.json (set by the generated config).").tag(config=True)
    workers = Int(2, help="Answer cells of one notebook graded at once.").tag(config=True)
    timeout = Float(None, allow_none=True, help="Wall-clock limit per grading in seconds (default: each exercise's).").tag(config=True)
    results_dir = Unicode("", help="Where full results are kept for the instructor (default: <course>/autograder_results).").tag(config=True)

    @property
    def course(self) -> Path:
        return Path(self.manifest).parent if self.manifest else Path(".")

    def _start(self, nb, resources) -> dict | None:
        """Start grading every answer of this notebook in background threads; None if it is not ours."""
        info = resources["nbgrader"]
        assignment, notebook, student = info["assignment"], info["notebook"], info["student"]
        entry = bridge.read_manifest(self.course)["assignments"].get(assignment)
        if entry is None or entry["notebook"] != notebook:
            self.log.warning("autograder: %s/%s is not a generated assignment notebook; not graded out of the kernel", assignment, notebook)
            return None
        exercises = entry["exercises"]
        answers = bridge.find_answers(nb, [e["id"] for e in exercises])

        def grade_one(item):
            exercise = load(item["id"])
            answer = answers.get(item["id"])
            if answer is None:
                return bridge.not_graded(exercise, bridge.missing_answer_message(item["id"]), submission=bridge.ANSWER_LABEL)
            try:
                return bridge.grade_source(item["id"], answer.source, timeout=self.timeout)
            except Exception as exc:  # noqa: BLE001 - the grader failing must not crash the class's autograde
                self.log.error("autograder: grading %s for %s failed: %r", item["id"], student, exc)
                return bridge.not_graded(exercise, f"The course grader failed on this answer ({type(exc).__name__}); "
                                                   "it scores 0 until your instructor regrades it.")

        pool = ThreadPoolExecutor(max_workers=max(1, self.workers), thread_name_prefix="autograder")
        futures = [pool.submit(grade_one, item) for item in exercises]
        pool.shutdown(wait=False)
        return {"key": (assignment, notebook, student), "exercises": exercises, "answers": answers, "futures": futures}


class StartGradingAnswers(AnswerGrading):
    """Before nbgrader executes the notebook: start grading the answer cells' sources, so the
    gradings run while the kernel does (the kernel never sees them, and cannot change a source)."""

    def preprocess(self, nb, resources):
        pending = self._start(nb, resources)
        if pending is not None:
            with _LOCK:
                _PENDING[pending["key"]] = pending
        return nb, resources


class GradeAnswersOutOfKernel(AnswerGrading):
    """After nbgrader executed the notebook: make each answer's grade the check cell's score."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        key = (info["assignment"], info["notebook"], info["student"])
        with _LOCK:
            pending = _PENDING.pop(key, None)
        if pending is None:
            pending = self._start(nb, resources)
        if pending is None:
            return nb, resources
        assignment, notebook, student = key
        answers = pending["answers"]
        results = [future.result() for future in pending["futures"]]

        record = {"assignment": assignment, "notebook": notebook, "student": student,
                  "graded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "exercises": []}
        for item, result in zip(pending["exercises"], results):
            points = float(item["points"])
            earned = round(result.score * points / result.max_score, 6) if result.max_score else 0.0
            view = learner_view(result, item.get("hidden", []))
            answer = answers.get(item["id"])
            how = " (found by its first line: its nbgrader cell was replaced)" if answer and answer.how == "marker" else ""
            text = (f"Graded by the course grader, outside the notebook, from your answer cell{how}:\n"
                    + render(view))
            kernel = self._put_check_cell(nb, item, _outputs(text, earned, points, item["id"]))
            self.log.info("autograder: %s %s %s %g/%g", student, assignment, item["id"], earned, points)
            if kernel["present"] and not kernel["expected"]:
                self.log.warning("autograder: %s's check cell for %s did not fail as it should in the kernel during "
                                 "autograding (tampered with, or the kernel failed); the score comes from the course "
                                 "grader regardless", student, item["id"])
            record["exercises"].append({"id": item["id"], "points": points, "earned": earned,
                                        "answer": answer.how if answer else None, "kernel_check": kernel,
                                        "result": result.to_dict()})
        results_dir = Path(self.results_dir) if self.results_dir else self.course / "autograder_results"
        _write_atomic(results_dir / assignment / f"{student}.json", record)
        return nb, resources

    def _put_check_cell(self, nb, item: dict, outputs: list) -> dict:
        """Set the check cell's metadata and outputs; restore the cell where it was deleted. Returns
        what the kernel had shown in it."""
        grade_id = item["check_cell"]
        index = None
        for i, cell in enumerate(nb.cells):
            if (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id") == grade_id:
                index = i
        kernel = _kernel_check(nb.cells[index] if index is not None else None)
        fresh = bridge.check_cell(item["id"], item["points"], item.get("hidden", []))
        if index is None:
            cell = nbformat.from_dict(fresh)
            ids = {c.get("id") for c in nb.cells}
            if cell.get("id") in ids:
                cell["id"] = cell["id"] + "-restored"
            after = None
            for i, c in enumerate(nb.cells):
                meta = c.get("metadata", {}).get("nbgrader") or {}
                if meta.get("grade_id") in (item["answer_cell"], bridge.task_cell_id(item["id"])):
                    after = i
            nb.cells.insert(len(nb.cells) if after is None else after + 1, cell)
        else:
            cell = nb.cells[index]
            cell.cell_type = "code"
            cell.metadata["nbgrader"] = nbformat.from_dict(fresh["metadata"]["nbgrader"])
            cell.metadata["nbgrader"]["points"] = item["points"]
        cell.outputs = outputs
        cell.execution_count = None
        cell.metadata.nbgrader["checksum"] = nbgrader_utils.compute_checksum(cell)
        return kernel
