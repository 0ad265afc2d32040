"""The one dependency list (pyproject.toml) and its conda wrapper (environment.yml) stay in step."""

import re
import tomllib

from conftest import ROOT


def pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_torch_is_pinned_to_the_course_version():
    deps = pyproject()["project"]["dependencies"]
    assert "torch==2.13.0" in deps
    assert "nbgrader==0.9.6" in deps
    assert any(d.startswith("jupyterlab>=4") for d in deps)


def test_environment_yml_installs_the_project_instead_of_repeating_the_list():
    text = (ROOT / "environment.yml").read_text()
    pip_lines = re.findall(r"^\s+- (.+)$", text.split("- pip:")[1], flags=re.M)
    assert pip_lines == ["-e ."], "environment.yml must install the project (-e .) and list nothing else"
    python = re.search(r"- python=(\d+\.\d+)", text)[1]
    major, minor = map(int, python.split("."))
    requires = pyproject()["project"]["requires-python"]
    # What pip may install into, what ./course looks for, and what environment.yml asks for agree:
    # Python 3.11 or 3.12 (nbgrader 0.9.6 and numpy 2.3 do not install on 3.10; both were run once).
    assert requires == ">=3.11,<3.13" and (3, 11) <= (major, minor) <= (3, 12)
    course = (ROOT / "course").read_text()
    assert "(3, 11) <= sys.version_info[:2] <= (3, 12)" in course and "python3.10" not in course


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "./course test" in ci
    commands = re.findall(r"^\s*(\./course \w+)\s*$", readme, flags=re.M)
    assert commands[:2] == ["./course start", "./course test"], "the README's first two commands"


# -- ./course setup: which torch build ------------------------------------------------------------

import http.server  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402


def torch_source(index: str, torch: str = "cpu") -> tuple[str, str, float]:
    """What ./course setup would pass pip for torch (stdout), why (stderr), and how long it took."""
    env = {**os.environ, "COURSE_CPU_INDEX": index, "COURSE_TORCH": torch}
    began = time.monotonic()
    run = subprocess.run([str(ROOT / "course"), "torch-source"], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip(), run.stderr, time.monotonic() - began


def test_setup_takes_the_cpu_wheel_where_pytorchs_cpu_index_answers():
    class Index(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path.startswith("/whl/cpu/torch/") else 404)
            self.end_headers()
            self.wfile.write(b"<a href='torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl'>torch</a>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        index = f"http://127.0.0.1:{server.server_address[1]}/whl/cpu"
        args, why, _ = torch_source(index)
        assert args == f"--extra-index-url {index}" and "CPU build" in why
    finally:
        server.shutdown()


def test_setup_falls_back_to_pip_without_hanging_where_the_cpu_index_does_not_answer():
    with socket.socket() as silent:  # accepts connections, never answers: the worst case for a timeout
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        args, why, took = torch_source(f"http://127.0.0.1:{silent.getsockname()[1]}/whl/cpu")
    assert args == "" and "did not answer" in why and took < 15, (args, why, took)
    args, why, took = torch_source("http://127.0.0.1:9/whl/cpu")  # nothing listens: refused at once
    assert args == "" and took < 15


def test_setup_can_be_told_which_build():
    args, why, _ = torch_source("http://127.0.0.1:9/whl/cpu", torch="pypi")
    assert args == "" and "COURSE_TORCH=pypi" in why
    run = subprocess.run([str(ROOT / "course"), "torch-source"], env={**os.environ, "COURSE_TORCH": "gpu"},
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "auto, cpu or pypi" in run.stderr
