"""Whether what a driver returns came from the compiled code (probe.measurement.depends_on_compiled):
a call that runs the compiled function on an input of its own and returns eager work is not a
compiled call, and no fair driver is taken for one."""

import pytest
import torch

from autograder.sandbox import probe


def model(x):
    return torch.tanh(x @ x.T).sum(dim=1)


CALLS = [(torch.randn(4, 3),), (torch.randn(6, 3),), (torch.randn(5, 3),)]


@pytest.fixture(autouse=True)
def one_thread():
    # As in the learner's process (sandbox/child.py): its forked copies compute on one thread.
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def measured(driver):
    return probe.measure(model, CALLS, {"dynamic": False}, driver=driver, probe_dependence=True)


def test_a_driver_returning_the_compiled_result_has_every_call_compiled():
    m = measured(lambda step, x: step(x) * 2 + 1)
    assert (m.compiled_calls, m.unfed_calls) == (3, [])


def test_a_token_call_and_eager_work_is_not_a_compiled_call():
    def driver(step, x):
        step(torch.zeros(2, 3))  # compiled code runs, on an input of the driver's own
        return model(x)

    m = measured(driver)
    assert m.calls == 3 and (m.compiled_calls, m.unfed_calls) == (0, [0, 1, 2])


def test_only_the_calls_that_ignore_the_compiled_result_are_taken_off():
    def driver(step, x):
        out = step(x)
        return out if x.shape[0] % 2 == 0 else model(x)

    m = measured(driver)
    assert (m.compiled_calls, m.unfed_calls) == (2, [2])


def test_a_result_that_fails_on_garbage_used_it():
    def driver(step, x):
        out = step(x)
        return torch.tensor(int(out.sum()))  # NaN cannot become an int: the call raises under the probe

    assert measured(driver).unfed_calls == []


def test_a_driver_that_keeps_state_or_returns_what_cannot_be_read_is_never_taken_off():
    seen = []

    def stateful(step, x):
        step(x)
        seen.append(x.shape[0])
        return torch.tensor(seen)  # differs on the probe's rerun anyway

    class Box:
        def __init__(self, value):
            self.value = value

    assert measured(stateful).unfed_calls == []
    assert measured(lambda step, x: Box(model(x)) if step(x) is not None else None).unfed_calls == []


def test_the_probe_leaves_the_grading_process_as_it_was():
    seen = []

    def driver(step, x):
        seen.append(x.shape[0])
        print("served", x.shape[0])
        return step(x)

    m = measured(driver)
    assert seen == [4, 6, 5] and m.compiled_calls == 3  # the rerun happened in a copy of the process


def test_part_of_the_work_done_eagerly_is_found_and_a_mask_after_the_call_is_not():
    def half_eager(step, x):
        return torch.cat([step(x[:2]), model(x[2:])])  # the compiled code serves the first two rows only

    def masked(step, x):
        out = step(x)
        return out.masked_fill(out < 0, 0.0)  # a mask applied after the compiled call: zeros stay zeros

    m = measured(half_eager)
    assert m.compiled_calls == 0 and [call for call, _, _ in m.partly_fed_calls] == [0, 1, 2]
    assert m.partly_fed_calls[0][1:] == [2, 4]  # 2 of the 4 values computed elsewhere
    assert measured(masked).partly_fed_calls == [] and measured(masked).compiled_calls == 3


def test_a_call_the_rerun_serves_eagerly_tells_nothing():
    # The starter of recompile_global_log: the compiled function appends to a list and its guards
    # check the list's length, so after the schedule (past the recompile limit) the rerun runs every
    # call eagerly. Its unchanged results are not evidence that the first run ignored the graphs.
    log = []

    def logging_model(x):
        log.append(x.sum())
        return x * 2

    m = probe.measure(logging_model, [(torch.ones(3),)] * 6, {"recompile_limit": 4},
                      driver=lambda step, x: (step(x), torch.tensor(len(log))), probe_dependence=True)
    assert m.compiled_calls == 4 and m.unfed_calls == [] and m.partly_fed_calls == []


def test_an_argmax_that_nan_leaves_as_it_was_is_still_found_fed():
    # argmax of a row of NaN is 0; every row's largest value is in column 0 here, so the NaN rerun
    # gives the same classes, and the rerun with random values tells them apart.
    rows = [(torch.cat([torch.full((4, 1), 9.0), torch.rand(4, 5)], dim=1),) for _ in range(3)]
    m = probe.measure(lambda x: x * 2, rows, {}, driver=lambda step, x: step(x).argmax(dim=-1), probe_dependence=True)
    assert (m.compiled_calls, m.unfed_calls) == (3, [])
