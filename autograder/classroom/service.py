"""The grading service of a classroom: a JupyterHub service that alone can read the masters.

In classroom mode learners work from a release without ``solutions/`` (``classroom release``),
so their own processes cannot grade anything: their ``check()`` sends the code to this service,
which grades it with ``grade()`` exactly as every other route does, answers with the learner's
view (hidden checks left out) and keeps every attempt for the instructor.

    python -m autograder classroom serve [--data DIR] [--workers N] [--hide ID:CHECK] [--with-fix-hint]

Run it as a JupyterHub managed service (docs/INSTRUCTORS.md has the hub configuration). Every
request must carry a JupyterHub token, ``Authorization: token <JUPYTERHUB_API_TOKEN>``: the
single-user server's own token, which its kernels inherit. The service asks the hub whose token
it is and whether it grants ``access:services!service=<name>``; anything else is refused (403).

    POST {prefix}api/grade   {"exercise": ID, "kind": "file"|"answer", "source": TEXT}
    POST {prefix}api/hint    {"exercise": ID}                   the learner's next hint
    GET  {prefix}api/attempts[?user=U&exercise=ID]             instructors (admin:users) only: the attempts
    GET  {prefix}api/health                                    no token needed

Each attempt is written to ``DIR/attempts/<user>/<exercise>/<time>-<n>.json`` (the full Result,
hidden checks included, and the source). One grading per learner at a time (a second gets 429);
gradings of different learners run at once, on ``--workers`` warm workers.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import json
import os
import secrets
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

from autograder.classroom.batch import safe_name
from autograder.format.exercise import discover, load
from autograder.learner.view import learner_view, parse_hide, relabel, render

MAX_SOURCE_BYTES = 1_000_000
DEFAULT_NAME = "grader"


class GradingService:
    """What the handlers share: the course's exercises, what learners may see, where attempts go."""

    def __init__(self, data: Path, workers: int = 2, hide=(), fix_hint: bool = False, exercises=None, timeout=None):
        chosen = [e for e in discover() if not exercises or e.id in set(exercises)]
        self.exercises = {e.id: e for e in chosen}
        self.hidden = parse_hide(hide, chosen)
        self.fix_hint = fix_hint
        self.data = Path(data)
        self.data.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data, 0o700)  # attempts hold learners' code and hidden checks' messages
        self.timeout = timeout
        self.threads = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="grading-service")
        self.busy: set[str] = set()
        self.lock = threading.Lock()
        from autograder.engine import zygote

        self.pool = zygote.WarmPool(max(1, workers))
        zygote.install(self.pool)

    def close(self) -> None:
        self.threads.shutdown(wait=False, cancel_futures=True)
        self.pool.close()

    # -- grading -------------------------------------------------------------------------------

    def grade(self, user: str, exercise_id: str, kind: str, source: str) -> dict:
        from autograder.classroom.nbgrader_bridge import grade_source
        from autograder.engine.grader import grade

        exercise = self.exercises[exercise_id]
        received = datetime.datetime.now(datetime.timezone.utc)
        if kind == "answer":
            result = grade_source(exercise_id, source, timeout=self.timeout, warm=True)
        else:
            label = f"exercises/{exercise.chapter}/{exercise_id}.py"
            with tempfile.TemporaryDirectory(prefix="autograder-service-") as tmp:
                path = Path(tmp) / f"{exercise_id}.py"
                path.write_text(source, encoding="utf-8")
                result = relabel(grade(exercise_id, path, timeout=self.timeout, warm=True), str(path), label)
        view = learner_view(result, self.hidden.get(exercise_id, []))
        answer = {"exercise": exercise_id, "status": view.status, "score": view.score, "max_score": view.max_score,
                  "text": render(view), "hidden_checks": view.extra.get("hidden_checks", 0), "seed": result.seed}
        self._record(user, exercise_id, {"user": user, "exercise": exercise_id, "kind": kind,
                                         "received_at": received.isoformat(timespec="seconds"),
                                         "sha256": hashlib.sha256(source.encode()).hexdigest(), "source": source,
                                         "result": result.to_dict(), "shown": answer})
        return answer

    def _record(self, user: str, exercise_id: str, data: dict) -> None:
        folder = self.data / "attempts" / safe_name(user) / exercise_id
        folder.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
        path = folder / f"{stamp}-{secrets.token_hex(3)}.json"
        tmp = path.with_name("." + path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)

    def attempts(self, user: str | None = None, exercise: str | None = None) -> list[dict]:
        out = []
        for path in sorted((self.data / "attempts").glob("*/*/*.json")):
            record = json.loads(path.read_text(encoding="utf-8"))
            if (user is None or record["user"] == user) and (exercise is None or record["exercise"] == exercise):
                out.append({k: record[k] for k in ("user", "exercise", "kind", "received_at", "sha256")}
                           | {"status": record["result"]["status"], "score": record["result"]["score"],
                              "max_score": record["result"]["max_score"], "file": str(path.relative_to(self.data))})
        return out

    # -- hints ---------------------------------------------------------------------------------

    def hint(self, user: str, exercise_id: str) -> dict:
        from autograder.classroom.nbgrader_bridge import released_hints

        hints = released_hints(self.exercises[exercise_id], self.fix_hint)
        path = self.data / "hints" / f"{safe_name(user)}.json"
        with self.lock:
            try:
                levels = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                levels = {}
            level = int(levels.get(exercise_id, 0))
            if level >= len(hints):
                text = (f"That was the last hint for {exercise_id} in this course: the one that states the fix is "
                        "kept back. Reread the lesson section the report names, or ask your instructor.")
                return {"exercise": exercise_id, "level": level, "of": len(hints), "text": text}
            levels[exercise_id] = level + 1
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(levels, indent=1) + "\n", encoding="utf-8")
        text = f"Hint {level + 1}/{len(hints)}: {hints[level]}"
        requirements = [r.text for r in getattr(self.exercises[exercise_id], "requirements", [])]
        if requirements:  # what the fix must do, as the self-paced hint shows it
            from autograder.format.exercise import requirements_block

            text += "\n\n" + requirements_block(requirements)
        return {"exercise": exercise_id, "level": level + 1, "of": len(hints), "text": text}


def make_app(service: GradingService, prefix: str, hub_auth):
    import tornado.web

    class Base(tornado.web.RequestHandler):
        user_model: dict | None = None

        def write_error(self, status_code, **kwargs):
            self.finish({"error": self._reason})

        def fail(self, code: int, message: str):
            raise tornado.web.HTTPError(code, reason=message)

        async def prepare(self):
            header = self.request.headers.get("Authorization", "")
            scheme, _, token = header.partition(" ")
            if scheme.lower() not in ("token", "bearer") or not token.strip():
                self.fail(403, "send the JupyterHub token of your server: Authorization: token $JUPYTERHUB_API_TOKEN")
            try:
                model = await hub_auth.user_for_token(token.strip(), sync=False)
            except Exception:  # noqa: BLE001 - the hub could not be asked: not the learner's fault
                self.fail(503, "the grading service could not reach JupyterHub to check your token; try again shortly")
            if not model or not hub_auth.check_scopes(hub_auth.access_scopes, model):
                self.fail(403, "this token does not grant access to the course's grading service")
            self.user_model = model

        def body(self) -> dict:
            try:
                data = json.loads(self.request.body or b"{}")
            except ValueError:
                self.fail(400, "the request body is not JSON")
            if not isinstance(data, dict):
                self.fail(400, "the request body must be a JSON object")
            exercise_id = data.get("exercise")
            if exercise_id not in service.exercises:
                self.fail(404, f"unknown exercise {exercise_id!r}; this course has: {', '.join(sorted(service.exercises))}")
            return data

    class Grade(Base):
        async def post(self):
            data = self.body()
            kind, source = data.get("kind", "file"), data.get("source")
            if kind not in ("file", "answer") or not isinstance(source, str):
                self.fail(400, "send kind (file or answer) and source (the code, as text)")
            if len(source.encode()) > MAX_SOURCE_BYTES:
                self.fail(413, f"the code is over {MAX_SOURCE_BYTES} bytes; submit only your exercise file")
            user = self.user_model["name"]
            with service.lock:
                if user in service.busy:
                    self.fail(429, "your previous check is still being graded; wait for it, then check again")
                service.busy.add(user)
            try:
                loop = asyncio.get_running_loop()
                answer = await loop.run_in_executor(service.threads, service.grade, user, data["exercise"], kind, source)
            finally:
                with service.lock:
                    service.busy.discard(user)
            self.finish(answer)

    class Hint(Base):
        def post(self):
            data = self.body()
            self.finish(service.hint(self.user_model["name"], data["exercise"]))

    class Attempts(Base):
        def get(self):
            if not (self.user_model.get("admin") or hub_auth.check_scopes({"admin:users"}, self.user_model)):
                self.fail(403, "only the hub's admins (instructors) see the attempts")
            self.finish({"attempts": service.attempts(self.get_argument("user", None), self.get_argument("exercise", None))})

    class Health(tornado.web.RequestHandler):
        def get(self):
            self.finish({"ok": True, "exercises": len(service.exercises)})

    return tornado.web.Application([
        (prefix + "api/health", Health), (prefix + "api/grade", Grade), (prefix + "api/hint", Hint),
        (prefix + "api/attempts", Attempts)])


def serve(data: Path, port: int | None = None, workers: int = 2, hide=(), fix_hint: bool = False, exercises=None,
          timeout=None) -> None:
    """Run the service until it is stopped (the hub stops a managed service with SIGTERM)."""
    import signal

    import tornado.ioloop
    from jupyterhub.services.auth import HubAuth

    bind = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL") or f"http://127.0.0.1:{port or 10101}")
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX") or f"/services/{os.environ.get('JUPYTERHUB_SERVICE_NAME', DEFAULT_NAME)}/"
    if not prefix.endswith("/"):
        prefix += "/"
    service = GradingService(data, workers=workers, hide=hide, fix_hint=fix_hint, exercises=exercises, timeout=timeout)
    hub_auth = HubAuth(cache_max_age=60)
    if not hub_auth.access_scopes:  # run by hand rather than by the hub: the scope a managed service gets
        hub_auth.access_scopes = {f"access:services!service={os.environ.get('JUPYTERHUB_SERVICE_NAME', DEFAULT_NAME)}"}
    app = make_app(service, prefix, hub_auth)
    app.listen(port or bind.port or 10101, address=bind.hostname or "127.0.0.1")
    loop = tornado.ioloop.IOLoop.current()
    signal.signal(signal.SIGTERM, lambda *_: loop.add_callback_from_signal(loop.stop))
    print(f"grading service for {len(service.exercises)} exercise(s) at {bind.hostname}:{port or bind.port}{prefix}; "
          f"attempts in {service.data}", flush=True)
    try:
        loop.start()
    finally:
        service.close()
