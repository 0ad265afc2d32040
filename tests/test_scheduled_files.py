"""Files a schedule writes just before the call that reads them (autograder/sandbox/files.py)."""

import pytest
import torch

from autograder.sandbox.files import MARKER, file_at_call, materialize, remove


def test_each_call_sees_the_content_written_for_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    calls = [(torch.ones(2), file_at_call("stats.json", '{"v": 1}')), (torch.ones(2), file_at_call("stats.json", '{"v": 2}'))]
    seen, written = [], set()
    for args in calls:
        x, path = materialize(args, written)
        assert path == "stats.json" and torch.equal(x, torch.ones(2))
        seen.append((tmp_path / path).read_text())
    assert seen == ['{"v": 1}', '{"v": 2}'] and written == {"stats.json"}
    remove(written)
    assert not (tmp_path / "stats.json").exists()


def test_markers_inside_lists_and_dicts_are_written_and_other_dicts_left_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ({"files": [file_at_call("a.txt", "A")], "plain": {"text": "not a marker"}},)
    assert materialize(args) == ({"files": ["a.txt"], "plain": {"text": "not a marker"}},)
    assert (tmp_path / "a.txt").read_text() == "A"


def test_a_link_planted_at_the_path_is_replaced_not_written_through(tmp_path, monkeypatch):
    outside = tmp_path / "outside.txt"
    outside.write_text("kept")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.chdir(scratch)
    (scratch / "stats.json").symlink_to(outside)  # what a submission could leave for the next call
    assert materialize((file_at_call("stats.json", "new"),)) == ("stats.json",)
    assert outside.read_text() == "kept" and not (scratch / "stats.json").is_symlink()
    assert (scratch / "stats.json").read_text() == "new"


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.json", "sub/../../outside.json", "sub/file.json", ""])
def test_a_scheduled_file_stays_in_the_scratch_folder(tmp_path, monkeypatch, path):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError):
        file_at_call(path, "x")
    with pytest.raises(ValueError):  # a marker that arrives as data is checked again
        materialize(({MARKER: path, "text": "x"},))
