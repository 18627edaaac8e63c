"""read_curve: each text format round-trips a small file; every refusal names the problem and the fix."""

from __future__ import annotations

import json
import math

import pytest

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import read_curve
from mldebug_mcp.errors import UsageError


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_keeps_nan_and_inf_skips_empty_cells_and_reads_the_step_column(tmp_path):
    path = write(tmp_path, "log.csv", "step,loss,val_loss,note\n0,2.3,,start\n10,nan,2.0,x\n20,inf,,y\n30,-inf,1.5,z\n")
    log = read_curve(path)
    assert (log.format, log.names) == ("csv", ["loss", "val_loss"])  # `note` is text: not a series
    steps, values = zip(*log.points("loss"))
    assert steps == (0, 10, 20, 30) and all(isinstance(s, int) for s in steps)
    assert values[0] == 2.3 and math.isnan(values[1]) and values[2] == math.inf and values[3] == -math.inf
    assert log.points("val_loss") == [(10, 2.0), (30, 1.5)]


def test_csv_without_a_step_column_uses_the_row_number(tmp_path):
    log = read_curve(write(tmp_path, "log.csv", "loss,accuracy\n1.0,0.1\n0.5,0.6\n"))
    assert log.points("loss") == [(0, 1.0), (1, 0.5)]
    assert log.points("accuracy") == [(0, 0.1), (1, 0.6)]


def test_step_column_is_chosen_by_name_priority_and_epoch_floats_work(tmp_path):
    log = read_curve(write(tmp_path, "log.csv", "epoch,global_step,loss\n0.5,10,1.0\n1.0,20,0.8\n"))
    assert log.points("loss") == [(10, 1.0), (20, 0.8)]
    assert log.points("epoch") == [(10, 0.5), (20, 1.0)]  # epoch is a series when a finer step exists
    log = read_curve(write(tmp_path, "epochs.csv", "Epoch,loss\n0.5,1.0\n1.0,0.8\n"))
    assert log.points("loss") == [(0.5, 1.0), (1.0, 0.8)]


def test_tsv_and_content_sniffing_without_a_known_extension(tmp_path):
    assert read_curve(write(tmp_path, "log.tsv", "step\tloss\n1\t0.5\n")).points("loss") == [(1, 0.5)]
    assert read_curve(write(tmp_path, "metrics.txt", "step\tloss\n1\t0.5\n")).format == "tsv"
    assert read_curve(write(tmp_path, "metrics.log", "step,loss\n1,0.5\n")).format == "csv"
    assert read_curve(write(tmp_path, "metrics", '{"step": 1, "loss": 0.5}\n')).format == "jsonl"


def test_jsonl_reads_numbers_nan_tokens_and_nan_strings_and_ignores_other_fields(tmp_path):
    lines = [
        '{"step": 1, "loss": 1.5, "lr": 0.001, "tag": "warmup", "done": false}',
        '{"step": 2, "loss": NaN, "lr": 0.001}',
        '{"step": 3, "loss": "nan", "grad_norm": Infinity}',
        '{"step": 4, "loss": 0.9, "nested": {"a": 1}}',
    ]
    log = read_curve(write(tmp_path, "log.jsonl", "\n".join(lines) + "\n"))
    assert (log.format, log.names) == ("jsonl", ["loss", "lr", "grad_norm"])
    values = dict(log.points("loss"))
    assert values[1] == 1.5 and math.isnan(values[2]) and math.isnan(values[3]) and values[4] == 0.9
    assert log.points("grad_norm") == [(3, math.inf)]


def test_jsonl_tolerates_a_cut_last_line_but_not_a_broken_middle_one(tmp_path):
    text = '{"step": 1, "loss": 1.0}\n{"step": 2, "loss": 0.9}\n{"step": 3, "lo'
    log = read_curve(write(tmp_path, "log.jsonl", text))
    assert log.points("loss") == [(1, 1.0), (2, 0.9)]
    assert log.notes == ("line 3 is cut short (the run may still be writing) and was skipped",)
    path = write(tmp_path, "bad.jsonl", '{"step": 1, "loss": 1.0}\nnot json\n{"step": 3, "loss": 0.8}\n')
    with pytest.raises(UsageError, match="line 2 is not JSON.*one object per line"):
        read_curve(path)


def test_json_array_of_records(tmp_path):
    path = write(tmp_path, "history.json", json.dumps([{"_step": 0, "loss": 2.0}, {"_step": 1, "loss": 1.0}]))
    log = read_curve(path)
    assert log.format == "json" and log.points("loss") == [(0, 2.0), (1, 1.0)]


def test_hf_trainer_state_picks_the_logged_loss_not_the_final_average(tmp_path):
    history = [{"epoch": round(0.1 * i, 2), "grad_norm": 1.0, "learning_rate": 5e-5, "loss": 2.0 - 0.1 * i,
                "step": 10 * i} for i in range(1, 13)]
    history += [{"epoch": 1.0, "eval_loss": 1.2, "eval_runtime": 3.1, "step": 60}]
    history += [{"epoch": 1.2, "step": 120, "total_flos": 1e15, "train_loss": 1.4, "train_runtime": 100.0}]
    path = write(tmp_path, "trainer_state.json", json.dumps({"global_step": 120, "log_history": history}))
    log = read_curve(path)
    assert log.format == "trainer_state"
    assert len(log.points("loss")) == 12 and log.points("eval_loss") == [(60, 1.2)]
    report = analyze_curve(log)
    assert (report.loss_series, report.val_series) == ("loss", "eval_loss")


def test_a_repeated_step_keeps_the_last_value_and_steps_are_sorted(tmp_path):
    log = read_curve(write(tmp_path, "log.csv", "step,loss\n2,0.8\n0,1.0\n1,0.9\n2,0.7\n"))
    assert log.points("loss") == [(0, 1.0), (1, 0.9), (2, 0.7)]


def test_missing_file_names_the_supported_formats(tmp_path):
    with pytest.raises(UsageError, match="no such file or folder.*CSV or TSV.*tfevents"):
        read_curve(tmp_path / "nope.csv")


def test_unknown_format_lists_the_supported_ones(tmp_path):
    with pytest.raises(UsageError, match="unknown log format. Supported: CSV or TSV.*JSON lines.*trainer_state.json"):
        read_curve(write(tmp_path, "notes.txt", "just some words\nand more\n"))
    path = tmp_path / "weights.bin"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(UsageError, match="unknown log format"):
        read_curve(path)


def test_no_numeric_series_names_the_columns_seen(tmp_path):
    with pytest.raises(UsageError, match=r"no numeric series found.*Columns seen: step, run, status"):
        read_curve(write(tmp_path, "log.csv", "step,run,status\n1,a,ok\n2,b,ok\n"))
    with pytest.raises(UsageError, match=r"Columns seen: step, name"):
        read_curve(write(tmp_path, "log.jsonl", '{"step": 1, "name": "a"}\n'))


def test_a_header_made_of_numbers_asks_for_a_header(tmp_path):
    with pytest.raises(UsageError, match="holds numbers, not column names: add a header row"):
        read_curve(write(tmp_path, "log.csv", "0,2.3\n1,2.2\n"))


def test_json_that_is_not_records_is_refused(tmp_path):
    with pytest.raises(UsageError, match="single value, not records"):
        read_curve(write(tmp_path, "log.json", "3.5"))
    with pytest.raises(UsageError, match="record 2 is a list"):
        read_curve(write(tmp_path, "log.json", '[{"loss": 1}, [1, 2]]'))


def test_asking_for_a_series_that_does_not_exist_lists_those_that_do(tmp_path):
    log = read_curve(write(tmp_path, "log.csv", "step,train_loss,val_loss\n1,1.0,1.1\n"))
    expected = "no series 'train/loss'.*Did you mean: train_loss.*Series found: train_loss, val_loss"
    with pytest.raises(UsageError, match=expected):
        log.points("train/loss")
    with pytest.raises(UsageError, match="no series 'valid'"):
        analyze_curve(log, val="valid")


def test_a_log_without_a_loss_like_series_asks_which_one(tmp_path):
    log = read_curve(write(tmp_path, "log.csv", "step,accuracy\n1,0.1\n"))
    with pytest.raises(UsageError, match="looks like a training loss.*loss=NAME.*Series found: accuracy"):
        analyze_curve(log)
