# A terminal of the course's JupyterLab: your own ~/.bashrc, then the course's commands first on
# PATH (`course check ID`, and `python` is the course's Python).
if [ -f ~/.bashrc ]; then . ~/.bashrc; fi
if [ -n "${COURSE_TERMINAL_PATH:-}" ]; then export PATH="$COURSE_TERMINAL_PATH:$PATH"; fi
