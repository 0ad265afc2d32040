"""The grader's own side of a timing runs under torch's process-wide state from before the
submission ran (``sandbox/process_state.py``), and the submission gets its own state back after."""

import torch
from torch.nn.modules.module import register_module_forward_pre_hook

from autograder.sandbox import process_state


def test_the_state_a_submission_leaves_is_put_aside_inside_and_given_back_after():
    before = process_state.capture()
    seen = []
    handle = register_module_forward_pre_hook(lambda module, args: seen.append(type(module).__name__))
    torch.set_default_device("cpu")  # enters a TorchFunctionMode and leaves it in effect
    torch.set_default_dtype(torch.float64)
    try:
        left = process_state.differences(before)
        assert len(left) == 3 and any("function modes" in d for d in left) and any("hooks" in d for d in left), left
        with process_state.as_captured(before):
            assert process_state.differences(before) == []
            layer = torch.nn.Linear(2, 2)
            layer(torch.randn(1, 2))
            assert layer.weight.dtype == torch.float32 and seen == []
        assert process_state.differences(before) == left  # the submission's own state, as it left it
        torch.nn.Linear(2, 2)(torch.randn(1, 2))
        assert seen == ["Linear"]
    finally:
        handle.remove()
        torch.set_default_dtype(torch.float32)
        while torch._C._len_torch_function_stack() > before.function_modes:
            torch._C._pop_torch_function_stack()
    assert process_state.differences(before) == []


def test_the_state_is_given_back_even_when_the_grader_side_raises():
    before = process_state.capture()
    torch.set_default_dtype(torch.float64)
    try:
        try:
            with process_state.as_captured(before):
                raise ValueError("the starting file failed")
        except ValueError:
            pass
        assert torch.get_default_dtype() == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)


def test_without_a_snapshot_nothing_changes():
    torch.set_default_dtype(torch.float64)
    try:
        with process_state.as_captured(None):
            assert torch.get_default_dtype() == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)


def test_the_grader_side_compiles_in_caches_of_its_own(tmp_path, monkeypatch):
    """Inductor uses a file already at the path its generated code hashes to (torch 2.13,
    ``codecache.write``): the starting file must never compile in a folder the submission wrote to."""
    import os

    from torch._inductor import codecache

    from autograder.sandbox.child import Lab

    learners = tmp_path / "inductor-cache"
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(learners))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    lab = Lab(exercise={}, submission=None, entry=None, driver=None, calls=[], options={}, measurement=None, filename="",
              source="", code_objects=[], data={}, starter=None, scratch=str(tmp_path), before=process_state.capture())
    _, planted = codecache.write("print('the grader side')", "py")
    assert planted.startswith(str(learners))
    with lab.grader_side():
        inside = os.environ["TORCHINDUCTOR_CACHE_DIR"]
        _, written = codecache.write("print('the grader side')", "py")
        assert os.environ["TRITON_CACHE_DIR"].startswith(str(tmp_path / "grader-side-"))
    with lab.grader_side():
        assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == inside  # one folder for the whole grading
    assert inside.startswith(str(tmp_path / "grader-side-")) and written.startswith(inside) and written != planted
    assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == str(learners)


def test_a_stance_the_submission_left_is_not_the_starters():
    from torch._dynamo import eval_frame

    before = process_state.capture()
    torch.compiler.set_stance(skip_guard_eval_unsafe=True)  # a server done warming up leaves it on (lesson 6.4)
    try:
        assert any("stance" in d for d in process_state.differences(before))
        with process_state.as_captured(before):
            assert eval_frame._stance.stance == "default" and not eval_frame._stance.skip_guard_eval_unsafe
        assert eval_frame._stance.skip_guard_eval_unsafe  # the submission's own, given back
    finally:
        torch.compiler.set_stance("default")
    assert process_state.differences(before) == []
