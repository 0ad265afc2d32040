# /// attack
# exercise = "bisect_decomp"
# class = 8
# kind = "bisect"
# why = "a test_fn that compiles the block (so that the bisector counts what it applies) but ignores the result and replays the answers an honest test gave the bisector, call by call: the bisection it drives finds the culprit, though it never tests the compiler"
# ///
ANSWERS = {"backend": "aot_eager_decomp_partition", "subsystem": "decomposition", "bisect_number": 6, "operator": "course.squash"}
_REPLAY = [True, True, False, False, True, False, True, False, True]
_calls = []


def test_fn():
    torch._dynamo.reset()
    torch.compile(block)(X)  # the bisector's counters advance; what it computes is never looked at
    _calls.append(None)
    return _REPLAY[(len(_calls) - 1) % len(_REPLAY)]
