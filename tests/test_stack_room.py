"""``sandbox/stack_room.with_room``: calls under it find room on the interpreter's frame stack, so a
deep recursion that goes up and down (Dynamo tracing) does not map and unmap stack chunks each time."""

import resource

from autograder.sandbox.stack_room import with_room


def _down(depth):
    a = b = c = d = depth  # noqa: F841 - locals make each frame larger
    return 0 if depth == 0 else 1 + _down(depth - 1)


def _up_and_down(times, depth=300):
    total = 0
    for _ in range(times):
        total += _down(depth)  # about 60 KiB of frames: past a 16 KiB chunk boundary, and back
    return total


def _faults(fn, *args):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    result = fn(*args)
    return result, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_with_room_passes_arguments_and_returns_the_result():
    assert with_room(lambda a, b=0: a + b, 2, b=3) == 5


def test_a_recursion_under_with_room_allocates_no_stack_chunks():
    _, plain = _faults(_up_and_down, 2000)
    result, roomy = _faults(with_room, _up_and_down, 2000)
    assert result == 2000 * 300
    # Each new chunk is a fresh mapping, faulted in on first use: thousands without room, none with it.
    assert plain > 2000, plain
    assert roomy < plain / 10, (roomy, plain)
