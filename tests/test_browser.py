"""The course in a real browser: JupyterLab for the learner, nbgrader's extensions for the instructor.

Headless Chromium (Debian's /usr/bin/chromium, driven by Playwright) against a JupyterLab server the
test starts on a free loopback port with a random token, in a scratch copy of the course; the
repository is never written to, except the screenshots and server logs in test-artifacts/browser/
(git-ignored). Select these tests alone with ``pytest -m browser``; CI runs them with the rest
(.ci/run installs chromium first). See tests/browser_support.py for the server and UI steps.

Learner path: ``./course start`` (the copy's own script) opens JupyterLab; lesson 1 and the course
home page open; Run All Cells runs every cell with no error and shows the counts the lesson states;
the ``check("breaks_checkpoint")`` cell shows the failure and why the graph broke; the reference fix
is pasted into the exercise in JupyterLab's editor and saved; the check, run again, passes; the
notebook saves.

Instructor path: a course made by ``python -m autograder nbgrader build``; formgrader lists its
assignments, generates and releases one; in JupyterLab the Nbgrader menu, the Assignments list
(showing the released assignment) and the Validate button work.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

import browser_support as bs
from conftest import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LESSON = "lessons/01_dynamo_core.ipynb"
EXERCISE_ID = "breaks_checkpoint"
EXERCISE = f"exercises/01_dynamo_core/{EXERCISE_ID}.py"
# Live counts lesson 1 states (and asserts) in its cells: (a line of the cell's source, text its output shows).
STATED_COUNTS = [
    ("import torch", "2.13.0"),  # the kernel runs the course's torch
    ("def report(x):", "2 graph(s), 1 graph break(s), 0 recompile(s), 1/1 calls ran compiled code"),
    ("def report(x):", "ops per graph: [2, 2]"),
    ("def gate(x):", "3 graph(s), 1 graph break(s)"),
    ("def bump(x):", "guards for bump(x): 8"),
    ("def blend(a, b, alpha):", "guards for blend(a, b, alpha): 10"),
    ("def track(x):", "8 graph(s), 0 graph break(s), 7 recompile(s), 8/12 calls ran compiled code"),
    ("def rms_norm(x):", "dynamic=None : 2 graph(s)"),
    ("def rms_norm(x):", "dynamic=True : 1 graph(s)"),
    ("def rms_norm(x):", "dynamic=False: 6 graph(s)"),
]
VERDICT = re.compile(r"^(?P<id>[a-z][a-z0-9_]*): (?P<status>PASSED|FAILED|ERROR)\s+\d+/\d+", re.M)
# Bounds, generous for a loaded 2-core machine (lesson 1 runs in 60-120 s there).
START_S, LOAD_MS, RUN_ALL_MS, CHECK_MS = 240, 120_000, 600_000, 180_000


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

def test_learner_runs_lesson_1_fails_a_check_and_fixes_it(browser_ready, tmp_path):
    import jupytext
    from playwright.sync_api import expect

    from autograder.format.exercise import load, solution_view

    shot = bs.Shots("learner")
    course = bs.copy_course(tmp_path / "course")
    (course / "course").write_bytes((ROOT / "course").read_bytes())
    (course / "course").chmod(0o755)
    starter = (course / EXERCISE).read_text()
    fix = solution_view(load(EXERCISE_ID))
    n_code = sum(c.cell_type == "code" for c in jupytext.read(course / "lessons" / "01_dynamo_core.py").cells)

    # The copy's autograder grades the copy's files (PYTHONPATH puts it ahead of the editable install);
    # COURSE_PYTHON makes ./course use this interpreter instead of building a .venv in the copy.
    env = bs.jupyter_environment(tmp_path, pythonpath=course)
    env["COURSE_PYTHON"] = sys.executable
    lab = bs.JupyterLab(course, env, shot.dir / "jupyterlab.log", launcher=[str(course / "course"), "start"])
    with lab.start(timeout=START_S), bs.chromium_page(tmp_path / "chromium-profile") as page, \
            shot.on_failure(page):
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.base)

        # 1. What ./course start opens: lesson 1 as a notebook, on a live kernel.
        bs.open_lab(page, lab, LESSON)
        wait_notebook_ready(page, n_code, "opening lesson 1")
        no_error_dialog(page, "opening lesson 1")
        shot(page, "lesson-1-opened")

        # 2. The course home page, from the file browser: Open With > Markdown Preview.
        page.locator(".jp-DirListing-item", has_text="README.md").first.click(button="right")
        page.locator(".lm-Menu-item:visible", has_text="Open With").first.hover()
        page.locator(".lm-Menu-item:visible", has_text="Markdown Preview").first.click()
        home = page.locator(".jp-RenderedMarkdown:visible").first
        home.locator("h1", has_text="The course").wait_for()
        assert home.locator("h2", has_text="1 Dynamo core concepts").count() == 1
        assert home.locator("a", has_text=EXERCISE_ID).count() >= 1
        shot(page, "course-home-page")
        page.locator(".lm-TabBar-tab", has_text="01_dynamo_core.ipynb").click()

        # 3. Run > Run All Cells, then every code cell has run, without an error.
        started = time.monotonic()
        bs.menu(page, "Run", "Run All Cells")
        page.wait_for_function(f"() => ({bs.CELLS_JS})().some((c) => /\\[[*\\d]/.test(c.prompt))", timeout=30_000)
        shot(page, "run-all-started")
        try:
            cells = bs.wait_until_run(page, timeout=RUN_ALL_MS)
        finally:
            shot(page, "run-all-finished")
        run_all_s = time.monotonic() - started
        no_error_dialog(page, "running all cells")
        problems = bs.describe_failures(cells)
        assert not problems, "lesson 1 did not run cleanly in JupyterLab:\n" + "\n".join(
            problems[:5] + [f"... and {len(problems) - 5} more"] * (len(problems) > 5))
        save(page, "01_dynamo_core.ipynb", "saving the lesson notebook after Run All")  # as autosave would
        problems = bs.saved_errors(course / LESSON)
        assert not problems, "the saved lesson notebook shows errors:\n" + "\n".join(problems)

        # 4. The live output shows the counts the lesson states.
        for fragment, expected in STATED_COUNTS:
            shown = bs.output_of(cells, fragment)
            assert expected in shown, f"the cell with {fragment!r} should show {expected!r}; it shows:\n{shown}"

        # 5. Every check cell shows its verdict; the broken exercise fails and says why the graph broke.
        checks = [c for c in cells if c["source"].startswith("check(")]
        assert len(checks) >= 6
        for cell in checks:
            wanted = re.search(r'check\("(\w+)"\)', cell["source"]).group(1)
            shown = "\n".join(o["text"] for o in cell["outputs"])
            verdict = VERDICT.search(shown)
            assert verdict and verdict["id"] == wanted, f"{cell['source']} shows no verdict:\n{shown}"
        failed = bs.output_of(cells, f'check("{EXERCISE_ID}")')
        assert re.search(rf"^{EXERCISE_ID}: FAILED\s+0/\d+", failed, re.M), failed
        assert "Why the graph broke" in failed and "torch.save" in failed, failed
        check_cell = code_cell(page, f'check("{EXERCISE_ID}")')
        show(check_cell)
        shot(page, "check-failed-with-explanation")

        # 6. Open the exercise from the lesson's link, paste the fix in JupyterLab's editor, save.
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown a",
                     has_text=EXERCISE).first.click()
        editor = page.locator(".jp-FileEditor:visible .cm-content")
        expect(editor).to_contain_text("torch.save(hidden", timeout=LOAD_MS)
        shot(page, "exercise-opened-in-editor")
        editor.click()
        page.keyboard.press("Control+a")
        paste(page, fix)
        save(page, f"{EXERCISE_ID}.py", "saving the exercise")
        saved = (course / EXERCISE).read_text()
        assert saved != starter and saved.strip() == fix.strip(), f"the editor saved:\n{saved}"
        shot(page, "exercise-fixed-and-saved")

        # 7. Back in the lesson, run the check cell again (Shift+Enter): it passes.
        page.locator(".lm-TabBar-tab", has_text="01_dynamo_core.ipynb").click()
        check_cell.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        passed = check_cell.locator(".jp-OutputArea-output", has_text=f"{EXERCISE_ID}: PASSED")
        try:
            passed.wait_for(timeout=CHECK_MS)
        finally:
            show(check_cell)
            shot(page, "check-passed")
        assert "FAILED" not in check_cell.locator(".jp-OutputArea").text_content()

        # 8. Save the notebook again: the passing verdict is in the saved file, and still no error.
        page.keyboard.press("Escape")
        save(page, "01_dynamo_core.ipynb", "saving the lesson notebook")
        shot(page, "lesson-saved")
        problems = bs.saved_errors(course / LESSON)
        assert not problems, "the saved lesson notebook shows errors:\n" + "\n".join(problems)
        assert f"{EXERCISE_ID}: PASSED" in (course / LESSON).read_text()
    print(f"\nlearner path: JupyterLab up in {lab.started_in:.1f} s, Run All Cells {run_all_s:.0f} s; "
          f"screenshots in {shot.dir.relative_to(ROOT)}")


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
