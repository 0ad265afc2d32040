"""The lesson toolkit: what lessons, starting files and masters import to count graphs, breaks,
recompiles and guards, and to draw them. One stable import path over the probe's modules:

    from autograder.lab import tally_calls, fullgraph_error

and ``drift(name)``, the named facts about the installed torch that a lesson relies on (see
``autograder/sandbox/probe/drift.py``).
"""

from autograder.checks.reporting import raised_by_hand, starter_line  # noqa: F401
from autograder.learner.pictures import graph_diagram, speed_bars  # noqa: F401
from autograder.sandbox.probe import (  # noqa: F401
    ABLATION_BACKENDS, GraphTally, ablate, bisect, call_log, call_timeline, captured_graphs, clean_state, compilations,
    compile_times_table, config_defaults, first_failing, frame_report, fullgraph_error, guard_count, guard_names,
    guard_report, lookup_us, read_trace, recording_filter, run_case, run_reproducer, structured_trace, tally_calls,
    tally_run, warm_start_report,
)
from autograder.sandbox.probe import file_reruns as job_reruns  # noqa: F401  (a file's job, run again as new processes)
from autograder.sandbox.probe.drift import TorchChanged, drift  # noqa: F401
from autograder.sandbox.timing import interleaved as timed_in_turns, one_thread, summary as timing_summary  # noqa: F401  (the speed checks' own timing)
from autograder.sandbox.probe.messages import (  # noqa: F401
    captured_log, failed_guard, gb_id, gb_type_of, graph_break, guard_log, logged_warnings, parse_guard_tree, read_torch_logs,
)
