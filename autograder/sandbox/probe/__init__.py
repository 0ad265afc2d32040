"""The probe: everything that touches ``torch._dynamo``, split by what it measures.

- ``tally``: the counting backend (graphs, compile ids, breaks, compiled runs);
- ``events``: graph breaks, skipped frames and recompiles as Dynamo reports them;
- ``state``: the entry points, a clean start, stance and config;
- ``output``: what the code printed and logged;
- ``measurement``: a schedule of calls compiled with the tally, counted (what the grader measures);
- ``counts``: the same counts for lessons and for masters that compute a truth live;
- ``guards``, ``compile_cost``, ``warm_start``: chapters 5 and 6;
- ``trace``, ``ablation``, ``reproducer``: chapters 7 and 8;
- ``messages``: reading a graph-break message, a guard log and a recompile reason;
- ``drift``: the drift alarms, facts about the installed torch that a release may change.

This package re-exports the names the grader and the lessons use.
"""

import logging

# PyPI's Linux torch is the CUDA build; on a machine without a GPU, every process that compiles
# with Inductor logs "No CUDA runtime is found, using CUDA_HOME=..." once, a warning that says
# nothing about the learner's code (and shows in red in a notebook). Errors still show.
logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)

from .tally import (  # noqa: F401
    _TORCH_DIR, _STDLIB_DIR, _RECOMPILE_LOGGER, _TORCH_NAMESPACES, _is_user_file, _site, _first_paragraphs, GraphTally, _break_type, _recompile_index,
)
from .events import (  # noqa: F401
    _SKIP_PREFIXES, break_log, skipped_log, _ListHandler, recompile_reasons, _GUARD_LINE, _guard_lines,
)
from .state import (  # noqa: F401
    compiler_entry_points, clean_state, skip_guard_latency_profiling, stance, config_snapshot, config_changes, config_restore, config_as, config_set_changes, is_logging_callable, describe_callable, forget_custom_ops, dynamo_config, config_defaults, refresh_decompositions,
    print_is_reorderable, recompile_limit, config_values, private_compile_caches,
)
from autograder.sandbox.cpu_check import check_cpu_for_inductor  # noqa: F401
from .output import (  # noqa: F401
    _Tee, _RecordHandler, captured_output,
)
from .measurement import (  # noqa: F401
    Measurement, describe_error, _Frame, compile_for_grading, measure, _break_counter, _detach, warm_up_compiler,
)
from .counts import (  # noqa: F401
    Tally, tally_run, Outcome, run_case, tally_calls, fullgraph_error, guard_count, CallRecord, call_timeline, python_version,
    frames_compiled,
)
from .guards import (  # noqa: F401
    recording_filter, guard_report, lookup_us,
)
from .compile_cost import (  # noqa: F401
    CountingBackend, compile_with, cold_compile, cold_compile_seconds, frame_report, compile_times_table, job_reruns, file_reruns,
)
from .warm_start import warm_start_report  # noqa: F401
from .trace import (  # noqa: F401
    TORCH_DIR, _TraceRecorder, structured_trace, read_trace, Compilation, compilations, _RECOMPILING, CallLog, call_log, captured_graphs, guard_names,
)
from .ablation import (  # noqa: F401
    ABLATION_BACKENDS, _same, Stage, ablate, first_failing, bisect, control_bisect,
)
from .inject import (  # noqa: F401
    added_break, allowed_in_graph_ids, is_disabled,
)
from .reproducer import (  # noqa: F401
    PRESTARTED_REPRODUCERS, _RAISING_HELPERS, run_reproducer, _describe_raise, _reproducer_child, run_all,
)
from .messages import (  # noqa: F401
    Frame, GraphBreak, gb_id, gb_type_of, parse_break, graph_break, GuardLine, GuardLog, parse_guard_tree, guard_log, FailedGuard, failed_guard,
)
