"""The nbgrader steps that make the score: answer cells graded outside the kernel, for everyone.

The generated ``nbgrader_config.py`` plugs four pieces into ``nbgrader autograde`` and one into
``nbgrader export``. All run in nbgrader's own process; no learner code runs there, and nbgrader's
kernel never runs a notebook of this course (only the course grader's fresh children do).

``SalvagingExporter`` (``Autograde.exporter_class``)
    reads each submitted notebook. One that is not a sound notebook (not JSON, cut off, not UTF-8,
    malformed cells) is rebuilt from the assignment with every answer cell that could still be
    read, instead of failing the student; the damage is flagged.
``RestoreCourseCells`` (a sanitize step, before nbgrader's ``OverwriteCells``)
    puts back the nbgrader metadata, type and source of every cell of the course that a learner
    changed (an unlocked, retyped or re-flagged check cell), from the gradebook, so that
    ``OverwriteCells`` never stops at "Inconsistent checksums"; each change is flagged.
``GradeAnswersOutOfKernel`` (the first autograde step, in place of nbgrader's ``Execute``)
    for each exercise takes the *source* of the learner's answer cell (by its nbgrader id, else a
    cell that starts with ``# ANSWER <id>:``; a missing answer scores 0 with a message), grades it
    with ``grade()`` (a warm grading child), or takes the class pre-grading's result for the same
    source (``nbgrader grade`` grades the whole class in parallel first), and rewrites the check
    cell (restoring it if it was deleted) so that its outputs are the learner-facing report plus
    what nbgrader reads as the score: nothing for full marks, an ``execute_result`` with the
    points for partial credit, an error for 0. It records every full Result, hidden checks and
    flags included, for the instructor in ``<course>/autograder_results/<assignment>/<student>.json``,
    and marks a flagged submission as flagged in the gradebook (formgrader shows it). A notebook
    that is not one of the course's assignments is executed by nbgrader's own ``Execute``.
``CourseLatePolicy`` (``AssignLatePenalties.plugin_class``)
    the late policy of the build (``term.LatePolicy``), from nbgrader's timestamp and due date.
``FlaggedCsvExport`` (``ExportApp.plugin_class``)
    nbgrader's ``grades.csv`` with one more column, ``flags``.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbconvert.exporters import NotebookExporter
from nbformat.notebooknode import NotebookNode
from nbformat.v4 import new_output
from nbgrader import utils as nbgrader_utils
from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.plugins.export import CsvExportPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Int, Unicode

from autograder.classroom import nbgrader_bridge as bridge
from autograder.classroom import salvage
from autograder.classroom.term import LatePolicy, iso, parse_time
from autograder.format.exercise import load
from autograder.learner.view import learner_view, render

PREGRADED = ".pregraded"  # autograder_results/<assignment>/.pregraded/<student>.json, written by nbgrader grade


def _kernel_free_note() -> str:
    return "Graded by the course grader, outside the notebook, from your answer cell"


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


_FLAGS: dict[tuple, list[str]] = {}
_DAMAGED: set[tuple] = set()
_LOCK = threading.Lock()


def _key(resources) -> tuple:
    info = resources["nbgrader"]
    return info["assignment"], info["notebook"], info["student"]


def _flag(key: tuple, text: str) -> None:
    with _LOCK:
        _FLAGS.setdefault(key, []).append(text)


def _write_atomic(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def source_digest(exercise_id: str, source: str) -> str:
    return hashlib.sha256(f"{exercise_id}\0{source}".encode()).hexdigest()


def _manifest_path(config) -> str:
    try:
        return str(config.AnswerGrading.manifest or "")
    except AttributeError:
        return ""


def _manifest(config) -> tuple[Path, dict]:
    path = _manifest_path(config)
    course = Path(path).parent if path else Path(".")
    return course, bridge.read_manifest(course)


def rebuilt_notebook(manifest: dict, assignment: str, cells: list[dict]) -> dict:
    """The assignment's notebook (task and check cells from the course) with the answer cells that
    could be read from a damaged submission; an answer that was lost is left out (it scores 0)."""
    entry = manifest["assignments"][assignment]
    options = bridge.BuildOptions.from_dict(manifest["options"])
    exercises = [load(item["id"]) for item in entry["exercises"]]
    hidden = {item["id"]: item.get("hidden", []) for item in entry["exercises"]}
    template = bridge.notebook(assignment, exercises, hidden, options.fix_hint)
    answers = bridge.find_answers({"cells": cells}, [e.id for e in exercises])
    out = []
    for cell in template["cells"]:
        grade_id = cell["metadata"]["nbgrader"]["grade_id"]
        if grade_id.startswith("answer_"):
            answer = answers.get(grade_id[len("answer_"):])
            if answer is not None:
                out.append(bridge._cell("code", grade_id, answer.source, bridge._nbgrader_meta(grade_id, solution=True)))
            continue
        out.append(cell)
    return {**template, "cells": out}


class _Unreadable(Exception):
    """nbformat could not read a notebook that the salvage reader found sound."""


class SalvagingExporter(NotebookExporter):
    """nbconvert's notebook exporter, which also reads a damaged submission as far as it goes."""

    def from_file(self, file_stream, resources=None, **kw):
        try:
            nb = nbformat.read(file_stream, as_version=4)
        except Exception as exc:  # noqa: BLE001 - whatever nbformat raises, the notebook is salvaged
            raise _Unreadable(f"{type(exc).__name__}: {exc}") from exc
        return self.from_notebook_node(nb, resources=resources, **kw)

    def from_filename(self, filename, resources=None, **kw):
        reading = salvage.read_notebook(Path(filename))
        failure = None
        if reading.sound:
            for attempt in (1, 2):
                try:
                    return super().from_filename(filename, resources=resources, **kw)
                except _Unreadable as exc:
                    failure, reading.problem = exc.__cause__ or exc, f"nbformat could not read it ({exc})"
                    break
                except Exception as exc:  # noqa: BLE001 - a step after reading failed: not the notebook's fault
                    # Seen under load: a SystemError ("AST constructor recursion depth mismatch") from
                    # threads parsing at once (now serialized: format/syntax.py). Whatever else fails
                    # here, once more before the notebook is salvaged as if damaged.
                    self.log.warning("autograder: converting %s failed (%s: %s)%s", filename, type(exc).__name__, exc,
                                     "; once more" if attempt == 1 else "")
                    failure, reading.problem = exc, f"converting it failed twice ({type(exc).__name__}: {exc})"
        key = _key(resources)
        try:
            course, manifest = _manifest(self.config)
            if key[0] not in manifest["assignments"] or manifest["assignments"][key[0]]["notebook"] != key[1]:
                raise KeyError(key[0])
        except (KeyError, FileNotFoundError, ValueError):
            if failure is not None:
                raise failure
            return super().from_filename(filename, resources=resources, **kw)
        nb = nbformat.from_dict(rebuilt_notebook(manifest, key[0], reading.cells))
        _flag(key, f"damaged notebook: {reading.problem}")
        with _LOCK:
            _DAMAGED.add(key)
        resources = resources if resources is not None else {}
        meta = resources.setdefault("metadata", {})
        meta.update(name=Path(filename).stem, path=str(Path(filename).parent),
                    modified_date=datetime.datetime.fromtimestamp(os.path.getmtime(filename)).strftime("%B %d, %Y"))
        return self.from_notebook_node(nb, resources=resources, **kw)


def _as_type(cell, cell_type: str) -> None:
    if cell.cell_type == cell_type:
        return
    cell.cell_type = cell_type
    if cell_type == "code":
        cell.outputs, cell.execution_count = [], None
    else:
        cell.pop("outputs", None)
        cell.pop("execution_count", None)


class RestoreCourseCells(NbGraderPreprocessor):
    """Sanitize step: every cell that claims one of the assignment's nbgrader ids gets back the
    course's metadata (grade, solution, locked, points) and type, and a locked cell its source,
    from the gradebook; a cell claiming an id the assignment does not have loses the claim."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        key = _key(resources)
        with Gradebook(info["db_url"]) as gb:
            try:
                source_nb = gb.find_notebook(info["notebook"], info["assignment"])
            except MissingEntry:
                return nb, resources
            sources = {c.name: c for c in source_nb.source_cells}
            points = {c.name: float(c.max_score) for c in source_nb.grade_cells}
            solutions = {c.name for c in source_nb.solution_cells}
            tasks = {c.name for c in source_nb.task_cells}
            for cell in nb.cells:
                meta = cell.get("metadata", {}).get("nbgrader")
                if not isinstance(meta, dict):
                    continue
                grade_id = meta.get("grade_id")
                if not isinstance(grade_id, str) or grade_id not in sources:
                    # Not a cell of the course: its nbgrader metadata could only stop nbgrader (an old
                    # schema version aborts the whole class's autograde), so it goes.
                    del cell.metadata["nbgrader"]
                    if any(meta.get(flag) for flag in ("grade", "solution", "locked", "task")):
                        _flag(key, f"a cell claimed the nbgrader id {grade_id!r}, which the assignment does not have; "
                                   "it was treated as an ordinary cell")
                    continue
                source = sources[grade_id]
                want = {"grade": grade_id in points, "solution": grade_id in solutions, "locked": bool(source.locked),
                        "task": grade_id in tasks}
                changed = [name for name, value in want.items() if bool(meta.get(name, False)) != value]
                if meta.get("schema_version") != 3:
                    changed.append("metadata version")
                if want["grade"]:
                    try:
                        if float(meta.get("points")) != points[grade_id]:
                            changed.append("points")
                    except (TypeError, ValueError):
                        changed.append("points")
                if cell.cell_type != source.cell_type:
                    changed.append("cell type")
                if source.locked and cell.source != source.source:
                    changed.append("source")
                if not changed:
                    continue
                fresh = {"grade_id": grade_id, "schema_version": 3, **want}
                if want["grade"]:
                    fresh["points"] = points[grade_id]
                cell.metadata["nbgrader"] = NotebookNode(fresh)
                _as_type(cell, source.cell_type)
                if source.locked:
                    cell.source = source.source
                cell.metadata.nbgrader["checksum"] = source.checksum
                _flag(key, f"the course's cell {grade_id} had been changed ({', '.join(changed)}); "
                           "it was restored from the course before grading")
        return nb, resources


class AnswerGrading(NbGraderPreprocessor):
    """Settings of the grading step; configure them as ``c.AnswerGrading.<name>``."""

    manifest = Unicode("", help="Path of the course's autograder_course.json (set by the generated config).").tag(config=True)
    workers = Int(2, help="Answer cells of one notebook graded at once (when not pre-graded).").tag(config=True)
    timeout = Float(None, allow_none=True, help="Wall-clock limit per grading in seconds (default: each exercise's).").tag(config=True)
    results_dir = Unicode("", help="Where full results are kept for the instructor (default: <course>/autograder_results).").tag(config=True)

    @property
    def course(self) -> Path:
        return Path(self.manifest).parent if self.manifest else Path(".")

    @property
    def results_root(self) -> Path:
        return Path(self.results_dir) if self.results_dir else self.course / "autograder_results"


RUN_VARIABLE = "AUTOGRADER_PREGRADED_RUN"  # set by nbgrader grade for the nbgrader run that follows its pre-grading


def _pregraded(results_root: Path, assignment: str, student: str) -> dict:
    """The class pre-grading's results for this student, only within the ``nbgrader grade`` run that
    made them (a later plain ``nbgrader autograde``, after a grader fix say, grades afresh)."""
    run = os.environ.get(RUN_VARIABLE)
    if not run:
        return {}
    try:
        data = json.loads((results_root / assignment / PREGRADED / f"{student}.json").read_text(encoding="utf-8"))
        return data["exercises"] if data.get("run") == run else {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


class GradeAnswersOutOfKernel(AnswerGrading):
    """The autograde step: each answer's grade becomes its check cell's score (see the module docstring)."""

    def preprocess(self, nb, resources):
        key = _key(resources)
        assignment, notebook, student = key
        entry = bridge.read_manifest(self.course)["assignments"].get(assignment)
        if entry is None or entry["notebook"] != notebook:
            from nbgrader.preprocessors import Execute

            self.log.warning("autograder: %s/%s is not a notebook of the course; nbgrader executes it as usual", assignment, notebook)
            return Execute(parent=self.parent, config=self.config).preprocess(nb, resources)
        exercises = entry["exercises"]
        answers = bridge.find_answers(nb, [e["id"] for e in exercises])
        with _LOCK:
            flags = _FLAGS.pop(key, [])
            damaged = key in _DAMAGED
            _DAMAGED.discard(key)
        cached = _pregraded(self.results_root, assignment, student)
        results = self._grade(exercises, answers, cached, student, damaged)

        record = {"assignment": assignment, "notebook": notebook, "student": student,
                  "graded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "exercises": []}
        for item, (result, how) in zip(exercises, results):
            points = float(item["points"])
            earned = round(result.score * points / result.max_score, 6) if result.max_score else 0.0
            view = learner_view(result, item.get("hidden", []))
            answer = answers.get(item["id"])
            found = " (found by its first line: its nbgrader cell was replaced)" if answer and answer.how == "marker" else ""
            text = f"{_kernel_free_note()}{found}:\n" + render(view)
            restored = self._put_check_cell(nb, item, _outputs(text, earned, points, item["id"]))
            if restored:
                flags.append(f"the check cell of {item['id']} had been deleted; it was restored")
            if answer is None:
                flags.append(f"no answer cell for {item['id']}" + (" (lost in the damaged notebook)" if damaged else ""))
            self.log.info("autograder: %s %s %s %g/%g", student, assignment, item["id"], earned, points)
            record["exercises"].append({"id": item["id"], "points": points, "earned": earned,
                                        "answer": answer.how if answer else None, "graded": how,
                                        "result": result.to_dict()})
        for flag in flags:
            self.log.warning("autograder: %s %s: %s", student, assignment, flag)
        record["flags"] = flags
        record.update(self._term(resources, entry, flags))
        _write_atomic(self.results_root / assignment / f"{student}.json", record)
        return nb, resources

    def _grade(self, exercises, answers, cached, student, damaged) -> list:
        def grade_one(item):
            exercise = load(item["id"])
            answer = answers.get(item["id"])
            if answer is None:
                message = bridge.missing_answer_message(item["id"])
                if damaged:
                    message = (f"Your notebook was damaged and the answer cell for {item['id']} could not be read back from it, "
                               "so this exercise scores 0. Your instructor has been told; ask them about resubmitting.")
                return bridge.not_graded(exercise, message, submission=bridge.ANSWER_LABEL), "missing"
            hit = cached.get(item["id"])
            if isinstance(hit, dict) and hit.get("sha256") == source_digest(item["id"], answer.source):
                try:
                    from autograder.format.result import Result

                    return Result.from_dict(hit["result"]), "pregraded"
                except (KeyError, TypeError):
                    pass
            try:
                return bridge.grade_source(item["id"], answer.source, timeout=self.timeout, seed=(hit or {}).get("seed"),
                                           warm=True), "graded"
            except Exception as exc:  # noqa: BLE001 - the grader failing must not crash the class's autograde
                self.log.error("autograder: grading %s for %s failed: %r", item["id"], student, exc)
                return bridge.not_graded(exercise, f"The course grader failed on this answer ({type(exc).__name__}); "
                                                   "it scores 0 until your instructor regrades it."), "grader-error"

        with ThreadPoolExecutor(max_workers=max(1, self.workers), thread_name_prefix="autograder") as pool:
            return list(pool.map(grade_one, exercises))

    def _term(self, resources, entry, flags) -> dict:
        """The due date into the gradebook (before AssignLatePenalties reads it), and what the record
        says of time: when it was submitted, when it was due, the policy."""
        info = resources["nbgrader"]
        out = {"due": entry.get("due"), "submitted_at": None,
               "late_policy": bridge.read_manifest(self.course)["options"].get("late_policy", "none")}
        with Gradebook(info["db_url"]) as gb:
            try:
                if entry.get("due"):
                    due = parse_time(entry["due"]).replace(tzinfo=None)
                    assignment = gb.find_assignment(info["assignment"])
                    if assignment.duedate != due:
                        gb.update_or_create_assignment(info["assignment"], duedate=due)
                submission = gb.find_submission(info["assignment"], info["student"])
                if submission.timestamp is not None:
                    out["submitted_at"] = iso(submission.timestamp.replace(tzinfo=datetime.timezone.utc))
                notebook = gb.find_submission_notebook(info["notebook"], info["assignment"], info["student"])
                notebook.flagged = bool(flags)
                gb.db.commit()
            except MissingEntry:
                pass
        return out

    def _put_check_cell(self, nb, item: dict, outputs: list) -> bool:
        """Set the check cell's metadata and outputs; restore the cell where it was deleted (returns True then)."""
        grade_id = item["check_cell"]
        index = None
        for i, cell in enumerate(nb.cells):
            if (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id") == grade_id:
                index = i
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
        return index is None


class CourseLatePolicy(LateSubmissionPlugin):
    """The build's late policy (``--late-policy``), for nbgrader's AssignLatePenalties."""

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float):
        try:
            _, manifest = _manifest(self.config)
            policy = LatePolicy.parse(manifest["options"].get("late_policy"))
        except (FileNotFoundError, ValueError, KeyError) as exc:
            self.log.error("autograder: no late policy could be read (%s); no penalty assigned", exc)
            return None
        penalty = policy.penalty(score or 0.0, total_seconds_late or 0.0)
        self.log.info("autograder: %s is %.0f s late: penalty %g (%s)", student_id, total_seconds_late, penalty, policy.describe())
        return penalty


class FlaggedCsvExport(CsvExportPlugin):
    """nbgrader's CSV export, plus a ``flags`` column from the course grader's records."""

    def export(self, gradebook) -> None:
        super().export(gradebook)
        import csv
        import io

        dest = Path(self.to or "grades.csv")
        try:
            course, _ = _manifest(self.config)
        except (FileNotFoundError, ValueError):
            return
        rows = list(csv.DictReader(io.StringIO(dest.read_text(encoding="utf-8"))))
        if not rows:
            return
        for row in rows:
            record = course / "autograder_results" / row["assignment"] / f"{row['student_id']}.json"
            try:
                row["flags"] = "; ".join(json.loads(record.read_text(encoding="utf-8")).get("flags", []))
            except (OSError, ValueError):
                submitted = (course / "submitted" / row["student_id"] / row["assignment"]).is_dir()
                row["flags"] = "not autograded: see nbgrader's log" if submitted else "no submission"
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        dest.write_text(buffer.getvalue(), encoding="utf-8")
