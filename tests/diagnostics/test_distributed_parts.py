"""The parts of distributed diagnose that need no second process: fingerprints, the verdicts from
gathered measurements, the choice of the event that explains a failed run, option checks, and the
rule that the rank side imports only what the user's interpreter has."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from mldebug_mcp.diagnostics import distributed
from mldebug_mcp.diagnostics.distributed import (
    checks_data,
    checks_gradients,
    checks_parameters,
    rank_events,
)
from mldebug_mcp.diagnostics.distributed.fingerprint import (
    TOLERANCE,
    fingerprint,
    present_on_some,
    relative_difference,
    spread_across_ranks,
)
from mldebug_mcp.diagnostics.distributed.launch import collective_timeout, outcome
from mldebug_mcp.diagnostics.distributed.rank_events import RankEvents
from mldebug_mcp.diagnostics.events import MalformedEvent
from mldebug_mcp.diagnostics.launch import Limits
from mldebug_mcp.errors import DiagnoseError, UsageError
from mldebug_mcp.services import diagnose as service

torch = pytest.importorskip("torch")
PARENT_SIDE = {"launch.py", "rank_events.py"}  # run in this package's process, never in the user's


def test_the_check_ids_are_the_modules_ids_in_report_order():
    from mldebug_mcp.diagnostics.distributed.runner import CHECKS

    assert tuple(m.CHECK.id for m in CHECKS) == distributed.CHECK_IDS


def test_the_rank_side_imports_only_the_standard_library_torch_and_relative_modules():
    allowed = set(sys.stdlib_module_names) | {"torch", "__future__"}
    for path in Path(distributed.__file__).parent.glob("*.py"):
        if path.name in PARENT_SIDE:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.level == 1 or (node.module or "").startswith("checks"), f"{path.name}: {node.module}"
                continue
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            assert all(n.split(".")[0] in allowed for n in names), f"{path.name} imports {names}"
        assert not any(isinstance(n, ast.Import | ast.ImportFrom) and "torch" in ast.dump(n) for n in tree.body), \
            f"{path.name}: module-level torch import"


def test_fingerprints_tell_equal_tensors_from_different_ones():
    a = torch.randn(50, 20, generator=torch.Generator().manual_seed(0))
    assert relative_difference(fingerprint(a), fingerprint(a.clone())) == 0.0
    assert relative_difference(fingerprint(a), fingerprint(a.flip(0))) > 1e-3  # same values, other places
    nudged = a.clone()
    nudged[3, 4] += 1e-4  # one value of a thousand, by a hundred-thousandth of the norm
    assert relative_difference(fingerprint(a), fingerprint(nudged)) > TOLERANCE
    assert relative_difference(fingerprint(torch.zeros(3)), fingerprint(torch.zeros(3))) == 0.0


def test_spread_and_presence_across_ranks():
    same, other = fingerprint(torch.ones(4)), fingerprint(torch.arange(4.0))
    ranks = [{"w": same, "b": same, "u": same}, {"w": same, "b": other, "u": None}]
    assert spread_across_ranks(ranks)["w"] == 0.0 and spread_across_ranks(ranks)["b"] > 0.1
    assert "u" not in spread_across_ranks(ranks)
    assert present_on_some(ranks) == {"u": [0]}


def _rank(rank, params, grads=None, after=None, outside=(), has_ddp=True, batch=None, data=None):
    return {"rank": rank, "params_start": params, "params_after": after or params, "grads": grads or params,
            "outside_ddp": list(outside), "has_ddp": has_ddp, "batch": batch or [fingerprint(torch.ones(2) * rank)],
            "data": data or {"skipped": "no loader"}}


def test_parameters_that_differ_at_the_start_or_drift_after_a_step_fail():
    one, two = fingerprint(torch.ones(3)), fingerprint(torch.ones(3) * 2)
    agree = checks_parameters.judge([_rank(0, {"w": one}), _rank(1, {"w": one})])
    start = checks_parameters.judge([_rank(0, {"w": one}), _rank(1, {"w": two})])
    drift = checks_parameters.judge([_rank(0, {"w": one}, after={"w": one}), _rank(1, {"w": one}, after={"w": two})])
    assert agree.status == "pass"
    assert start.status == "fail" and start.measured["differ_at_start"] == 1 and "before any step" in start.summary
    assert drift.status == "fail" and drift.measured["drift_after_step"] == 1 and "after one step" in drift.summary


def test_gradients_outside_the_wrapper_and_on_some_ranks_only_fail_with_their_reason():
    one, two = fingerprint(torch.ones(3)), fingerprint(torch.ones(3) * 2)
    head = checks_gradients.judge([_rank(0, {"w": one, "h": one}, outside=["h"]),
                                   _rank(1, {"w": one, "h": two}, outside=["h"])])
    assert head.status == "fail" and head.measured["differ"] == 1 and "outside the DistributedDataParallel" in head.meaning
    branch = checks_gradients.judge([_rank(0, {"w": one}, grads={"w": one, "b": one}),
                                     _rank(1, {"w": one}, grads={"w": one, "b": None})])
    assert branch.status == "fail" and branch.measured["on_some_ranks_only"] == 1
    none = checks_gradients.judge([_rank(0, {"w": one}, grads={"w": None}), _rank(1, {"w": one}, grads={"w": None})])
    assert none.status == "skipped"


def _data(epoch0, epoch1, sampler="DistributedSampler", shuffle=True, hook=True, size=8):
    return {"epochs": [epoch0, epoch1], "sampler": sampler, "shuffle": shuffle, "hook": hook, "dataset": size}


def _shards(*per_rank):
    return [_rank(i, {}, data=d) for i, d in enumerate(per_rank)]


def test_data_shards_disjoint_and_reshuffled_pass():
    result = checks_data.judge(_shards(_data([0, 2, 4, 6], [6, 0, 4, 2]), _data([1, 3, 5, 7], [5, 1, 7, 3])))
    assert result.status == "pass" and result.measured["coverage"] == 1.0


def test_data_shards_that_overlap_fail():
    result = checks_data.judge(_shards(_data([0, 1, 2, 3], [3, 2, 1, 0], "RandomSampler"),
                                       _data([0, 1, 2, 3], [2, 3, 0, 1], "RandomSampler")))
    assert result.status == "fail" and result.measured["max_shared_samples"] == 4


def test_an_order_that_repeats_fails_with_the_hook_and_warns_without_it():
    repeat = (_data([0, 2], [0, 2]), _data([1, 3], [1, 3]))
    assert checks_data.judge(_shards(*repeat)).status == "fail"
    unhooked = checks_data.judge(_shards(*({**d, "hook": False} for d in repeat)))
    assert unhooked.status == "warn" and "set_epoch" in unhooked.summary
    fixed = checks_data.judge(_shards(*({**d, "shuffle": False} for d in repeat)))
    assert fixed.status == "pass" and any("does not shuffle" in d for d in fixed.details)


def test_padding_repeats_of_a_distributed_sampler_are_normal():
    result = checks_data.judge(_shards(_data([0, 2, 4], [4, 0, 2], size=5), _data([1, 3, 0], [3, 0, 1], size=5)))
    assert result.status == "pass"


def _write(folder: Path, name: str, *events: dict) -> None:
    with (folder / name).open("a") as stream:
        for event in events:
            stream.write(json.dumps(event) + "\n")


def _error(stage: str, rank: int | None, at: float, **extra) -> dict:
    event = {"event": "error", "stage": stage, "time": at, "error": {"type": "E", "message": "m", "frames": []}}
    return {**event, **({"rank": rank} if rank is not None else {}), **extra}


def test_a_ranks_own_error_outweighs_the_collectives_that_failed_after_it(tmp_path):
    events = RankEvents(tmp_path, 2)
    _write(tmp_path, "rank0.jsonl", _error("collective", 0, 1.0, collective="all_reduce"))
    _write(tmp_path, "rank1.jsonl", _error("build", 1, 2.0))
    assert events.read()[-1]["rank"] == 1


def test_a_silent_death_reported_by_torchrun_outweighs_the_collectives_it_broke(tmp_path):
    events = RankEvents(tmp_path, 2)
    _write(tmp_path, "rank0.jsonl", _error("collective", 0, 1.0, collective="all_reduce"))
    assert events.read() == []  # held back, waiting for a better explanation
    _write(tmp_path, "agent.jsonl", _error("rank", 1, 2.0))
    final = events.read()[-1]
    assert (final["stage"], final["rank"]) == ("rank", 1)


def test_a_peer_killed_while_the_group_forms_outweighs_the_join_error_it_caused(tmp_path):
    """rank 1 killed by a signal before it joined; rank 0's join fails (Gloo connectFullMesh) a moment before
    torchrun reports the death: the killed rank is the explanation, not the rank that witnessed it."""
    events = RankEvents(tmp_path, 2)
    _write(tmp_path, "rank0.jsonl", _error("init", 0, 1.0))
    assert events.read() == []  # held back, waiting for torchrun's word on the other ranks
    _write(tmp_path, "agent.jsonl", _error("rank", 1, 2.0, failed={"1": "was killed by signal SIGKILL"}))
    final = events.read()[-1]
    assert (final["stage"], final["rank"], final["error"]["message"]) == ("rank", 1, "was killed by signal SIGKILL")


def test_a_join_error_alone_is_reported_after_the_grace_and_when_the_run_stops(tmp_path, monkeypatch):
    events = RankEvents(tmp_path, 2)
    _write(tmp_path, "rank0.jsonl", _error("init", 0, 1.0))
    assert events.read() == [] and events.flush()["stage"] == "init"
    monkeypatch.setattr(rank_events, "GRACE_SECONDS", 0.0)
    assert events.read()[-1]["stage"] == "init"


def test_a_failed_collective_alone_is_reported_after_the_grace_with_where_the_others_waited(tmp_path, monkeypatch):
    monkeypatch.setattr(rank_events, "GRACE_SECONDS", 0.0)
    events = RankEvents(tmp_path, 2)
    _write(tmp_path, "rank1.jsonl", _error("collective", 1, 1.0, collective="all_gather_object", ours=True))
    _write(tmp_path, "rank0.jsonl", _error("collective", 0, 2.0, collective="all_reduce", called_at="t.py:3"))
    final = events.read()[-1]
    assert final["rank"] == 0 and final["others"] == [{"rank": 1, "collective": "all_gather_object"}]
    with pytest.raises(DiagnoseError, match=r"^rank 0 waited in all_reduce, called at t.py:3, which not every rank"):
        outcome(final, 1, "", Limits(), [], 5.0)


def test_the_report_outweighs_a_rank_that_fails_in_teardown(tmp_path):
    events = RankEvents(tmp_path, 2)
    _write(tmp_path, "agent.jsonl", _error("rank", 1, 2.0))
    _write(tmp_path, "rank0.jsonl", {"event": "report", "report": {"status": "pass", "checks": []}})
    assert events.read()[-1]["event"] == "report"


def test_an_event_in_another_ranks_file_is_malformed(tmp_path):
    events = RankEvents(tmp_path, 2)
    _write(tmp_path, "rank1.jsonl", _error("build", 0, 1.0))
    with pytest.raises(MalformedEvent, match="names rank 0"):
        events.read()


def test_nproc_and_the_check_ids_are_checked_before_anything_runs():
    with pytest.raises(UsageError, match="nproc must be between 1 and"):
        service._check_options(200, None, 0)
    with pytest.raises(UsageError, match="with --nproc 2"):
        service._check_options(200, ["overfit_one_batch"], 2)
    service._check_options(200, ["ranks_data_shards"], 2)
    assert collective_timeout(120) == 30 and collective_timeout(1) == 2.0


def test_the_cli_passes_nproc_through(monkeypatch, tmp_path, capsys):
    from mldebug_mcp.cli import diagnose as cli

    seen = {}

    async def fake(target, **kwargs):
        seen.update(kwargs)
        raise UsageError("stop here")

    monkeypatch.setattr(service, "diagnose_target", fake)
    parser = __import__("argparse").ArgumentParser()
    cli._diagnose_arguments(parser)
    with pytest.raises(UsageError):
        cli.run_diagnose(parser.parse_args([f"{tmp_path}/t.py:spec", "--nproc", "2"]))
    assert seen["nproc"] == 2


def test_a_rank_that_died_without_a_word_outweighs_torchruns_first_failure_and_the_ranks_it_stopped(tmp_path):
    events = RankEvents(tmp_path, 3)
    _write(tmp_path, "rank0.jsonl", _error("collective", 0, 1.0, collective="all_reduce"))
    _write(tmp_path, "agent.jsonl", _error("rank", 0, 2.0, stopped=[2],
                                           failed={"0": "exited with code 1", "1": "was killed by signal SIGKILL",
                                                   "2": "was killed by signal SIGTERM"}))
    final = events.read()[-1]
    assert (final["rank"], final["error"]["message"]) == (1, "was killed by signal SIGKILL")


# --- the second increment's checks: random streams, injected inf, clip norms, BatchNorm, metric -------------

def _streams(torch_state, step_draws=True, dropout=("net.2",), worker_seed=None, params=None, seed=0):
    state = {"torch": torch_state, "python random": "p", "numpy": "n"}
    return {"random": {"states": state, "torch_seed": seed, "dropout": list(dropout), "worker_seed": worker_seed},
            "step_draws": step_draws, "params_start": params or {"w": fingerprint(torch.ones(2))}}


def test_random_streams_shared_in_the_step_warn_and_per_rank_streams_pass():
    from mldebug_mcp.diagnostics.distributed import checks_random

    shared = checks_random.judge([_streams((1.0,)), _streams((1.0,))])
    assert shared.status == "warn" and "same random numbers" in shared.summary and "net.2" in shared.summary
    assert "torch" in shared.measured["identical_generators"]
    assert checks_random.judge([_streams((1.0,)), _streams((2.0,))]).status == "pass"
    quiet = checks_random.judge([_streams((1.0,), step_draws=False), _streams((1.0,), step_draws=False)])
    assert quiet.status == "pass" and any("draws nothing" in d for d in quiet.details)


def test_random_streams_fail_when_per_rank_seeds_built_different_weights():
    from mldebug_mcp.diagnostics.distributed import checks_random

    one, two = fingerprint(torch.ones(3)), fingerprint(torch.ones(3) * 2)
    result = checks_random.judge([_streams((1.0,), False, params={"w": one}), _streams((2.0,), False, params={"w": two})])
    assert result.status == "fail" and result.measured["initial_weights_agree"] is False
    assert "broadcast" in result.summary


def test_loader_workers_seeded_alike_on_every_rank_warn():
    from mldebug_mcp.diagnostics.distributed import checks_random

    seed = {"seed": 7, "workers": 2}
    result = checks_random.judge([_streams((1.0,), False, worker_seed=seed), _streams((2.0,), False, worker_seed=seed)])
    assert result.status == "warn" and "worker" in result.summary
    no_workers = {"seed": 7, "workers": 0}
    assert checks_random.judge([_streams((1.0,), False, worker_seed=no_workers),
                                _streams((2.0,), False, worker_seed=no_workers)]).status == "pass"


def _inf(outcome, fired=False, injected_on=1):
    return {"nonfinite": {"injected_on": injected_on, "parameter": "0.weight", "fired": fired, "outcome": outcome},
            "batch": [fingerprint(torch.ones(1))]}


def test_an_inf_that_one_rank_skips_and_another_applies_fails():
    from mldebug_mcp.diagnostics.distributed import checks_nonfinite as nf

    split = nf.judge([_inf(nf.NON_FINITE), _inf(nf.SKIPPED, fired=True)])
    assert split.status == "fail" and split.measured["outcome_per_rank"] == [nf.NON_FINITE, nf.SKIPPED]
    assert "unscale_" in split.meaning
    together = nf.judge([_inf(nf.SKIPPED), _inf(nf.SKIPPED, fired=True)])
    assert together.status == "pass"
    applied = nf.judge([_inf(nf.NON_FINITE), _inf(nf.NON_FINITE, fired=True)])
    assert applied.status == "pass" and any("GradScaler" in d for d in applied.details)
    assert nf.judge([_inf(nf.FINITE), _inf(nf.FINITE, fired=False)]).status == "skipped"


def test_the_injected_step_tells_skipping_from_applying_on_one_process():
    from mldebug_mcp.diagnostics.distributed import checks_nonfinite as nf

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def step(skip_nonfinite):
        optimizer.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        if not (skip_nonfinite and not all(torch.isfinite(p.grad).all() for p in model.parameters())):
            optimizer.step()

    assert nf.measure(model, 0, 1, lambda: step(False))["outcome"] == nf.NON_FINITE
    assert nf.measure(model, 0, 1, lambda: step(True))["outcome"] == nf.SKIPPED
    assert nf.measure(model, 0, 2, lambda: step(True))["outcome"] == nf.FINITE  # rank 1 injects, not rank 0


def _clips(*norms):
    return [{"clip_norms": [("torch.nn.utils.clip_grad_norm_", n) for n in ns], "sharded": 0} for ns in norms]


def test_clip_norms_that_differ_across_ranks_fail_and_equal_ones_pass():
    from mldebug_mcp.diagnostics.distributed import checks_clipping

    assert checks_clipping.judge(_clips([0.5], [0.7])).status == "fail"
    assert checks_clipping.judge(_clips([0.5], [0.5])).status == "pass"
    assert checks_clipping.judge(_clips([0.5], [0.5, 0.5])).status == "fail"  # clipped a different number of times
    assert checks_clipping.judge(_clips([], [])).status == "skipped"


def test_the_clip_recorder_sees_clip_grad_norm_however_it_was_imported():
    from torch.nn.utils import clip_grad_norm_

    from mldebug_mcp.diagnostics.distributed import checks_clipping

    model = torch.nn.Linear(3, 1)
    model(torch.ones(2, 3)).sum().backward()
    with checks_clipping.recording() as norms:
        clip_grad_norm_(model.parameters(), 1.0)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    clip_grad_norm_(model.parameters(), 1.0)  # after the block: not recorded, the originals are back
    assert [how for how, _ in checks_clipping.as_numbers(norms)] == ["torch.nn.utils.clip_grad_norm_"] * 2


def _bn(layers=("bn",), synced=(), batch=4, broadcast=True, running=None):
    return {"batchnorm": {"layers": list(layers), "synced": list(synced), "batch": batch,
                          "broadcast_buffers": broadcast, "running": running or {}}}


def test_batchnorm_per_rank_on_small_batches_warns_and_is_reported_otherwise():
    from mldebug_mcp.diagnostics.distributed import checks_batchnorm as bn

    small = bn.judge([_bn(), _bn()])
    assert small.status == "warn" and "4 samples" in small.summary
    large = bn.judge([_bn(batch=64), _bn(batch=64)])
    assert large.status == "pass" and "per-rank statistics over 64" in large.summary
    assert any("rank 0's batches" in d for d in large.details)
    synced = bn.judge([_bn(synced=("bn",)), _bn(synced=("bn",))])
    assert synced.status == "pass" and "SyncBatchNorm" in synced.summary
    assert bn.judge([_bn(layers=()), _bn(layers=())]).status == "skipped"
    one, two = {"bn.running_mean": fingerprint(torch.ones(3))}, {"bn.running_mean": fingerprint(torch.ones(3) * 2)}
    drift = bn.judge([_bn(batch=64, broadcast=False, running=one), _bn(batch=64, broadcast=False, running=two)])
    assert drift.status == "warn" and "running estimates" in drift.summary


def _metric(value, batch):
    return {"metric": {"value": value}, "batch": [fingerprint(torch.ones(2) * batch)]}


def test_a_metric_that_differs_across_ranks_fails_and_a_reduced_one_passes():
    from mldebug_mcp.diagnostics.distributed import checks_metric

    assert checks_metric.judge([_metric(0.5, 0), _metric(0.75, 1)]).status == "fail"
    assert checks_metric.judge([_metric(0.6, 0), _metric(0.6, 1)]).status == "pass"
    assert checks_metric.judge([_metric(0.6, 0), _metric(0.6, 0)]).status == "skipped"  # same batch: cannot tell
    assert checks_metric.judge([{"metric": {"skipped": "no metric"}, "batch": []}] * 2).status == "skipped"


def test_every_distributed_check_cites_excerpts_that_exist():
    from mldebug_mcp.citations.store import build_store
    from mldebug_mcp.content import evidence_dir
    from mldebug_mcp.diagnostics.distributed.runner import CHECKS

    store = build_store(evidence_dir())
    for module in CHECKS:
        assert module.CHECK.quotes and all(q in store.excerpts for q in module.CHECK.quotes), module.CHECK.id


def test_sharded_tensors_are_told_apart():
    from mldebug_mcp.diagnostics.distributed.fingerprint import sharded

    flat = torch.nn.Parameter(torch.ones(3))
    flat._is_flat_param = True
    assert sharded(flat) and not sharded(torch.ones(3)) and not sharded(None)


def test_the_text_report_states_backend_world_size_and_each_ranks_time():
    from mldebug_mcp.models.diagnose import DiagnosticCheck, DiagnosticReport
    from mldebug_mcp.render.diagnose import report_text

    check = DiagnosticCheck(id="ranks_parameters_agree", title="t", status="pass", summary="all agree")
    report = DiagnosticReport(target="t.py:spec", status="pass", checks=[check],
                              environment={"torch": "2.13", "device": "cpu", "backend": "gloo", "world_size": 2,
                                           "rank_seconds": [0.5, 0.25], "rank_step_seconds": [0.1, 0.05]},
                              setup={"task": "classification", "model": "DDP", "parameters": 10,
                                     "loss_per_rank": [0.7, 0.69]})
    text = report_text(report)
    assert "distributed: backend gloo, world size 2" in text
    assert "rank 0: step 0.100 s, measured in 0.500 s, loss 0.7" in text and "rank 1: step 0.050 s" in text
    single = DiagnosticReport(target="t.py:spec", status="pass", checks=[check], environment={"torch": "2.13"})
    assert "distributed" not in report_text(single)


def test_a_collective_that_fails_in_the_injected_step_is_the_runs_error_not_an_answer_to_the_inf():
    from mldebug_mcp.diagnostics.distributed import checks_nonfinite as nf

    model = torch.nn.Linear(3, 1)

    def timed_out():
        model(torch.ones(2, 3)).sum().backward()
        raise RuntimeError("[gloo] Timed out waiting 2000ms for recv operation to complete")

    def refuses():
        model(torch.ones(2, 3)).sum().backward()
        raise RuntimeError("the total norm is non-finite on rank 0")

    with pytest.raises(RuntimeError, match="Timed out"):
        nf.measure(model, 0, 1, timed_out)
    answer = nf.measure(model, 0, 1, refuses)
    assert answer["outcome"] == "raised RuntimeError" and "rank 0" in answer["message"]


def test_per_rank_gradient_norms_are_kept_and_drawn_side_by_side(tmp_path):
    pytest.importorskip("matplotlib")
    from mldebug_mcp.diagnostics.plots import write_plots

    one, two = fingerprint(torch.ones(3)), fingerprint(torch.ones(3) * 2)
    head = checks_gradients.judge([_rank(0, {"w": one, "h": one}, outside=["h"]),
                                   _rank(1, {"w": one, "h": two}, outside=["h"])])
    norms = head.series["grad_norm_by_rank"]
    assert norms["rank 0"]["h"] == pytest.approx(3 ** 0.5) and norms["rank 1"]["h"] == pytest.approx(2 * 3 ** 0.5)
    report = SimpleNamespace(checks=[head])  # write_plots reads the checks' ids, statuses and series only
    assert [p.name for p in write_plots(report, tmp_path)] == ["rank_gradient_norms.png"]
