"""diagnose --nproc 2: torchrun, gloo on CPU, the checks on the example pairs, hangs and rank crashes.

Every test starts two ranks that import torch (several seconds each on a loaded machine): marked slow.
"""

from __future__ import annotations

import shutil
import textwrap
import time
from pathlib import Path

import anyio
import psutil
import pytest
from mcp import Client

from mldebug_mcp.errors import DiagnoseError
from mldebug_mcp.server import build_server
from mldebug_mcp.services import diagnose as service
from mldebug_mcp.services.paths import AllowedDirs

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "distributed"
# example -> the checks its buggy.py fails or warns on, and how (its clean.py neither fails nor warns)
FIRES: dict[str, dict[str, str]] = {
    # the per-rank seeds that built different weights are the cause the random-stream check names
    "unbroadcast_init": {"ranks_parameters_agree": "fail", "ranks_random_streams": "fail"},
    # unaveraged gradients drift the weights too
    "head_outside_ddp": {"ranks_gradients_agree": "fail", "ranks_parameters_agree": "fail"},
    "same_shard": {"ranks_data_shards": "fail"},
    "stale_epoch_order": {"ranks_data_shards": "fail"},
    "same_dropout_masks": {"ranks_random_streams": "warn"},
    "unscale_before_allreduce": {"ranks_nonfinite_agree": "fail"},
    "clip_before_allreduce": {"ranks_clip_norm_agree": "fail"},
    "fsdp_clip_bypass": {"ranks_clip_norm_agree": "fail"},
    "per_rank_batchnorm": {"ranks_batchnorm_stats": "warn"},
    "shard_metric": {"ranks_metric_reduced": "fail"},
}

CRASHES = """
import os, signal, time
import torch, torch.nn as nn, torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

def _spec(rank):
    torch.set_num_threads(1)
    open(f"pid{rank}.txt", "w").write(str(os.getpid()))
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    return dict(model=DDP(nn.Linear(4, 2)), batch=(x, (x[:, 0] > 0).long()), loss_fn=F.cross_entropy,
                task="classification", num_classes=2)

def raises(rank, world_size):
    if rank == 1:
        raise ValueError("rank one cannot build its model")
    return _spec(rank)

def exits(rank, world_size):
    if rank == 1:
        os._exit(3)
    return _spec(rank)

def killed(rank, world_size):
    if rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    return _spec(rank)

def _sleepy_step(model, batch, optimizer):
    if torch.distributed.get_rank() == 1:
        time.sleep(600)  # busy outside any collective: rank 0 waits for it in DDP's all-reduce
    optimizer.zero_grad()
    F.cross_entropy(model(batch[0]), batch[1]).backward()
    optimizer.step()

def stalls(rank, world_size):
    return {**_spec(rank), "train_step": _sleepy_step}
"""


def _run(target: str, cwd: Path, timeout_s: float = 60.0, **options):
    return anyio.run(lambda: service.diagnose_target(target, limits=service.limits(timeout_s=timeout_s), cwd=cwd,
                                                     nproc=2, **options))


def _statuses(report) -> dict[str, str]:
    return {check.id: check.status for check in report.checks}


def _leftovers(folder: Path) -> list[psutil.Process]:
    """Processes still running whose command line names `folder` (torchrun's agent and the ranks do)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        try:
            if process.info["status"] != psutil.STATUS_ZOMBIE and str(folder) in " ".join(process.info["cmdline"] or []):
                found.append(process)
        except psutil.Error:
            continue
    return found


@pytest.fixture()
def crashes(tmp_path: Path) -> Path:
    (tmp_path / "crashes.py").write_text(textwrap.dedent(CRASHES))
    return tmp_path


@pytest.mark.parametrize("example", sorted(FIRES))
def test_each_check_fires_on_its_buggy_example_and_stays_quiet_on_the_clean_twin(example, tmp_path):
    folder = tmp_path / example
    shutil.copytree(EXAMPLES / example, folder)
    buggy = _statuses(_run(f"{folder / 'buggy.py'}:debug_spec", folder))
    clean = _run(f"{folder / 'clean.py'}:debug_spec", folder)
    assert {check: status for check, status in buggy.items() if status not in ("pass", "skipped")} == FIRES[example]
    assert set(_statuses(clean).values()) <= {"pass", "skipped"}, clean.checks
    assert clean.environment["backend"] == "gloo" and clean.environment["world_size"] == 2
    assert len(clean.environment["rank_seconds"]) == 2


def test_a_collective_one_rank_skips_is_reported_with_the_rank_and_the_collective(tmp_path):
    folder = tmp_path / "rank0_only_collective"
    shutil.copytree(EXAMPLES / "rank0_only_collective", folder)
    with pytest.raises(DiagnoseError) as caught:
        # 40 s leaves room for two ranks importing torch on a loaded machine; the message (not a wall clock,
        # which a shared CI machine stretches) shows the 10 s process-group timeout cut the hang short
        _run(f"{folder / 'buggy.py'}:debug_spec", folder, timeout_s=40)
    message = str(caught.value)
    assert "cut short here by the 10 s process-group timeout" in message
    assert message.startswith("rank 0 waited in all_reduce, called at ") and "buggy.py:32 in train_step" in message
    assert "rank 1 was waiting in all_gather_object, the diagnostics' own gather" in message
    assert _leftovers(folder) == []
    assert set(_statuses(_run(f"{folder / 'clean.py'}:debug_spec", folder)).values()) <= {"pass", "skipped"}


def test_a_rank_busy_outside_any_collective_is_reported_before_the_run_timeout_and_killed(crashes):
    with pytest.raises(DiagnoseError) as caught:
        _run(f"{crashes / 'crashes.py'}:stalls", crashes, timeout_s=40)
    # the process-group timeout (a quarter of the run's) reported it, not the run's own timeout: the message
    # says so, which a wall clock on a loaded CI machine cannot (it once read 20.25 s for a 20 s run)
    assert str(caught.value).startswith("rank 0 waited in DistributedDataParallel's gradient all-reduce")
    assert "ran past the" not in str(caught.value)
    pids = [int((crashes / f"pid{rank}.txt").read_text()) for rank in (0, 1)]
    assert not [pid for pid in pids if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    assert _leftovers(crashes) == []


@pytest.mark.parametrize(("function", "expected"), [
    ("raises", "rank 1: ValueError while building the debug spec: rank one cannot build its model"),
    ("exits", "rank 1 exited with code 3 before reporting"),
    ("killed", "rank 1 was killed by signal SIGKILL"),
])
def test_a_rank_crash_comes_back_as_an_error_naming_the_rank(crashes, function, expected):
    with pytest.raises(DiagnoseError) as caught:
        _run(f"{crashes / 'crashes.py'}:{function}", crashes, timeout_s=60)
    assert str(caught.value).startswith(expected)
    assert _leftovers(crashes) == []


def test_the_mcp_tool_takes_nproc(tmp_path):
    shutil.copytree(EXAMPLES / "head_outside_ddp", tmp_path / "example")

    async def go():
        async with Client(build_server(AllowedDirs.from_config([str(tmp_path)]))) as client:
            return await client.call_tool("diagnose", {"target": "example/buggy.py:debug_spec", "nproc": 2,
                                                       "checks": ["ranks_gradients_agree"], "timeout_s": 60})

    result = anyio.run(go)
    assert not result.is_error, result.content[0].text
    assert result.structured_content["status"] == "fail"
    assert [c["id"] for c in result.structured_content["checks"]] == ["ranks_gradients_agree"]


def test_cancelling_the_run_kills_every_rank(crashes):
    async def go():
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: service.diagnose_target(f"{crashes / 'crashes.py'}:stalls", cwd=crashes, nproc=2,
                                                             limits=service.limits(timeout_s=120)))
            with anyio.fail_after(60):
                while not all((crashes / f"pid{rank}.txt").exists() for rank in (0, 1)):
                    await anyio.sleep(0.2)
            await anyio.sleep(1.0)  # both ranks in their step: rank 1 asleep, rank 0 in DDP's all-reduce
            group.cancel_scope.cancel()

    anyio.run(go)
    assert _leftovers(crashes) == []


def test_the_memory_cap_counts_every_rank_together(crashes):
    # one process with torch fits in 280 MB (PSS) here; torchrun's agent and two ranks need over 500
    with pytest.raises(DiagnoseError, match=r"processes it started used \d+ MB, over the 400 MB limit"):
        anyio.run(lambda: service.diagnose_target(f"{crashes / 'crashes.py'}:stalls", cwd=crashes, nproc=2,
                                                  limits=service.limits(timeout_s=60, memory_mb=400)))
    assert _leftovers(crashes) == []


def test_a_rank_killed_in_its_step_is_named_rather_than_the_rank_waiting_for_it(crashes):
    (crashes / "crashes.py").write_text(textwrap.dedent(CRASHES) + textwrap.dedent("""
        def _fatal_step(model, batch, optimizer):
            if torch.distributed.get_rank() == 1:
                os.kill(os.getpid(), signal.SIGKILL)
            optimizer.zero_grad()
            F.cross_entropy(model(batch[0]), batch[1]).backward()  # rank 0 waits here for rank 1's gradients
            optimizer.step()

        def killed_in_step(rank, world_size):
            return {**_spec(rank), "train_step": _fatal_step}
        """))
    with pytest.raises(DiagnoseError, match=r"^rank 1 was killed by signal SIGKILL"):
        _run(f"{crashes / 'crashes.py'}:killed_in_step", crashes, timeout_s=40)
    assert _leftovers(crashes) == []
