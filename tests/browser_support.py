"""What the real-browser tests (tests/test_browser.py) stand on: Debian's Chromium driven by
Playwright, a JupyterLab server of their own, and the few JupyterLab steps a person takes.

Nothing here touches the repository except ``test-artifacts/browser/`` (git-ignored screenshots and
server logs). Servers run on a free loopback port with a random token, in a scratch copy of the
course, with their own Jupyter data, runtime and settings directories.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = Path("/usr/bin/chromium")
# Flags that work on the reference machine (no GPU, no sandbox as root, no network beyond loopback).
# Playwright adds --headless itself; the fresh --user-data-dir is launch_persistent_context's argument.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]
VIEWPORT = {"width": 1400, "height": 900}
# What the course needs from the repository to run a lesson and grade exercises (ROOT-relative).
COURSE_TREE = ["autograder", "lessons", "exercises", "solutions"]


# -- Chromium --------------------------------------------------------------------------------------

def ensure_chromium() -> Path:
    """/usr/bin/chromium, installed with apt when missing and possible (.ci/run installs it first).

    Where it cannot be installed (not root, no apt), the tests fail under CI (``CI`` set) and are
    skipped with the reason elsewhere, so a learner's ``./course test`` on a laptop is not blocked.
    """
    if not CHROMIUM.exists() and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        install = ["apt-get", "install", "-y", "-q", "chromium"]
        if subprocess.run(install, env=env, capture_output=True, timeout=600).returncode != 0:
            subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=600)
            subprocess.run(install, env=env, capture_output=True, timeout=600)
    if CHROMIUM.exists():
        return CHROMIUM
    why = f"{CHROMIUM} is missing and could not be installed (apt-get install chromium, as root)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


@contextmanager
def chromium_page(user_data_dir: Path):
    """One headless Chromium page, in a fresh profile under ``user_data_dir``."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(user_data_dir), executable_path=str(ensure_chromium()), args=CHROMIUM_FLAGS, headless=True,
            viewport=VIEWPORT, accept_downloads=False)
        try:
            context.set_default_timeout(30_000)
            page = context.pages[0] if context.pages else context.new_page()
            yield page
        finally:
            context.close()


class Shots:
    """Numbered screenshots of one test's steps, under test-artifacts/browser/TEST/."""

    def __init__(self, name: str):
        self.dir = ARTIFACTS / name
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.count = 0

    def __call__(self, page, step: str, full_page: bool = False) -> Path:
        self.count += 1
        path = self.dir / f"{self.count:02d}-{step}.png"
        try:
            page.screenshot(path=str(path), full_page=full_page, timeout=15_000)
        except Exception as exc:  # a screenshot is evidence, never the reason a test fails
            print(f"screenshot {path.name} failed: {exc}", file=sys.stderr)
        return path

    @contextmanager
    def on_failure(self, page):
        """A last screenshot, ``NN-FAILED.png``, of whatever the page shows when a step fails."""
        try:
            yield
        except BaseException:
            self(page, "FAILED")
            raise


# -- JupyterLab server -----------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def copy_course(dest: Path) -> Path:
    """A scratch copy of the course (no notebooks, caches or progress) that the test may edit."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.ipynb", ".ipynb_checkpoints")
    for name in COURSE_TREE:
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    return dest


def copy_course_as_clone(dest: Path) -> Path:
    """A copy of the course as a learner's clone: the tree ``./course`` serves, its own script and
    Jupyter configuration, committed to a git repository of its own, so that a test can prove the
    session left ``git status`` clean."""
    copy_course(dest)
    for name in ("course", ".jupyter", ".gitignore", "pyproject.toml", "README.md"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name)
        else:
            shutil.copy2(source, dest / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run([*git, "-C", str(dest), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(dest), "commit", "-q", "-m", "course"], check=True)
    return dest


def git_status(course: Path) -> str:
    return subprocess.run(["git", "-C", str(course), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout


def learner_environment(scratch: Path, course: Path) -> dict:
    """A new learner's environment: a fresh HOME (no Jupyter settings, no kernels of their own), the
    course's Python (COURSE_PYTHON, which ./course documents, instead of a .venv built in the copy)
    and the copy's autograder ahead of the editable install (PYTHONPATH)."""
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON", "AUTOGRADER_", "COURSE_"))}
    env.update({"HOME": str(home), "COURSE_PYTHON": sys.executable, "PYTHONPATH": str(course),
                "PYTHONDONTWRITEBYTECODE": "1"})
    return env


def make_lesson_notebooks(course: Path) -> list[Path]:
    """What ``./course start`` does before it opens JupyterLab: a paired .ipynb for each lesson."""
    made = []
    for lesson in sorted((course / "lessons").glob("[0-9][0-9]*_*.py")):
        subprocess.run([sys.executable, "-m", "jupytext", "--quiet", "--to", "ipynb", "--set-formats",
                        "ipynb,py:percent", str(lesson)], cwd=course, check=True, capture_output=True, timeout=120)
        made.append(lesson.with_suffix(".ipynb"))
    return made


def jupyter_environment(scratch: Path, pythonpath: Path | None = None) -> dict:
    """Environment of a test server: its own Jupyter dirs, a ``python3`` kernel bound to this
    interpreter (ahead of any user-level one), no news or update checks, progress kept in ``scratch``."""
    data = scratch / "jupyter-data"
    kernel = data / "kernels" / "python3"
    kernel.mkdir(parents=True, exist_ok=True)
    (kernel / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (ipykernel)", "language": "python", "metadata": {"debugger": True}}))
    settings = scratch / "lab-settings"
    notification = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text(json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON"))}
    env.update({
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        "JUPYTER_PATH": str(data),
        "JUPYTER_RUNTIME_DIR": str(scratch / "jupyter-runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(scratch / "lab-workspaces"),
        "IPYTHONDIR": str(scratch / "ipython"),
        "AUTOGRADER_STATE": str(scratch / "progress.json"),
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    if pythonpath is not None:  # the kernel imports the copy's autograder, which grades the copy's files
        env["PYTHONPATH"] = str(pythonpath)
    return env


class JupyterLab:
    """``jupyter lab`` on a free loopback port with a random token, started and stopped by the test."""

    def __init__(self, root_dir: Path, env: dict, log: Path, launcher: list[str] | None = None):
        """``launcher``: how to start it (default ``python -m jupyter lab``, run in ``root_dir``); the
        server options are appended to it, as ``./course start`` passes its arguments to JupyterLab."""
        self.root_dir, self.env, self.log_path = root_dir, env, log
        self.launcher = launcher or [sys.executable, "-m", "jupyter", "lab"]
        self.add_allow_root = launcher is None and os.geteuid() == 0  # ./course start adds it itself
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.started_in = None

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path: str, method: str = "GET"):
        request = urllib.request.Request(self.url(path), method=method)
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def start(self, timeout: float = 120) -> "JupyterLab":
        command = [*self.launcher, "--no-browser", "--ip", "127.0.0.1",
                   "--port", str(self.port), "--port-retries", "0", "--IdentityProvider.token", self.token,
                   "--ServerApp.root_dir", str(self.root_dir), "--LabApp.news_url", "",
                   "--LabApp.check_for_updates_class", "jupyterlab.NeverCheckForUpdate"]
        if self.add_allow_root:
            command.append("--allow-root")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        began = time.monotonic()
        self.process = subprocess.Popen(command, cwd=self.root_dir, env=self.env, stdout=self._log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        while time.monotonic() - began < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                self.api("api/status")
                self.started_in = time.monotonic() - began
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        """Shut down its kernels through the API, then the server and anything left in its process group."""
        if self.process is None:
            return
        try:
            for kernel in self.api("api/kernels") or []:
                self.api(f"api/kernels/{kernel['id']}", method="DELETE")
        except Exception:
            pass
        for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        self._log.close()
        self.process = None

    def __enter__(self):
        return self if self.process is not None else self.start()

    def __exit__(self, *exc):
        self.stop()


class CourseStart(JupyterLab):
    """``./course start`` exactly as the README says: no server flags; the port and token come from
    COURSE_PORT and COURSE_TOKEN, and COURSE_NO_BROWSER=1 keeps it from opening a browser (all three
    documented in ./course). ``printed_url`` is the URL it printed for the learner."""

    def __init__(self, course: Path, env: dict, log: Path):
        super().__init__(course, env, log, launcher=[str(course / "course"), "start"])
        self.printed_url = None

    def start(self, timeout: float = 120) -> "CourseStart":
        env = {**self.env, "COURSE_PORT": str(self.port), "COURSE_TOKEN": self.token, "COURSE_NO_BROWSER": "1"}
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        began = time.monotonic()
        self.process = subprocess.Popen(self.launcher, cwd=self.root_dir, env=env, stdout=self._log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        while time.monotonic() - began < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"./course start exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                self.api("api/status")
                self.started_in = time.monotonic() - began
                printed = re.search(r"^\s*(http://\S+/lab/tree/\S+)$", self.log_path.read_text(errors="replace"), re.M)
                self.printed_url = printed[1] if printed else None
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"./course start did not answer within {timeout:.0f} s:\n{self.log_tail()}")


# -- JupyterLab UI steps ---------------------------------------------------------------------------

def open_lab(page, lab: JupyterLab, path: str = "", timeout: float = 90_000) -> None:
    """Load JupyterLab (at ``lab/tree/PATH``) and wait until its shell is up."""
    page.goto(lab.url(f"lab/tree/{path}" if path else "lab"), wait_until="domcontentloaded", timeout=timeout)
    page.wait_for_selector("#jp-main-dock-panel", state="visible", timeout=timeout)
    page.wait_for_selector("#jp-menu-panel, .lm-MenuBar", state="visible", timeout=timeout)


def menu(page, top: str, item: str) -> None:
    """Click a main-menu item, as a person does: the menu bar entry, then the entry in the menu."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(rf"^{re.escape(top)}$")).first.click()
    entry = page.locator(".lm-Menu-content .lm-Menu-item:visible", has=page.locator(
        ".lm-Menu-itemLabel", has_text=re.compile(rf"^{re.escape(item)}$")))
    entry.first.click()


def wait_kernel_idle(page, timeout: float = 120_000) -> None:
    """Until the current notebook's kernel is connected and idle (the toolbar's execution indicator)."""
    page.wait_for_function(
        """() => {
            const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
            const ind = panel && panel.querySelector('.jp-Notebook-ExecutionIndicator');
            return ind && ind.getAttribute('data-status') === 'idle';
        }""", timeout=timeout)


# textContent, not innerText: cells off screen are skipped by content-visibility and have no innerText.
CELLS_JS = """() => {
    const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
    if (!panel) return [];
    return Array.from(panel.querySelectorAll('.jp-Notebook .jp-Cell.jp-CodeCell')).map((cell) => {
        const prompt = cell.querySelector('.jp-InputArea-prompt');
        const lines = Array.from(cell.querySelectorAll('.jp-InputArea-editor .cm-line')).map((l) => l.textContent);
        const outputs = Array.from(cell.querySelectorAll('.jp-OutputArea-output')).map((o) => ({
            mime: o.getAttribute('data-mime-type') || '',
            result: o.classList.contains('jp-OutputArea-executeResult'),
            text: o.textContent,
        }));
        return {prompt: prompt ? prompt.textContent.trim() : '', source: lines.join('\\n'), outputs};
    });
}"""


def code_cells(page) -> list[dict]:
    """Each code cell of the notebook on screen: its prompt (``[12]:``), source and outputs as shown."""
    return page.evaluate(CELLS_JS)


def wait_until_run(page, timeout: float) -> list[dict]:
    """Until no cell is queued or running (no ``[*]`` prompt) and the kernel is idle; the cells then."""
    page.wait_for_function(
        f"""() => {{
            const cells = ({CELLS_JS})();
            const ind = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator');
            return cells.length > 0 && !cells.some((c) => c.prompt.includes('*'))
                && ind && ind.getAttribute('data-status') === 'idle';
        }}""", timeout=timeout, polling=1000)
    return code_cells(page)


# An exception raised by a cell, as IPython shows it: the traceback starts in the cell ("Cell In[7],
# line 3"). A traceback that a cell merely prints (the lesson runs broken exercise files) has none.
CELL_ERROR = re.compile(r"Traceback \(most recent call last\)\s*\n\s*Cell In\[\d+\], line \d+")


def describe_failures(cells: list[dict]) -> list[str]:
    """Cells that did not run (no execution count) or that show an exception, for a message."""
    problems = []
    for index, cell in enumerate(cells):
        shown = "\n".join(o["text"] for o in cell["outputs"])
        if not re.fullmatch(r"\[\d+\]:", cell["prompt"]):
            problems.append(f"code cell {index} did not run (prompt {cell['prompt']!r}): {cell['source'][:80]!r}")
        elif CELL_ERROR.search(shown):
            problems.append(f"code cell {index} raised:\n{cell['source'][:300]}\n---\n{shown[-1500:]}")
    return problems


def saved_errors(notebook_path: Path) -> list[str]:
    """The error outputs (and cells without an execution count) of a notebook as saved on disk."""
    notebook = json.loads(notebook_path.read_text())
    problems = []
    for index, cell in enumerate(c for c in notebook["cells"] if c["cell_type"] == "code"):
        source = "".join(cell["source"])[:80]
        if not cell.get("execution_count"):
            problems.append(f"code cell {index} has no execution count: {source!r}")
        for output in cell.get("outputs", []):
            if output["output_type"] == "error":
                problems.append(f"code cell {index} ({source!r}) raised {output['ename']}: {output['evalue']}")
    return problems


def output_of(cells: list[dict], source_fragment: str) -> str:
    """All output text of the one code cell whose source contains ``source_fragment``."""
    matches = [c for c in cells if source_fragment in c["source"]]
    assert len(matches) == 1, f"expected one cell containing {source_fragment!r}, found {len(matches)}"
    return "\n".join(o["text"] for o in matches[0]["outputs"])
