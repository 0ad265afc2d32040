"""The course in a real browser: JupyterLab for the learner, nbgrader's extensions for the instructor.

Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright). The repository is never written
to, except the screenshots and server logs in test-artifacts/browser/ (git-ignored). Select these
tests alone with ``pytest -m browser``; CI runs them with the rest (.ci/run installs chromium first).
See tests/browser_support.py for the server and UI steps.

Learner path: the course is started exactly as the README says, ``./course start`` (in a copy of the
course committed to a git repository of its own; port and token from COURSE_PORT/COURSE_TOKEN, which
./course documents). Every link of every lesson notebook and of the two index pages, as the server
serves them, opens a file. The URL ./course printed opens lesson 1 on a live kernel, without
nbgrader's instructor tools or the news pop-up. The lesson's first exercise link opens the
learner's copy in JupyterLab's editor; the check cell shows FAILED; the reference fix is pasted in
the editor and saved; the check cell, run again, shows PASSED; and ``git status`` of the course is
still clean. (The lessons running top to bottom is tests/test_lessons.py's job, not this one's.)

Instructor path: a course made by ``python -m autograder nbgrader build``; formgrader lists its
assignments, generates and releases one; in JupyterLab the Nbgrader menu, the Assignments list
(showing the released assignment) and the Validate button work.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

import browser_support as bs
from conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = "workspace/lessons/01_dynamo_core.ipynb"
EXERCISE_ID = "trace_tolist"  # the first exercise of lesson 1
EXERCISE_LINK = f"exercises/01_dynamo_core/{EXERCISE_ID}.py"  # the link's text in the lesson
COPY = f"workspace/{EXERCISE_LINK}"  # what the link opens: the learner's copy
VERDICT = re.compile(r"[a-z][a-z0-9_]*: (PASSED|FAILED|ERROR)\s+\d+/\d+")
# Bounds, generous for a loaded 2-core machine.
START_S, LOAD_MS, RUN_MS, CHECK_MS = 240, 120_000, 300_000, 180_000


@pytest.fixture(scope="session")
def browser_ready():
    """Chromium present (installed with apt when missing, see ensure_chromium) and Playwright importable."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        why = "playwright is not installed (pip install -e . installs it)"
        pytest.fail(why) if os.environ.get("CI") else pytest.skip(why)
    return bs.ensure_chromium()


def no_error_dialog(page, step: str) -> None:
    """JupyterLab reports load/save/kernel failures in a modal dialog: none may be open."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count() and dialog.first.is_visible():
        pytest.fail(f"{step}: JupyterLab shows a dialog:\n{dialog.first.inner_text()[:3000]}")


def code_cell(page, source_fragment: str):
    """The code cell (of the notebook on screen) whose source contains ``source_fragment``."""
    editor = page.locator(".jp-InputArea-editor", has_text=source_fragment)
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell").filter(has=editor)


def wait_notebook_ready(page, code_cells: int, step: str) -> None:
    """Until the notebook shows all its code cells and its kernel (not "No Kernel") is idle; fails at
    once if JupyterLab shows a dialog instead (a load error, a kernel that cannot start)."""
    page.wait_for_function(
        """(n) => {
            if (document.querySelector('.jp-Dialog')) return true;
            const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
            if (!panel || panel.querySelectorAll('.jp-Notebook .jp-CodeCell').length !== n) return false;
            const name = panel.querySelector('.jp-KernelName');
            const ind = panel.querySelector('.jp-Notebook-ExecutionIndicator');
            return name && /\\S/.test(name.textContent) && !/No Kernel/.test(name.textContent)
                && ind && ind.getAttribute('data-status') === 'idle';
        }""", arg=code_cells, timeout=LOAD_MS, polling=500)
    no_error_dialog(page, step)


def show(locator) -> None:
    """Scroll the notebook so that ``locator`` (a cell) starts at the top of the view."""
    for _ in range(3):  # cells above it render on the way and change height (content-visibility): again
        locator.evaluate("(element) => element.scrollIntoView({block: 'start'})")
        locator.page.wait_for_timeout(300)


def save(page, tab: str, step: str) -> None:
    """Ctrl+S, as a person saves, then wait until the tab is no longer marked as modified."""
    page.keyboard.press("Control+s")
    dirty = page.locator(".lm-TabBar-tab.jp-mod-dirty", has_text=tab)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        no_error_dialog(page, step)
        if dirty.count() == 0:
            return
        time.sleep(0.3)
    no_error_dialog(page, step)
    pytest.fail(f"{step}: {tab} is still marked as modified 30 s after Ctrl+S")


def paste(page, text: str) -> None:
    """Paste ``text`` at the editor's cursor: through the real clipboard and Ctrl+V."""
    page.evaluate("(text) => navigator.clipboard.writeText(text)", text)
    page.keyboard.press("Control+v")


# -- learner ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def course_started(tmp_path_factory):
    """The copy of the course, served by its own ``./course start``; stopped after the module."""
    scratch = tmp_path_factory.mktemp("learner")
    course = bs.copy_course_as_clone(scratch / "course")
    lab = bs.CourseStart(course, bs.learner_environment(scratch, course), bs.ARTIFACTS / "learner-server.log")
    with lab.start(timeout=START_S):
        yield lab, course, scratch


def served_documents(lab) -> list[tuple[str, str]]:
    """(path, Markdown text) of every page a learner reads in the workspace, as the server sends it:
    each lesson notebook's Markdown cells and the two index pages."""
    documents = []
    for folder in ("workspace/lessons", "workspace/exercises"):
        for item in lab.api(f"api/contents/{folder}")["content"]:
            if item["type"] == "notebook":
                notebook = lab.api(f"api/contents/{item['path']}?content=1")["content"]
                text = "\n".join(cell["source"] for cell in notebook["cells"] if cell["cell_type"] == "markdown")
                documents.append((item["path"], text))
            elif item["name"] == "README.md":
                documents.append((item["path"], lab.api(f"api/contents/{item['path']}?content=1&format=text")["content"]))
    return documents


def test_every_link_a_learner_sees_opens_its_file(course_started):
    from autograder.learner.workspace import relative_links

    lab, course, _ = course_started
    documents = served_documents(lab)
    assert {"workspace/lessons/README.md", "workspace/exercises/README.md", LESSON} <= {path for path, _ in documents}
    broken, followed = [], 0
    for path, text in documents:
        for target in relative_links(text):
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            try:
                lab.api(f"api/contents/{urllib.parse.quote(resolved)}?content=0")
                followed += 1
            except urllib.error.HTTPError as exc:
                broken.append(f"{path}: [{target}] -> {resolved}: HTTP {exc.code}")
    assert not broken, "links that do not open:\n" + "\n".join(broken)
    assert followed >= 2 * len(documents), f"only {followed} links followed in {len(documents)} pages"


def test_only_the_workspace_is_writable_in_the_courses_jupyterlab(course_started):
    lab, course, _ = course_started

    def put(path: str) -> tuple[int, str]:
        body = json.dumps({"type": "file", "format": "text", "content": "edited\n"}).encode()
        request = urllib.request.Request(lab.url(f"api/contents/{path}"), data=body, method="PUT",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, ""
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}").get("message", "")

    before = (course / "lessons" / "01_dynamo_core.py").read_text()
    for tracked in ("lessons/01_dynamo_core.py", "exercises/01_dynamo_core/trace_tolist.py", "workspace/../README.md", "scratch.txt"):
        code, message = put(tracked)
        assert code == 403 and "read-only" in message and "workspace/" in message, (tracked, code, message)
    assert (course / "lessons" / "01_dynamo_core.py").read_text() == before and not (course / "scratch.txt").exists()
    assert put("workspace/scratch.txt")[0] in (200, 201) and (course / "workspace" / "scratch.txt").read_text() == "edited\n"
    (course / "workspace" / "scratch.txt").unlink()


def run_in_lab_terminal(lab, command: str, until: str, timeout: float = 120) -> str:
    """Type ``command`` into a new JupyterLab terminal (as the learner does) and return what the
    terminal shows once ``until`` appears in it."""
    import asyncio

    from tornado.websocket import websocket_connect

    name = json.loads(urllib.request.urlopen(urllib.request.Request(lab.url("api/terminals"), method="POST", data=b""),
                                             timeout=30).read())["name"]

    async def talk():
        socket = await websocket_connect(lab.url(f"terminals/websocket/{name}").replace("http://", "ws://"))
        socket.write_message(json.dumps(["stdin", command + "\r"]))
        shown = ""
        deadline = time.monotonic() + timeout
        while until not in shown and time.monotonic() < deadline:
            message = await asyncio.wait_for(socket.read_message(), timeout=max(1, deadline - time.monotonic()))
            if message is None:
                break
            kind, *payload = json.loads(message)
            if kind == "stdout":
                shown += payload[0]
        socket.close()
        return shown

    try:
        return asyncio.run(talk())
    finally:
        lab.api(f"api/terminals/{name}", method="DELETE")


def test_the_learners_commands_work_in_jupyterlabs_terminal(course_started):
    lab, course, _ = course_started
    shown = run_in_lab_terminal(lab, "course hint trace_tolist; python -m autograder progress | tail -n 1; echo DONE-$((6*7))",
                                until="DONE-42")
    assert "Hint 1/" in shown and re.search(r"^all\s+\d+/\d+", shown, re.M), shown
    assert "Traceback" not in shown and "No module named" not in shown, shown


def no_nbgrader_or_news(page) -> None:
    """The learner's JupyterLab has none of nbgrader's instructor UI and no news pop-up."""
    page.wait_for_timeout(3000)  # the news question appears a moment after the shell
    assert page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).count() == 0
    assert page.locator(".lm-TabBar-tab", has_text="Create Assignment").count() == 0
    assert page.locator(".jp-NotebookPanel-toolbar .jp-Toolbar-item", has_text=re.compile(r"^\s*Validate\s*$")).count() == 0
    assert page.get_by_text(re.compile("Jupyter news", re.I)).count() == 0


def test_learner_opens_lesson_1_fixes_the_first_exercise_and_passes(course_started, browser_ready):
    from playwright.sync_api import expect

    from autograder.format.exercise import load, solution_view

    lab, course, scratch = course_started
    shot = bs.Shots("learner")
    fix = solution_view(load(EXERCISE_ID))
    starter = (course / COPY).read_text()
    assert lab.printed_url and f"/lab/tree/{LESSON}?" in lab.printed_url, lab.log_tail()
    with bs.chromium_page(scratch / "chromium-profile") as page, shot.on_failure(page):
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.base)

        # 1. The URL ./course start printed: lesson 1, on a live kernel, no instructor tools, no news.
        page.goto(lab.printed_url, wait_until="domcontentloaded", timeout=LOAD_MS)
        page.locator(".lm-TabBar-tab.jp-mod-current", has_text="01_dynamo_core.ipynb").wait_for(timeout=LOAD_MS)
        bs.wait_kernel_idle(page, timeout=LOAD_MS)
        no_error_dialog(page, "opening lesson 1")
        no_nbgrader_or_news(page)
        assert "nbgrader_config" not in lab.log_tail(1000), lab.log_tail(1000)  # no "No nbgrader_config.py" warnings
        shot(page, "lesson-1-opened")

        # 2. Run the lesson up to the first check cell: the exercise fails.
        check_cell = code_cell(page, f'check("{EXERCISE_ID}")')
        show(check_cell)
        check_cell.locator(".jp-InputArea-editor").click()
        bs.menu(page, "Run", "Run All Above Selected Cell")
        check_cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        verdict = check_cell.locator(".jp-OutputArea-output", has_text=VERDICT)
        verdict.first.wait_for(timeout=RUN_MS)
        no_error_dialog(page, "running lesson 1 up to the first check")
        shown = verdict.first.text_content()
        assert f"{EXERCISE_ID}: FAILED" in shown, shown
        assert "Tensor.tolist()" in shown and "Lesson section 1.1" in shown, shown
        assert check_cell.locator(".jp-OutputArea-output details").count() >= 1  # rich output, details folded
        assert "terminal" not in shown and "./course" not in shown, shown
        show(check_cell)
        shot(page, "check-failed")

        # 3. The lesson's first exercise link opens the learner's copy in JupyterLab's editor.
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown a", has_text=EXERCISE_LINK).first.click()
        editor = page.locator(".jp-FileEditor:visible .cm-content")
        expect(editor).to_contain_text("weights.tolist()", timeout=LOAD_MS)
        no_error_dialog(page, "opening the exercise from the lesson's link")
        shot(page, "exercise-opened")

        # 4. Edit it there, as a person does: select all, paste the fix, Ctrl+S.
        editor.click()
        page.keyboard.press("Control+a")
        paste(page, fix)
        save(page, f"{EXERCISE_ID}.py", "saving the exercise")
        saved = (course / COPY).read_text()
        assert saved != starter and saved.strip() == fix.strip(), f"the editor saved:\n{saved}"
        shot(page, "exercise-saved")

        # 5. Back in the lesson, run the check cell again (Shift+Enter): it passes.
        page.locator(".lm-TabBar-tab", has_text="01_dynamo_core.ipynb").click()
        check_cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        try:
            check_cell.locator(".jp-OutputArea-output", has_text=f"{EXERCISE_ID}: PASSED").wait_for(timeout=CHECK_MS)
        finally:
            show(check_cell)
            shot(page, "check-passed")
        page.keyboard.press("Escape")
        save(page, "01_dynamo_core.ipynb", "saving the lesson notebook")

    # 6. The learner's session changed no file of the course: git status is clean.
    assert bs.git_status(course) == "", "the session changed tracked files:\n" + bs.git_status(course)
    assert (course / LESSON).is_file() and f"{EXERCISE_ID}: PASSED" in (course / LESSON).read_text()
    print(f"\nlearner path: ./course start answered in {lab.started_in:.1f} s; screenshots in {shot.dir.relative_to(ROOT)}")


# -- instructor ------------------------------------------------------------------------------------

def build_nbgrader_course(out):
    """The course as ``python -m autograder nbgrader build`` makes it: one exercise per chapter, so
    every chapter is an assignment and validating one stays quick."""
    listing = subprocess.run([sys.executable, "-m", "autograder", "list", "--json"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
    assert listing.returncode == 0, listing.stderr
    first = {}
    for exercise in json.loads(listing.stdout):
        first.setdefault(exercise["chapter"], exercise["id"])
    proc = subprocess.run([sys.executable, "-m", "autograder", "nbgrader", "build", "--out", str(out),
                           "--exercises", ",".join(first.values())],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, f"nbgrader build failed:\n{proc.stdout}\n{proc.stderr}"
    assignments = sorted(p.name for p in (out / "source").iterdir() if p.is_dir())
    assert len(assignments) == len(first)
    return assignments


def formgrader_modal(page, step: str, timeout: float = 120_000) -> str:
    """Wait for formgrader's result modal after an action, return its text and close it."""
    modal = page.locator(".modal.in:visible, .modal.show:visible").filter(has_text=re.compile("Success|Error"))
    modal.first.wait_for(timeout=timeout)
    text = modal.first.inner_text()
    modal.first.locator("button", has_text=re.compile(r"^\s*(OK|Close)\s*$")).last.click()
    modal.first.wait_for(state="hidden")
    assert "Success" in text, f"{step}: formgrader says:\n{text[:3000]}"
    return text


def test_instructor_formgrader_assignment_list_and_validate(browser_ready, tmp_path):
    shot = bs.Shots("instructor")
    course = tmp_path / "nbgrader-course"
    assignments = build_nbgrader_course(course)
    first = assignments[0]
    (course / "exchange").mkdir(exist_ok=True)  # the generated config makes it too, when nbgrader loads it

    # Started in the course directory (nbgrader reads nbgrader_config.py from there), as instructors do;
    # PYTHONPATH makes the course's autograder importable in its kernels and in validation.
    env = bs.jupyter_environment(tmp_path, pythonpath=ROOT)
    lab = bs.JupyterLab(course, env, shot.dir / "jupyterlab.log")
    with lab.start(timeout=START_S), bs.chromium_page(tmp_path / "chromium-profile") as page, \
            shot.on_failure(page):
        # 1. Formgrader lists every assignment of the built course.
        page.goto(lab.url("formgrader"), wait_until="domcontentloaded")
        rows = page.locator("table tbody tr", has=page.locator("td.name"))
        rows.first.wait_for(timeout=LOAD_MS)
        listed = sorted(rows.locator("td.name").all_inner_texts())
        shot(page, "formgrader-assignments")
        assert [name.strip() for name in listed] == assignments

        # 2. Generate the student version of the first assignment, then release it.
        row = page.locator("table tbody tr", has=page.locator("td.name", has_text=first))
        row.locator("td.assign a").click()
        formgrader_modal(page, f"generating {first}")
        row.locator("td.release a").wait_for()
        row.locator("td.release a").click()
        formgrader_modal(page, f"releasing {first}")
        row.locator("td.status", has_text="released").wait_for()
        shot(page, "formgrader-released")

        # 3. JupyterLab with the source notebook: the Nbgrader menu, Create Assignment, Validate.
        bs.open_lab(page, lab, f"source/{first}/{first}.ipynb")
        panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
        panel.locator(".jp-Cell").first.wait_for(timeout=LOAD_MS)
        bs.wait_kernel_idle(page, timeout=LOAD_MS)
        assert page.locator(".lm-MenuBar-itemLabel", has_text=re.compile("^Nbgrader$")).count() == 1
        assert page.locator(".lm-TabBar-tab", has_text="Create Assignment").count() == 1
        validate = panel.locator(".jp-Toolbar-item", has_text=re.compile(r"^\s*Validate\s*$"))
        assert validate.count() == 1
        shot(page, "lab-source-notebook")

        # 4. Nbgrader > Assignment List: the assignment-list extension shows the released assignment.
        bs.menu(page, "Nbgrader", "Assignment List")
        listing = page.locator(".nbgrader-mainarea-widget:visible")
        listing.get_by_text("Released assignments").wait_for(timeout=LOAD_MS)
        listing.get_by_text(first, exact=True).first.wait_for(timeout=LOAD_MS)
        shot(page, "assignment-list")

        # 5. Validate the source notebook (the reference answers): the validate extension says it passes.
        page.locator(".lm-TabBar-tab", has_text=f"{first}.ipynb").click()
        validate.click()
        result = page.locator(".jp-Dialog", has_text="Validation Results")
        try:
            result.wait_for(timeout=CHECK_MS)
        finally:
            shot(page, "validate-result")
        text = result.inner_text()
        assert "Success! Your notebook passes all the tests." in text, text
        result.locator("button", has_text="Ok").click()
