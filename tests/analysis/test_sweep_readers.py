"""Reading a sweep: runs tables (CSV, JSON lines, W&B and MLflow exports) and folders of runs
(TensorBoard event files, HF trainer_state.json), through the service as the faces call it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mldebug_mcp.analysis.sweep_folder import settings_from_name
from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.paths import AllowedDirs
from mldebug_mcp.services.sweep import sweep_report

from .tfrecord_builder import event, record, simple_value, version_event

SEEDS = (1, 2, 3, 4)
LUCK = {1: 0.0, 2: -3.0, 3: 2.0, 4: 1.0}


def acc(arm_effect: float, seed: int) -> float:
    return 70.0 + LUCK[seed] + arm_effect + 0.05 * seed * (1 if seed % 2 else -1)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_wandb_export_ignores_bookkeeping_and_leaves_out_crashed_runs(tmp_path):
    lines = [('"Name","State","Notes","User","Tags","Created","Runtime","Sweep","lr","seed","eval/accuracy",'
              '"train/loss","_step"')]
    for seed in SEEDS:
        for lr, effect in (("0.001", 0.0), ("0.003", 1.0)):
            state = "crashed" if (lr, seed) == ("0.003", 4) else "finished"
            lines.append(f'"run-{lr}-{seed}","{state}","","me","","2024-01-01","100","abc","{lr}","{seed}",'
                         f'"{acc(effect, seed)}","{0.5 - effect / 10 + seed / 100}","1000"')
    report = sweep_report(write(tmp_path / "wandb_export.csv", "\n".join(lines) + "\n"))
    assert report.metric == "eval/accuracy" and report.higher_is_better
    assert report.factor == ["lr"] and report.baseline == "0.001" and report.seed_column == "seed"
    assert report.comparisons[0].verdict == "better" and report.comparisons[0].shared_seeds == ["1", "2", "3"]
    assert any("tracker bookkeeping ignored" in n and "State" in n for n in report.notes)
    assert any("crashed" in w and "run-0.003-4" in w for w in report.warnings)
    assert "train/loss" in report.metric_candidates


def test_an_mlflow_search_runs_export_uses_params_and_metrics_prefixes(tmp_path):
    lines = [("run_id,experiment_id,status,start_time,metrics.val_loss,params.optimizer,params.seed,"
              "tags.mlflow.runName")]
    for seed in SEEDS:
        for optimizer, effect in (("adamw", 0.0), ("sgd", 0.05)):
            lines.append(f"id{seed}{optimizer},1,FINISHED,2024-01-01,{0.8 + LUCK[seed] / 10 + effect + seed / 1000},"
                         f"{optimizer},{seed},{optimizer}-{seed}")
    report = sweep_report(write(tmp_path / "runs.csv", "\n".join(lines) + "\n"))
    assert report.metric == "metrics.val_loss" and report.higher_is_better is False
    assert report.seed_column == "params.seed" and report.factor == ["params.optimizer"]
    assert report.comparisons[0].verdict == "worse"  # a higher loss
    assert report.arms[0].runs[0].run == "row 1 (adamw-1)"


def test_json_lines_with_nested_config_and_an_explicit_metric(tmp_path):
    records = [{"config": {"dropout": d, "seed": s}, "summary": {"val_acc": acc(e, s), "val_f1": 0.5}}
               for s in SEEDS for d, e in ((0.0, 0.0), (0.1, 0.0))]
    path = write(tmp_path / "runs.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")
    report = sweep_report(path, "summary.val_acc", factor="config.dropout")
    assert report.factor == ["config.dropout"] and report.seed_column == "config.seed"
    assert report.comparisons[0].verdict == "within_noise"
    with pytest.raises(UsageError, match="Did you mean: summary.val_acc"):
        sweep_report(path, "summary.val_ac")


def test_a_json_array_reads_too_and_a_trainer_state_file_points_to_its_folder(tmp_path):
    rows = [{"arm": a, "seed": s, "score": acc(0.0, s)} for s in SEEDS for a in ("a", "b")]
    assert sweep_report(write(tmp_path / "runs.json", json.dumps(rows))).metric == "score"
    state = write(tmp_path / "trainer_state.json", json.dumps({"log_history": [{"step": 1, "loss": 1.0}]}))
    with pytest.raises(UsageError, match="trainer_state.json, one run.*folder"):
        sweep_report(state)


def write_event_run(folder: Path, accuracy: list[float]) -> None:
    folder.mkdir(parents=True)
    records = [record(version_event())] + [record(event(step, simple_value("eval/accuracy", value),
                                                        simple_value("train/loss", 1.0 / (step + 1))))
                                            for step, value in enumerate(accuracy)]
    (folder / "events.out.tfevents.1700000000.host.1.0").write_bytes(b"".join(records))


def test_a_folder_of_tensorboard_runs_named_key_value_takes_the_last_or_best_value(tmp_path):
    root = tmp_path / "runs"
    for seed in SEEDS:
        for lr, effect in (("0.1", 0.0), ("0.3", 2.0)):
            final = acc(effect, seed)
            write_event_run(root / f"lr={lr},seed={seed}", [final - 5, final + 3 - effect * 2, final])
    last = sweep_report(root, "eval/accuracy")
    assert last.format == "tfevents" and last.take == "last" and last.factor == ["lr"]
    assert [r.value for r in last.arms[0].runs] == pytest.approx([acc(0.0, s) for s in SEEDS], abs=1e-4)
    assert last.comparisons[0].verdict == "better"
    best = sweep_report(root, "eval/accuracy", take="best")
    assert [r.value for r in best.arms[0].runs] == pytest.approx([acc(0.0, s) + 3 for s in SEEDS], abs=1e-4)
    # best of lr=0.3 is its last value (base + 2), of lr=0.1 its mid-run peak (base + 3)
    assert best.comparisons[0].mean_difference == pytest.approx(-1.0, abs=1e-4)
    with pytest.raises(UsageError, match="no run logs a series 'eval/acc'.*eval/accuracy"):
        sweep_report(root, "eval/acc")


def test_a_folder_of_trainer_states_reads_each_runs_latest_checkpoint(tmp_path):
    root = tmp_path / "out"
    for seed in SEEDS:
        for arm, effect in (("baseline", 0.0), ("label_smoothing", 1.0)):
            for step, shift in ((100, -10.0), (200, 0.0)):
                folder = root / arm / f"seed_{seed}" / f"checkpoint-{step}"
                folder.mkdir(parents=True)
                history = [{"step": step, "eval_accuracy": acc(effect, seed) + shift, "loss": 0.3}]
                (folder / "trainer_state.json").write_text(json.dumps({"log_history": history}))
    report = sweep_report(root, "eval_accuracy")
    assert report.format == "trainer_state" and report.baseline == "baseline" and report.seed_column == "seed"
    assert report.arms[0].runs[0].run == "baseline/seed_1"
    assert [r.value for r in report.arms[0].runs] == pytest.approx([acc(0.0, s) for s in SEEDS])
    assert report.comparisons[0].verdict == "better"


def test_a_folder_with_one_run_or_none_says_what_a_sweep_folder_holds(tmp_path):
    write_event_run(tmp_path / "only" / "lr=0.1", [1.0, 2.0])
    with pytest.raises(UsageError, match="one run.*several runs"):
        sweep_report(tmp_path / "only")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no TensorBoard event files and no trainer_state.json"):
        sweep_report(tmp_path / "empty")


@pytest.mark.parametrize("name, settings", [
    ("lr=0.1,seed=2", {"lr": "0.1", "seed": "2"}),
    ("lr=0.1/seed=2", {"lr": "0.1", "seed": "2"}),
    ("lr=0.1_warmup_steps=500_seed=3", {"lr": "0.1", "warmup_steps": "500", "seed": "3"}),
    ("arm=aux_loss_seed=1", {"arm": "aux_loss", "seed": "1"}),
    ("baseline/seed_2", {"arm": "baseline", "seed": "2"}),
    ("adamw_seed3", {"arm": "adamw", "seed": "3"}),
    ("reseed4", {}),
])
def test_settings_are_read_from_run_names(name, settings):
    assert settings_from_name(name) == settings


def test_paths_outside_the_allowed_directories_are_refused(tmp_path):
    inside = tmp_path / "inside"
    inside.mkdir()
    outside = write(tmp_path / "runs.csv", "arm,seed,acc\na,1,1\nb,1,2\n")
    with pytest.raises(UsageError, match="outside the allowed directories"):
        sweep_report(str(outside), allowed=AllowedDirs((inside,)))
    (inside / "link.csv").symlink_to(outside)
    with pytest.raises(UsageError, match="symlink"):
        sweep_report("link.csv", allowed=AllowedDirs((inside,)))


def test_tables_that_cannot_be_a_sweep_get_an_error_naming_the_fix(tmp_path):
    with pytest.raises(UsageError, match="no such file or folder"):
        sweep_report(tmp_path / "missing.csv")
    with pytest.raises(UsageError, match="no runs in the table"):
        sweep_report(write(tmp_path / "empty.csv", "arm,seed,acc\n"))
    with pytest.raises(UsageError, match="no metric column"):
        sweep_report(write(tmp_path / "text.csv", "arm,seed,comment\na,1,x\nb,1,y\n"))
    with pytest.raises(UsageError, match="take must be one of last, best"):
        sweep_report(tmp_path / "x.csv", take="first")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"arm,seed,acc\na,1,\xff\n")
    with pytest.raises(UsageError, match="UTF-8"):
        sweep_report(bad)


def test_nan_and_empty_metrics_are_crashed_runs(tmp_path):
    rows = ["arm,seed,acc"] + [f"{a},{s},{'nan' if (a, s) == ('b', 2) else acc(0, s)}" for s in SEEDS for a in "ab"]
    report = sweep_report(write(tmp_path / "runs.csv", "\n".join(rows) + "\n"))
    b = report.arms[1]
    assert b.n == 3 and any(r.value is None for r in b.runs)
    assert not any(math.isnan(r.value) for arm in report.arms for r in arm.runs if r.value is not None)
    assert any("left out" in w for w in report.warnings)


def test_pandas_index_run_ids_and_mlflow_tags_are_bookkeeping_but_a_commit_is_a_setting(tmp_path):
    lines = [",run_id,status,metrics.val_loss,params.optimizer,params.seed,tags.mlflow.runName,mlflow.source.git.commit"]
    for index, (seed, optimizer) in enumerate((s, o) for s in SEEDS for o in ("adamw", "sgd")):
        commit = "def" if (seed, optimizer) == (4, "sgd") else "abc"
        lines.append(f"{index},id{index},FINISHED,{0.8 + LUCK[seed] / 10 + (optimizer == 'sgd') * 0.05},{optimizer},"
                     f"{seed},name{index},{commit}")
    path = write(tmp_path / "runs.csv", "\n".join(lines) + "\n")
    report = sweep_report(path, factor="params.optimizer")
    ignored = next(n for n in report.notes if n.startswith("tracker bookkeeping ignored"))
    assert all(c in ignored for c in ("run_id", "status", "tags.mlflow.runName"))
    assert "mlflow.source.git.commit" not in ignored
    assert any("mixes settings" in w and "mlflow.source.git.commit" in w for w in report.warnings)
    assert len(report.arms) == 2 and report.metric == "metrics.val_loss"


def test_equal_differences_up_to_rounding_have_no_t(tmp_path):
    rows = ["arm,seed,acc"] + [f"{a},{s},{70.1 + s + (a == 'b') * 1.1}" for s in SEEDS for a in "ab"]
    comparison = sweep_report(write(tmp_path / "runs.csv", "\n".join(rows) + "\n")).comparisons[0]
    assert comparison.t is None and comparison.p == 0.0 and comparison.verdict == "better"
    assert any("same difference" in note for note in comparison.notes)
