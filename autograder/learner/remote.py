"""The learner's side of classroom mode: ``check()`` and ``hint()`` answered by the course's grading service.

In a classroom the learner's release has no ``solutions/``, so nothing in the learner's own
processes can grade. When ``AUTOGRADER_SERVICE_URL`` is set (the hub sets it for every
single-user server, see docs/INSTRUCTORS.md), the notebook's ``check()`` sends the learner's code
to that service with the server's own JupyterHub token (``JUPYTERHUB_API_TOKEN``, which every
kernel inherits) and shows the report it answers. Only the standard library: a learner's
environment needs nothing more, and this module never imports the classroom package.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from autograder.format.exercise import EXERCISES

URL_VARIABLE = "AUTOGRADER_SERVICE_URL"
TIMEOUT_S = 600  # a grading waits for its turn, then may take its exercise's whole time limit


class RemoteError(RuntimeError):
    """The service could not answer; the message says what the learner can do."""


@dataclass
class RemoteVerdict:
    exercise: str
    status: str
    score: float
    max_score: float
    text: str

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __repr__(self) -> str:
        return self.text


def configured() -> bool:
    return bool(os.environ.get(URL_VARIABLE))


def _call(path: str, payload: dict, timeout: float = TIMEOUT_S) -> dict:
    base = os.environ[URL_VARIABLE].rstrip("/") + "/"
    token = os.environ.get("JUPYTERHUB_API_TOKEN") or os.environ.get("JPY_API_TOKEN") or ""
    request = urllib.request.Request(base + path, data=json.dumps(payload).encode(), method="POST",
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            reason = json.loads(exc.read()).get("error") or exc.reason
        except ValueError:
            reason = exc.reason
        raise RemoteError(f"the course's grading service refused the check ({exc.code}): {reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise RemoteError(f"the course's grading service at {base} could not be reached ({exc}). Your code is saved; "
                          "try again in a minute, and tell your instructor if it persists.") from None


def _error_verdict(exercise_id: str, error: RemoteError) -> RemoteVerdict:
    return RemoteVerdict(exercise_id, "error", 0, 0, f"{exercise_id}: NOT GRADED  {error}")


def learner_file(exercise_id: str) -> Path | None:
    """The learner's copy in the workspace (made from the starting file the first time, as
    ``workspace.ensure_copy`` does), found without the master, which a classroom release lacks."""
    from autograder.learner.workspace import WORKSPACE

    starters = sorted(EXERCISES.glob(f"[0-9][0-9]_*/{exercise_id}.py"))
    if not starters:
        return None
    copy = WORKSPACE / "exercises" / starters[0].parent.name / f"{exercise_id}.py"
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(starters[0], copy)
    return copy


def check(exercise_id: str, path=None) -> RemoteVerdict:
    """Grade the learner's saved file (or ``path``) on the service."""
    target = Path(path) if path is not None else learner_file(exercise_id)
    if target is None or not target.is_file():
        return _error_verdict(exercise_id, RemoteError(f"no exercise {exercise_id!r} in {EXERCISES}"))
    try:
        answer = _call("api/grade", {"exercise": exercise_id, "kind": "file",
                                     "source": target.read_text(encoding="utf-8", errors="replace")})
    except RemoteError as exc:
        return _error_verdict(exercise_id, exc)
    return RemoteVerdict(exercise_id, answer["status"], answer["score"], answer["max_score"], answer["text"])


def grade_answer(exercise_id: str, source: str) -> RemoteVerdict:
    """Grade an nbgrader answer cell's source on the service (the check cell in classroom mode)."""
    try:
        answer = _call("api/grade", {"exercise": exercise_id, "kind": "answer", "source": source})
    except RemoteError as exc:
        return _error_verdict(exercise_id, exc)
    return RemoteVerdict(exercise_id, answer["status"], answer["score"], answer["max_score"], answer["text"])


def hint(exercise_id: str) -> str:
    try:
        return _call("api/hint", {"exercise": exercise_id}, timeout=30)["text"]
    except RemoteError as exc:
        return f"No hint: {exc}"
