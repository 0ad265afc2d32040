#!/usr/bin/env bash
# The GPU table: Inductor speedups on CUDA and the course's timing exercises graded there.
#
#   bash benchmarks/gpu.sh            (on a machine with a CUDA GPU and torch installed)
#
# Uses whatever python and torch the machine has (PYTHON=... to choose); nothing is installed.
# On a machine without CUDA it says so and exits 0 without a table. docs/MEASUREMENTS.md records
# what it printed, or that no GPU was available.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
exec "$PY" benchmarks/gpu_speed.py "$@"
