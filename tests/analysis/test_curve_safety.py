"""read_curve opens only regular files, never blocks, and with `roots` never leaves the allowed directories.

Each case here read outside the allow-list, hung or ran out of memory before the reader opened
its files through safe_read.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from mldebug_mcp.analysis.curve_io import detect_format, read_curve
from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.curves import curve_report
from mldebug_mcp.services.paths import AllowedDirs

from .safety import deadline, make_fifo, read_in_capped_child
from .tfrecord_builder import event, record, simple_value

FIXTURE = Path(__file__).parent / "fixtures" / "tfevents" / "events.out.tfevents.1700000000.fixture"
CSV = "step,loss\n" + "".join(f"{i},{2.0 - i / 100}\n" for i in range(30))


@pytest.fixture
def dirs(tmp_path):
    """(allowed, outside): an allowed folder and a secret one beside it."""
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    return allowed, outside


def secret_events(folder: Path) -> Path:
    path = folder / "events.out.tfevents.1.secret"
    path.write_bytes(b"".join(record(event(step, simple_value("secret/loss", 1.0))) for step in range(20)))
    return path


def test_a_symlink_to_a_csv_outside_the_allowed_dirs_is_refused(dirs):
    allowed, outside = dirs
    (outside / "secret.csv").write_text(CSV)
    (allowed / "log.csv").symlink_to(outside / "secret.csv")
    with pytest.raises(UsageError, match="log.csv leads outside the allowed directories"):
        read_curve(allowed / "log.csv", roots=(allowed,))
    with pytest.raises(UsageError, match="outside the allowed directories"):
        curve_report(str(allowed / "log.csv"), allowed=AllowedDirs((allowed,)))
    assert read_curve(allowed / "log.csv").names == ["loss"]  # the CLI and the Python API have no allow-list


def test_a_folder_walk_skips_an_event_file_symlinked_from_outside_with_a_note(dirs):
    allowed, outside = dirs
    run = allowed / "run"
    run.mkdir()
    shutil.copy(FIXTURE, run / FIXTURE.name)
    (run / "events.out.tfevents.2.link").symlink_to(secret_events(outside))
    report = curve_report(str(run), allowed=AllowedDirs((allowed,)))
    assert "secret/loss" not in [s.name for s in report.series]
    assert any(n.startswith("events.out.tfevents.2.link: skipped") and "outside the allowed" in n for n in report.notes)
    log = read_curve(run, roots=(allowed,))
    assert "secret/loss" not in log.names and "train/loss" in log.names


def test_a_folder_whose_only_event_file_leads_outside_is_refused(dirs):
    allowed, outside = dirs
    (allowed / "events.out.tfevents.2.link").symlink_to(secret_events(outside))
    with pytest.raises(UsageError, match=r"no TensorBoard event files .* that can be read \(.*link: skipped.*outside"):
        read_curve(allowed, roots=(allowed,))


def test_a_fifo_named_like_a_csv_is_refused_without_blocking(tmp_path):
    make_fifo(tmp_path / "x.csv")
    with deadline(10), pytest.raises(UsageError, match=r"x.csv is not a regular file \(a FIFO\)"):
        read_curve(tmp_path / "x.csv")
    with deadline(10), pytest.raises(UsageError, match="not a regular file"):
        detect_format(tmp_path / "x.csv")


def test_a_fifo_named_like_an_event_file_is_skipped_in_a_folder_without_blocking(tmp_path):
    make_fifo(tmp_path / "events.out.tfevents.1.host")
    with deadline(10), pytest.raises(UsageError, match=r"no TensorBoard event files.*skipped, is not a regular file \(a FIFO\)"):
        read_curve(tmp_path)
    shutil.copy(FIXTURE, tmp_path / FIXTURE.name)
    with deadline(10):
        log = read_curve(tmp_path)
    assert "train/loss" in log.names
    assert "events.out.tfevents.1.host: skipped, is not a regular file (a FIFO); only regular files are read" in log.notes


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_symlink_to_dev_zero_is_refused_without_reading_it(tmp_path):
    for name in ("z.csv", "events.out.tfevents.9.zero"):  # read in a capped child: an unbounded read dies there
        (tmp_path / name).symlink_to("/dev/zero")
        child = read_in_capped_child(tmp_path / name)
        assert child.returncode == 3, child.stderr[-2000:]
        assert f"{name} is not a regular file (a character device)" in child.stdout


def test_a_path_that_no_file_can_have_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="cannot be read"):
        read_curve(Path(str(tmp_path / "a") + "\0b.csv"))
    with pytest.raises(UsageError, match="cannot be read"):
        read_curve(tmp_path / ("x" * 5000 + ".csv"))


def test_an_unreadable_file_is_a_usage_error(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(CSV)
    path.chmod(0)
    if os.access(path, os.R_OK):
        pytest.skip("running as a user who reads every file")
    with pytest.raises(UsageError, match="log.csv: cannot be read"):
        read_curve(path)


def test_a_sub_folder_that_cannot_be_listed_gets_a_note(tmp_path, monkeypatch):
    run = tmp_path / "run"
    (run / "locked").mkdir(parents=True)
    shutil.copy(FIXTURE, run / FIXTURE.name)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    log = read_curve(run)
    assert "train/loss" in log.names
    assert "locked/: skipped, cannot be listed (Permission denied)" in log.notes
