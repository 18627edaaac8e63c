"""Start a distributed run (torchrun and its N ranks) and watch it as ../launch.py watches one child.

The child is agent.py in the user's interpreter, in a new session, carrying the run's marker; torchrun
starts each rank in a session of its own, so the process tree (../process_tree.py), not the process
group, is what finds, measures and kills them all: the memory cap counts every rank together, and a
timeout, a cancel or the first failure kills the whole run. Never imports torch.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import DiagnoseError
from ..launch import (
    Limits,
    ProgressCallback,
    Stop,
    run_child,
    stop_message,
    survivors_note,
)
from .bootstrap import BOOTSTRAP
from .rank_events import RankEvents

DIAGNOSTICS_DIR = Path(__file__).parent.parent
MIN_COLLECTIVE_TIMEOUT_S = 2.0


def collective_timeout(run_timeout_s: float) -> float:
    """The process group's timeout: a quarter of the run's, so a collective no rank completes fails, and is
    reported, while the run still has time (torch's own default is 30 minutes on gloo)."""
    return max(MIN_COLLECTIVE_TIMEOUT_S, run_timeout_s / 4)


async def run_ranks(target: str, options: dict[str, Any], limits: Limits, cwd: Path, nproc: int,
                    on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    """Rank 0's report, or DiagnoseError naming the rank that failed and how."""
    options = {**options, "collective_timeout_s": collective_timeout(limits.timeout_s)}

    def make_run(tmp: Path) -> tuple[list[str], RankEvents]:
        return ([BOOTSTRAP, str(DIAGNOSTICS_DIR), "agent", str(nproc), str(tmp), target, json.dumps(options)],
                RankEvents(tmp, nproc))

    def settle(final: dict[str, Any] | Stop, events: RankEvents) -> dict[str, Any] | Stop:
        if isinstance(final, Stop) and final.reason in ("exited", "timeout"):
            return events.flush() or final  # a failure held back for a better explanation is the best one
        return final

    final, returncode, tail, survivors = await run_child(make_run, limits, cwd, on_progress, "distributed", settle)
    return outcome(final, returncode, tail, limits, survivors, options["collective_timeout_s"])


def outcome(final: dict[str, Any] | Stop, returncode: int | None, tail: str, limits: Limits, survivors: list[str],
            collective_timeout_s: float) -> dict[str, Any]:
    if isinstance(final, dict) and final["event"] == "report":
        return final["report"]
    note = survivors_note(survivors)
    if isinstance(final, Stop):
        if final.reason == "exited":
            raise DiagnoseError(f"torchrun exited with code {returncode} before any rank reported{note}",
                                output_tail=tail)
        raise DiagnoseError(stop_message(final, returncode, limits) + note, output_tail=tail)
    error, stage, rank = final["error"], final["stage"], final.get("rank")
    who = f"rank {rank}" if rank is not None else "torchrun"
    if stage == "import":
        message = (f"{limits.python} cannot import torch.distributed ({error['message']}); install torch in that "
                   "environment or pass --python with an interpreter that has it")
    elif stage == "rank":
        message = f"{who} {error['message']}"
    elif stage == "collective":
        message = collective_message(final, who, collective_timeout_s)
    else:
        where = {"init": "joining the process group", "build": "building the debug spec",
                 "spec": "validating the debug spec", "run": "running the step and the checks"}.get(stage, "running")
        message = f"{who}: {error['type']} while {where}: {error['message']}"
    raise DiagnoseError(message + note, error["frames"], tail)


def collective_message(final: dict[str, Any], who: str, collective_timeout_s: float) -> str:
    """'rank 0 waited in all_reduce (called at ...) that rank 1 never reached (it was in ...)', with gloo's words."""
    error, others = final["error"], final.get("others", [])
    called = f", called at {final['called_at']}," if final.get("called_at") else ""
    elsewhere = "; ".join(f"rank {o['rank']} was waiting in {o['collective']} instead" for o in others)
    return (f"{who} waited in {final.get('collective', 'a collective')}{called} which not every rank reached: a "
            f"collective that some rank skips or calls in another order hangs the job (cut short here by the "
            f"{collective_timeout_s:g} s process-group timeout){'; ' + elsewhere if elsewhere else ''}. Every "
            f"rank must call the same collectives in the same order: move rank-dependent code (logging, saving) "
            f"out of them. gloo said: {error['type']}: {error['message']}")
