"""MLD053 reads the project's dependency files to learn whether torch is pinned below 1.9. Those reads are
untrusted input: only regular files (a FIFO named requirements.txt must not hang lint), and with the run's
allow-list never a folder outside it."""

import os
import threading
from pathlib import Path

import pytest

from mldebug_mcp.lint.helpers.loader_torch_pin import pins_old_torch


def _project(tmp_path: Path) -> Path:
    code = tmp_path / "project" / "src" / "train.py"
    code.parent.mkdir(parents=True)
    code.write_text("import numpy as np\n")
    return code


def test_a_pin_in_a_folder_above_is_read(tmp_path):
    code = _project(tmp_path)
    (tmp_path / "project" / "requirements.txt").write_text("numpy\ntorch==1.8.1\n")
    assert pins_old_torch(str(code)) == "requirements.txt: torch==1.8.1"


def test_the_allow_list_keeps_the_walk_inside_it(tmp_path):
    code = _project(tmp_path)
    (tmp_path / "requirements.txt").write_text("torch==1.8.1\n")  # above the allowed project folder
    assert pins_old_torch(str(code), roots=(tmp_path / "project",)) is None
    assert pins_old_torch(str(code), roots=(tmp_path,)) == "requirements.txt: torch==1.8.1"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_named_like_a_dependency_file_is_skipped_not_waited_on(tmp_path):
    code = _project(tmp_path)
    os.mkfifo(tmp_path / "project" / "requirements.txt")
    result: list[str | None] = []
    reader = threading.Thread(target=lambda: result.append(pins_old_torch(str(code))), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert result == [None]


def test_source_text_without_a_file_reads_no_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "requirements.txt").write_text("torch==1.8.1\n")
    assert pins_old_torch("<source>") is None


@pytest.mark.parametrize("spec, pinned", [("torch~=1.8", False), ("torch~=1.8.1", True), ("torch~=1.9.0", False),
                                          ("torch==1.8.1", True), ("torch<1.9", True), ("torch>=2.2", False)])
def test_compatible_release_pins_follow_pep_440(tmp_path, spec, pinned):
    # ~=1.8 allows any 1.x from 1.8 on (1.9 included); ~=1.8.1 stays within 1.8
    code = _project(tmp_path)
    (tmp_path / "project" / "requirements.txt").write_text(spec + "\n")
    assert (pins_old_torch(str(code)) is not None) is pinned
