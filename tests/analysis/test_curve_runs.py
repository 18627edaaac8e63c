"""A folder of event files holding several runs: one run is read, and never paired with another's series."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import read_curve
from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.curves import curve_report
from mldebug_mcp.services.paths import AllowedDirs

from .tfrecord_builder import event, record, simple_value, version_event


def write_run(folder: Path, started: int, train: dict[int, float], val: dict[int, float],
              train_tag: str = "train/loss", val_tag: str = "val/loss") -> None:
    """One writer's event file in `folder`, started at unix time `started`."""
    folder.mkdir(parents=True, exist_ok=True)
    records = [record(version_event())]
    for step in sorted(train.keys() | val.keys()):
        values = [simple_value(train_tag, train[step])] if step in train else []
        values += [simple_value(val_tag, val[step])] if step in val else []
        records.append(record(event(step, *values)))
    (folder / f"events.out.tfevents.{started}.host.1.0").write_bytes(b"".join(records))


def healthy(steps: int, floor: float) -> dict[int, float]:
    return {step: floor + 2.0 * math.exp(-step / 60) for step in range(steps)}


def every(curve: dict[int, float], k: int, shift: float = 0.0) -> dict[int, float]:
    return {step: value + shift for step, value in curve.items() if step % k == 0}


@pytest.fixture
def two_runs(tmp_path) -> Path:
    """runs/a trained 300 steps down to 0.05 without validation; runs/b, started later, trained 300 steps
    down to 1.0 and generalises (its validation loss follows its training loss). Pairing a's training
    loss with b's validation loss, as the reader once did, shows a train/validation gap that neither
    run has."""
    root = tmp_path / "runs"
    write_run(root / "a", 1_700_000_000, train=healthy(300, 0.05), val={})
    b = healthy(300, 1.0)
    write_run(root / "b", 1_700_000_500, train=b, val=every(b, 20, 0.01))
    return root


def test_the_most_recent_run_is_read_alone_and_the_others_are_named(two_runs):
    log = read_curve(two_runs)
    assert log.run == "b" and log.other_runs == ("a",)
    assert log.names == ["train/loss", "val/loss"]  # b's tags, not prefixed by the run
    assert log.count("train/loss") == 300 and log.count("val/loss") == 15
    report = analyze_curve(log)
    assert (report.run, report.other_runs) == ("b", ["a"])
    assert (report.loss_series, report.val_series) == ("train/loss", "val/loss")
    assert "train_val_gap" not in report.observations
    assert any("read run 'b'" in note and "Other runs: a" in note for note in report.notes)


def test_a_run_can_be_asked_for_by_its_folder(two_runs):
    log = read_curve(two_runs, run="a")
    assert log.run == "a" and log.other_runs == ("b",)
    assert log.names == ["train/loss"] and log.count("train/loss") == 300
    assert any("read run 'a' (as asked)" in note for note in log.notes)
    assert read_curve(two_runs, run="a/").run == "a"


def test_an_unknown_run_is_refused_with_the_runs_there(two_runs):
    with pytest.raises(UsageError, match=r"no run 'c'.*Runs found: a, b"):
        read_curve(two_runs, run="c")


def test_a_run_asked_of_a_single_file_is_refused(two_runs):
    file = next((two_runs / "b").iterdir())
    with pytest.raises(UsageError, match="is a file"):
        read_curve(file, run="b")


def test_the_start_time_in_the_file_names_decides_not_the_folder_names(tmp_path):
    write_run(tmp_path / "z_old", 100, train=healthy(50, 0.2), val={})
    write_run(tmp_path / "a_new", 200, train=healthy(50, 0.3), val={})
    assert read_curve(tmp_path).run == "a_new"


def test_keras_train_and_validation_folders_are_one_run(tmp_path):
    curve = healthy(100, 0.2)
    for run, started in (("r1", 100), ("r2", 200)):
        write_run(tmp_path / run / "train", started, train=curve, val={}, train_tag="epoch_loss")
        write_run(tmp_path / run / "validation", started, train={}, val=every(curve, 10), val_tag="epoch_loss")
    log = read_curve(tmp_path)
    assert (log.run, log.other_runs) == ("r2", ("r1",))
    assert log.names == ["train/epoch_loss", "validation/epoch_loss"]
    report = analyze_curve(log)
    assert (report.loss_series, report.val_series) == ("train/epoch_loss", "validation/epoch_loss")
    single = read_curve(tmp_path / "r1")  # the run's own folder: one run, no note
    assert (single.run, single.other_runs, single.notes) == (".", (), ())
    assert single.names == ["train/epoch_loss", "validation/epoch_loss"]


def test_sub_writers_of_a_run_folder_belong_to_it(tmp_path):
    """torch's SummaryWriter.add_scalars writes exp/loss_train/ and exp/loss_val/ beside exp's own file;
    TF Estimator writes its evaluation to model_dir/eval/."""
    exp = tmp_path / "exp"
    curve = healthy(100, 0.2)
    write_run(exp, 100, train={0: 0.001}, val={}, train_tag="lr")
    write_run(exp / "loss_train", 101, train=curve, val={}, train_tag="loss")
    write_run(exp / "loss_val", 101, train={}, val=every(curve, 10), val_tag="loss")
    log = read_curve(tmp_path)
    assert (log.run, log.other_runs) == ("exp", ())
    assert sorted(log.names) == ["loss_train/loss", "loss_val/loss", "lr"]


def test_the_service_passes_the_run_on_and_checks_every_file(two_runs):
    allowed = AllowedDirs.from_config([str(two_runs.parent)])
    report = curve_report(two_runs, run="a", allowed=allowed)
    assert report.run == "a" and report.val_series is None
