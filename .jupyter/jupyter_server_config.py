# The course's terminals (read only by the JupyterLab that ./course start runs, see ../course):
# the learner's shell with `course` and the course's Python first on PATH. Jupyter starts a login
# shell when its own output is not a terminal, and a login shell resets PATH from /etc/profile;
# so start an interactive one, and put the course's folders back after the learner's own rc file.
import os
import shutil

_shell = os.environ.get("SHELL") or shutil.which("bash") or shutil.which("sh")
if _shell and os.path.basename(_shell) == "bash":
    _rc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "terminal.bashrc")
    c.ServerApp.terminado_settings = {"shell_command": [_shell, "--rcfile", _rc, "-i"]}  # noqa: F821
elif _shell:
    c.ServerApp.terminado_settings = {"shell_command": [_shell, "-i"]}  # noqa: F821
