"""The audit hook (sandbox/audit.py): each action no fix needs is refused when learner code does it,
and the very same action done by other code (torch's, the grader's) goes on.

One interpreter runs every case (a hook cannot be removed once installed): the same functions are
written to two files, ``learner.py`` (named to ``install`` as the submission) and ``library.py``
(standing in for torch), and each function is called from both. The interpreter imports torch
first, as the grading child does, and then compiles learner code with torch to show that Dynamo's
own frame and code reading still works under the hook.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

ACTIONS = textwrap.dedent('''
    import ctypes, gc, marshal, mmap, os, pathlib, pickle, resource, shutil, socket, subprocess, sys, types, typing

    OUTSIDE = os.environ["OUTSIDE"]  # a folder beside the scratch folder, not inside it

    def getframe():
        return sys._getframe()

    def current_frames():
        return sys._current_frames()

    def traceback_frame():
        try:
            raise ValueError
        except ValueError as exc:
            return exc.__traceback__.tb_frame

    def generator_frame():
        def numbers():
            yield 1
        return numbers().gi_frame

    def read_code():
        return read_code.__code__

    def swap_code():
        def other():
            return 2
        other.__code__ = other.__code__

    def build_code():
        return compile("1", "f", "eval").replace(co_name="x")

    def build_function():
        return types.FunctionType(compile("1", "f", "eval"), {})

    def gc_objects():
        return len(gc.get_objects())

    def gc_referrers():
        return gc.get_referrers(OUTSIDE)

    def settrace():
        sys.settrace(None)

    def setprofile():
        sys.setprofile(None)

    def add_hook():
        # sys.addaudithook swallows a hook's refusal: the new hook is simply not added
        seen = []
        sys.addaudithook(lambda event, args: seen.append(event) if event == "audit-test" else None)
        sys.audit("audit-test")
        if not seen:
            raise LookupError("the hook was not added")

    def run_exec():
        exec("x = 1", {})

    def load_marshal():
        return marshal.loads(marshal.dumps(1))

    def load_pickle():
        return pickle.loads(pickle.dumps(ValueError))

    def system():
        return os.system("true")

    def popen():
        return subprocess.run(["true"]).returncode

    def fork():
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    def kill_other():
        os.kill(os.getppid(), 0)

    def open_socket():
        socket.socket().close()

    def use_ctypes():
        return ctypes.CDLL(None)

    def map_memory():
        mmap.mmap(-1, 4096).close()

    def lower_limits():
        resource.setrlimit(resource.RLIMIT_CORE, resource.getrlimit(resource.RLIMIT_CORE))

    def write_outside():
        with open(os.path.join(OUTSIDE, "written.txt"), "w") as handle:
            handle.write("x")

    def write_outside_with_pathlib():
        pathlib.Path(OUTSIDE, "written.txt").write_text("x")

    def write_an_fd():
        open(1, "w", closefd=False).flush()

    def remove_outside():
        path = os.path.join(OUTSIDE, "doomed.txt")
        if not os.path.exists(path):
            pathlib.Path(path).touch()
        os.remove(path)

    def change_environment():
        os.environ["AUTOGRADER_TEST_X"] = "1"

    def leave_the_folder():
        os.chdir(os.getcwd())

    def read_proc():
        with open("/proc/self/status") as handle:
            return handle.read()

    def evaluated_annotation():
        def f(x: "__import__('os').system('true')"):
            pass
        return typing.get_type_hints(f)

    # Allowed to anyone: what fair code does.
    class Counter:
        calls = 0

    def set_own_class_attribute():
        Counter.calls = Counter.calls + 1

    def torch_save_scratch():
        import torch

        torch.save(torch.ones(1), "saved.pt")

    def write_scratch():
        with open("scratch.txt", "w") as handle:
            handle.write("x")

    def kill_self():
        os.kill(os.getpid(), 0)

    def log_and_format():
        import dataclasses, logging, traceback, warnings

        logging.getLogger("audit-test").warning("a warning through logging (it looks up its caller's frame)")
        warnings.warn("a warning (the warnings module reads frames)")

        @dataclasses.dataclass
        class Point:  # dataclasses builds __init__ with exec
            x: int = 1

        try:
            raise ValueError("shown")
        except ValueError:
            text = traceback.format_exc()  # traceback reads tb_frame
        return Point().x, "shown" in text

    def compile_with_torch():
        import torch

        def f(x):
            torch._dynamo.graph_break()
            return x.sin() + 1

        eager = torch.compile(f, backend="eager")(torch.ones(3))
        aot = torch.compile(lambda x: (x.cos() * 2).sum(), backend="aot_eager")(torch.ones(3))
        return float(eager.sum()), float(aot)
''')

REFUSED = ["getframe", "current_frames", "traceback_frame", "generator_frame", "read_code", "swap_code", "build_code",
           "build_function", "gc_objects", "gc_referrers", "settrace", "setprofile", "run_exec", "load_marshal",
           "load_pickle", "system", "popen", "fork", "kill_other", "open_socket", "use_ctypes", "map_memory", "lower_limits",
           "write_outside", "write_outside_with_pathlib", "write_an_fd", "remove_outside", "change_environment",
           "leave_the_folder", "evaluated_annotation", "read_proc"]
ALLOWED = ["write_scratch", "kill_self", "log_and_format", "compile_with_torch", "set_own_class_attribute", "torch_save_scratch"]
OTHER = ["add_hook"]

DRIVER = textwrap.dedent('''
    import importlib.util, json, os, sys, warnings
    sys.path.insert(0, sys.argv[1])
    warnings.simplefilter("ignore")
    import torch  # before the hook, as in the grading child
    from autograder.sandbox import audit

    here = os.getcwd()
    modules = {}
    for name in ("learner", "library"):
        spec = importlib.util.spec_from_file_location(name, os.path.join(here, name + ".py"))
        modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(modules[name])
    audit.install({os.path.join(here, "learner.py")}, here)
    results = {}
    for action in sys.argv[2].split(","):
        for side, module in modules.items():
            try:
                getattr(module, action)()
                outcome = "ran"
            except PermissionError as exc:
                outcome = "refused: " + str(exc) if "grader refused" in str(exc) else f"PermissionError: {exc}"
            except BaseException as exc:
                outcome = f"ran ({type(exc).__name__}: {exc})"
            results[f"{side}.{action}"] = outcome
    results["refusals"] = audit.refusals()
    print("RESULT " + json.dumps(results))
''')


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    work = tmp_path_factory.mktemp("audit")
    scratch = work / "scratch"
    outside = work / "outside"
    scratch.mkdir()
    outside.mkdir()
    for name in ("learner", "library"):
        (scratch / f"{name}.py").write_text(ACTIONS)
    env = {"PATH": "/usr/bin:/bin", "OUTSIDE": str(outside), "HOME": str(work)}
    proc = subprocess.run([sys.executable, "-I", "-c", DRIVER, str(ROOT), ",".join(REFUSED + ALLOWED + OTHER)], cwd=scratch, env=env,
                          capture_output=True, text=True, timeout=300)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("RESULT ")), None)
    assert line, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(line[len("RESULT "):])


@pytest.mark.parametrize("action", REFUSED)
def test_refused_from_learner_code_and_allowed_from_other_code(outcomes, action):
    assert outcomes[f"learner.{action}"].startswith("refused: "), outcomes[f"learner.{action}"]
    assert not outcomes[f"library.{action}"].startswith("refused"), outcomes[f"library.{action}"]


@pytest.mark.parametrize("action", ALLOWED)
def test_what_fair_code_does_goes_on(outcomes, action):
    assert outcomes[f"learner.{action}"] == "ran", outcomes[f"learner.{action}"]


def test_an_audit_hook_from_learner_code_is_not_added(outcomes):
    assert outcomes["learner.add_hook"] == "ran (LookupError: the hook was not added)"
    assert outcomes["library.add_hook"] == "ran"
    assert any("(sys.addaudithook)" in r for r in outcomes["refusals"])


def test_a_refusal_is_remembered_even_when_the_learner_catches_it(outcomes):
    # every refused call above was caught by the driver: the hook still has each on its list
    assert len(outcomes["refusals"]) >= min(50, len(REFUSED))
    assert all(r.startswith("The grader refused ") and r.endswith(").") for r in outcomes["refusals"])


def test_refusals_say_what_and_why(outcomes):
    assert "starting a process" in outcomes["learner.popen"]
    assert "for writing" in outcomes["learner.write_outside_with_pathlib"] and "outside" in outcomes["learner.write_outside_with_pathlib"]
    assert "frames" in outcomes["learner.getframe"]
