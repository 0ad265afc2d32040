"""Classroom mode on a real JupyterHub: the learner's check() is graded by the course's grading
service, hub-authenticated with the single-user server's own token, while the learner cannot read
the masters.

The hub runs with DummyAuthenticator, LocalProcessSpawner and the Python port of
configurable-http-proxy (pip ``configurable-http-proxy``: no node needed). The learner's
single-user server runs as a separate Unix user (``autograder-learner``, made if missing; the
test needs root) from the learner release, under the system's Python with this environment's
packages on its path (the course's own interpreter may live under a folder only root can enter).
The grading service runs as root from a copy of the course whose masters are root-only (0600 in
0700 folders). A kernel of the learner's server runs ``check()`` on the starter and on a fix, and
tries to open a master itself.
"""

import asyncio
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from conftest import ROOT

from autograder.classroom.nbgrader_bridge import ANSWER_LINE, solution_code
from autograder.format.exercise import load

LEARNER = "autograder-learner"
BC = "breaks_checkpoint"
SYSTEM_PYTHON = "/usr/bin/python3.11"

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def ensure_learner_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(LEARNER)
    except KeyError:  # made once per machine; another test worker may be making it at the same moment
        subprocess.run(["useradd", "--system", "--create-home", "--home-dir", f"/var/lib/{LEARNER}",
                        "--shell", "/usr/sbin/nologin", LEARNER], capture_output=True)
        return pwd.getpwnam(LEARNER)


def readable_by_others(path: Path) -> bool:
    path = path.resolve()
    for part in [path, *path.parents]:
        if not part.stat().st_mode & 0o005:
            return False
    return True


def learner_packages(tmp: Path) -> str:
    """A folder of this environment's packages the learner may read: the site-packages themselves
    when they are open to others, else a copy of what a single-user server needs (not torch)."""
    site = Path(sysconfig.get_paths()["purelib"])
    if readable_by_others(site):
        return str(site)
    copy = tmp / "learner-site"
    heavy = ("torch", "nvidia", "triton", "sympy", "functorch", "torchgen", "playwright", "hypothesis")
    shutil.copytree(site, copy, symlinks=True, ignore=lambda d, names: [n for n in names if n.startswith(heavy)])
    for folder in [copy, *copy.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o755)
    return str(copy)


def course_copy_with_private_masters(tmp: Path) -> Path:
    """What the service grades from: the package and chapter 1's masters, readable by root only."""
    course = tmp / "service-course"
    shutil.copytree(ROOT / "autograder", course / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "solutions" / "01_dynamo_core", course / "solutions" / "01_dynamo_core")
    shutil.copytree(ROOT / "exercises" / "01_dynamo_core", course / "exercises" / "01_dynamo_core")
    shutil.copytree(ROOT / "lessons", course / "lessons", ignore=shutil.ignore_patterns("*.ipynb"))
    for path in (course / "solutions").rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    (course / "solutions").chmod(0o700)
    return course


def wait_for(url: str, deadline: float, headers=None):
    while True:
        try:
            with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5) as response:
                return json.loads(response.read() or b"null")
        except (urllib.error.URLError, OSError, ValueError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def api(url: str, token: str, method="GET", data=None):
    request = urllib.request.Request(url, method=method, data=json.dumps(data).encode() if data is not None else None,
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        body = response.read()
        return response.status, json.loads(body) if body else None


async def run_in_kernel(base: str, token: str, code: str, timeout: float = 300) -> str:
    """Start a kernel on the learner's server, run ``code``, return what it printed (and any error)."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    _, kernel = api(f"{base}api/kernels", token, "POST", {"name": "python3"})
    ws_url = base.replace("http://", "ws://") + f"api/kernels/{kernel['id']}/channels"
    conn = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {token}"}))
    msg_id = uuid.uuid4().hex
    conn.write_message(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "test", "session": uuid.uuid4().hex,
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {}, "allow_stdin": False}}))
    out = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        raw = await asyncio.wait_for(conn.read_message(), timeout=deadline - time.monotonic())
        if raw is None:
            break
        msg = json.loads(raw)
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            out.append(content["text"])
        elif kind in ("execute_result", "display_data"):
            out.append(content["data"].get("text/plain", "") + "\n")
        elif kind == "error":
            out.append(f"ERROR {content['ename']}: {content['evalue']}\n")
        elif kind == "status" and content["execution_state"] == "idle":
            break
    conn.close()
    api(f"{base}api/kernels/{kernel['id']}", token, "DELETE")
    return "".join(out)


HUB_CONFIG = """
import json, os
c = get_config()  # noqa: F821
settings = json.loads(os.environ["HUB_TEST_SETTINGS"])
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = settings["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['proxy_api_port']}"
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.ConfigurableHTTPProxy.pid_file = os.path.join(settings["dir"], "proxy.pid")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(settings["dir"], "hub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(settings["dir"], "cookie_secret")
c.JupyterHub.pid_file = os.path.join(settings["dir"], "hub.pid")
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allowed_users = {settings["learner"]}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [settings["python"], "-m", "jupyterhub.singleuser"]
c.Spawner.notebook_dir = settings["release"]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
c.Spawner.environment = {"PYTHONPATH": settings["pythonpath"], "AUTOGRADER_SERVICE_URL": settings["service_url"],
                         "AUTOGRADER_EXERCISES": os.path.join(settings["release"], "exercises")}
# The server's token may reach the grading service (docs/INSTRUCTORS.md).
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", "access:services!service=grader"]
c.JupyterHub.services = [
    {"name": "grader", "url": f"http://127.0.0.1:{settings['service_port']}", "cwd": settings["course"],
     "command": [settings["service_python"], "-m", "autograder", "classroom", "serve", "--data", settings["data"],
                 "--exercises", "breaks_checkpoint", "--workers", "1"]},
    {"name": "driver", "api_token": settings["driver_token"]},
]
c.JupyterHub.load_roles = [{"name": "user", "scopes": ["self", "access:services!service=grader"]},
                           {"name": "driver", "services": ["driver"],
                            "scopes": ["admin:users", "admin:servers", "access:servers", "access:services", "read:users"]}]
"""


@pytest.fixture(scope="module")
def hub():
    if os.geteuid() != 0:
        pytest.skip("the learner's server runs as a separate Unix user: this test needs root")
    if not Path(SYSTEM_PYTHON).is_file():
        pytest.skip(f"{SYSTEM_PYTHON} (the learner's interpreter, readable by any user) is missing")
    user = ensure_learner_user()
    tmp = Path(tempfile.mkdtemp(prefix="autograder-hub-"))
    tmp.chmod(0o755)
    Path(user.pw_dir).mkdir(parents=True, exist_ok=True)
    os.chown(user.pw_dir, user.pw_uid, user.pw_gid)  # the server writes its runtime files there
    release = Path(user.pw_dir) / f"course-{uuid.uuid4().hex[:8]}"  # one per test process (xdist workers run apart)
    subprocess.run([sys.executable, "-m", "autograder", "classroom", "release", "--out", str(release)], cwd=ROOT, check=True,
                   capture_output=True)
    subprocess.run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(release)], check=True)
    course = course_copy_with_private_masters(tmp)
    port = free_port()
    settings = {"dir": str(tmp), "port": port, "hub_port": free_port(), "proxy_api_port": free_port(),
                "service_port": free_port(), "learner": LEARNER, "python": SYSTEM_PYTHON,
                "pythonpath": os.pathsep.join([str(release), learner_packages(tmp)]),
                "release": str(release), "course": str(course), "data": str(tmp / "grader-data"),
                "service_python": sys.executable, "proxy": str(Path(sys.executable).parent / "configurable-http-proxy"),
                "service_url": f"http://127.0.0.1:{port}/services/grader/", "driver_token": uuid.uuid4().hex}
    (tmp / "jupyterhub_config.py").write_text(HUB_CONFIG)
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_WARM"}
    env["HUB_TEST_SETTINGS"] = json.dumps(settings)
    log = open(tmp / "hub.log", "w")
    process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(tmp / "jupyterhub_config.py")], cwd=tmp,
                               env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{base}/hub/api", time.monotonic() + 120)
        wait_for(f"{base}/services/grader/api/health", time.monotonic() + 120)
        yield {"base": base, "settings": settings, "tmp": tmp, "course": course, "release": release, "user": user}
    finally:
        try:
            api(f"{base}/hub/api/users/{LEARNER}/server", settings["driver_token"], "DELETE")
        except (urllib.error.URLError, OSError):
            pass
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(release, ignore_errors=True)


def test_learner_checks_through_the_service_and_cannot_read_the_masters(hub):
    base, token = hub["base"], hub["settings"]["driver_token"]
    if not _user_exists(base, token):
        api(f"{base}/hub/api/users/{LEARNER}", token, "POST")
    api(f"{base}/hub/api/users/{LEARNER}/server", token, "POST")
    deadline = time.monotonic() + 120
    while not api(f"{base}/hub/api/users/{LEARNER}", token)[1]["servers"].get("", {}).get("ready"):
        assert time.monotonic() < deadline, (hub["tmp"] / "hub.log").read_text()[-4000:]
        time.sleep(0.5)

    master = hub["course"] / "solutions" / "01_dynamo_core" / f"{BC}.py"
    fix = solution_code(load(BC))
    answer = ANSWER_LINE.format(id=BC) + "\n" + (ROOT / "exercises" / "01_dynamo_core" / f"{BC}.py").read_text()
    code = f"""
import os, pwd
print("user:", pwd.getpwuid(os.getuid()).pw_name)
from autograder.format.exercise import EXERCISES, ROOT
print("graded from:", ROOT)
print("solutions in the release:", (ROOT / "solutions").exists())
try:
    open({str(master)!r}).read()
    print("MASTER READ")
except PermissionError:
    print("master unreadable")
try:
    os.listdir({hub["settings"]["data"]!r})
    print("ATTEMPTS LISTED")
except PermissionError:
    print("attempts unreadable")
from autograder.learner.notebook import check, hint
print(repr(check({BC!r})))
from autograder.learner.remote import learner_file
path = learner_file({BC!r})  # the learner's copy in the workspace, made from the starting file by the first check
print("copy:", path)
open(path, "w").write({fix!r})
print(repr(check({BC!r})))
print(hint({BC!r}))
from autograder.classroom.nbgrader_bridge import NotPassed, check_answer
try:
    check_answer({BC!r}, source={answer!r})
except NotPassed as exc:
    print("check cell:", exc)
"""
    output = asyncio.run(run_in_kernel(f"{base}/user/{LEARNER}/", token, code))
    assert f"user: {LEARNER}" in output, output
    assert f"graded from: {hub['release']}" in output and "solutions in the release: False" in output, output
    assert "master unreadable" in output and "MASTER READ" not in output, output
    assert "attempts unreadable" in output, "other learners' attempts are the instructor's"
    assert output.count(f"{BC}: ") >= 2, output
    starter, fixed = output.split(f"{BC}: ", 2)[1:3]
    assert starter.startswith("FAILED") and "torch.save" in starter, output
    assert fixed.startswith("PASSED  5/5"), output
    assert f"copy: {hub['release']}/workspace/exercises/01_dynamo_core/{BC}.py" in output, output
    assert "Hint 1/" in output, output
    assert "check cell: breaks_checkpoint scored 0/5" in output, "an nbgrader check cell is graded by the service too"

    attempts = sorted((Path(hub["settings"]["data"]) / "attempts" / LEARNER / BC).glob("*.json"))
    assert len(attempts) == 3, "the instructor sees every attempt"
    records = [json.loads(p.read_text()) for p in attempts]
    assert [(r["kind"], r["result"]["status"]) for r in records] == [("file", "failed"), ("file", "passed"), ("answer", "failed")]
    assert records[1]["source"] == fix and records[0]["user"] == LEARNER
    status, listed = api(f"{base}/services/grader/api/attempts", token)
    assert status == 200 and len(listed["attempts"]) == 3


def _user_exists(base, token):
    try:
        api(f"{base}/hub/api/users/{LEARNER}", token)
        return True
    except urllib.error.HTTPError:
        return False


def test_the_service_refuses_requests_without_a_hub_token(hub):
    url = f"{hub['base']}/services/grader/api/grade"
    body = {"exercise": BC, "kind": "file", "source": "x = 1\n"}
    for headers in ({}, {"Authorization": "token not-a-real-token"}):
        request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=30)
        assert caught.value.code == 403
