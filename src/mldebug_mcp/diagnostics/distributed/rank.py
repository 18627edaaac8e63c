"""Entry point of one rank, started by torchrun (see agent.py): join the process group, build the spec,
run the distributed checks, and write events to rank<N>.jsonl in the events folder.

Every error event names the rank and the time it happened, so that the parent can tell the rank that
failed first from the ranks that failed because of it. A collective that times out, or that a dead peer
left, is reported as stage "collective" with the collective's name, read from the traceback (the
torch.distributed function the code called, or DDP's all-reduce inside backward), and the line of user
code that called it. (TORCH_DISTRIBUTED_DEBUG=DETAIL would name it too, but in torch 2.13 it makes the
DistributedDataParallel constructor crash with SIGSEGV on gloo, so it is left to the user.)

argv: events folder, target, options (JSON: backend, collective_timeout_s, only, roots).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from typing import Any, NoReturn

from ..checks.result import user_traceback
from ..checks.runner import Events, load_target

_OWN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# what gloo says when a collective was not reached by every rank, or a peer died in it
COLLECTIVE_SIGNS = ("monitoredBarrier", "mismatch between collectives", "Timed out", "timed out",
                    "Connection closed by peer", "Connection reset by peer", "Broken pipe", "pair closure")


def main(argv: list[str]) -> int:
    events_dir, target, options = argv[0], argv[1], json.loads(argv[2])
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    events = Events(os.path.join(events_dir, f"rank{rank}.jsonl"))
    events.emit(event="started", pid=os.getpid(), python=sys.executable, rank=rank)

    def fail(stage: str, error: dict[str, Any], exc: BaseException | None = None) -> int:
        where = collective_of(exc, error["frames"]) if exc is not None and stage == "collective" else {}
        events.emit(event="error", stage=stage, rank=rank, time=time.time(), error=error, **where)
        return 1

    try:
        import torch.distributed as dist
    except ImportError as exc:
        return fail("import", {"type": "ImportError", "message": str(exc), "frames": []})
    from ..checks.spec import SpecError
    from .rank_spec import as_rank_spec, build_spec
    from .runner import run_rank

    try:
        backend = join_group(options)
    except Exception as exc:  # noqa: BLE001 - any error of user code is reported with the rank
        return fail("init", user_traceback(exc, _OWN_DIR))
    try:
        spec = build_spec(load_target(target, options.get("roots")), rank, world_size)
        rank_spec = as_rank_spec(spec)
    except SpecError as exc:
        return fail("spec", {"type": "SpecError", "message": str(exc), "frames": []})
    except Exception as exc:  # noqa: BLE001 - any error of user code is reported with the rank
        return fail(_stage(exc, "build"), user_traceback(exc, _OWN_DIR), exc)
    try:
        report = run_rank(rank_spec, rank=rank, world_size=world_size, backend=backend, only=options.get("only"),
                          progress=lambda i, n, check: events.emit(event="progress", index=i, total=n, check=check))
    except Exception as exc:  # noqa: BLE001 - any error of user code is reported with the rank
        return fail(_stage(exc, "run"), user_traceback(exc, _OWN_DIR), exc)
    if report is not None:
        events.emit(event="report", report=report)
    return leave(dist)


def leave(dist: Any) -> NoReturn:
    """Wait until rank 0 has reported, then exit without the interpreter's teardown: torch 2.13's gloo
    threads sometimes abort at exit ("terminate called without an active exception"), which torchrun would
    take for a failed rank and answer by killing rank 0 before its report is written."""
    try:
        dist.barrier()
        dist.destroy_process_group()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

def join_group(options: dict[str, Any]) -> str:
    """Initialise the default process group with a timeout shorter than the run's, so that a collective
    some rank never reaches fails in time to be reported. gloo on CPU; where CUDA is present, gloo for CPU
    tensors and nccl for CUDA ones ("cpu:gloo,cuda:nccl": the model may sit on either, and the diagnostics'
    own gather stays on the CPU), each rank on GPU LOCAL_RANK (modulo the GPUs there are)."""
    from datetime import timedelta

    import torch
    import torch.distributed as dist

    device = options.get("device") or ""
    backend = options.get("backend")
    if backend is None:
        cuda = torch.cuda.is_available() and not device.startswith("cpu")
        backend = "cpu:gloo,cuda:nccl" if cuda else "gloo"
    if "nccl" in backend:
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
    if not dist.is_initialized():
        dist.init_process_group(backend, timeout=timedelta(seconds=float(options["collective_timeout_s"])))
    return backend


def _stage(exc: BaseException, default: str) -> str:
    return "collective" if any(sign in str(exc) for sign in COLLECTIVE_SIGNS) else default


def collective_of(exc: BaseException, user_frames: list[str]) -> dict[str, Any]:
    """The collective a rank was waiting in when `exc` was raised, and the user's line that called it:
    the outermost public torch.distributed function in the traceback, or DDP's gradient all-reduce when
    the wait was inside backward(); the diagnostics' own gather is named as such."""
    frames = traceback.extract_tb(exc.__traceback__)
    called = next((f for f in frames if f.filename.endswith("distributed_c10d.py") and not f.name.startswith("_")
                   and f.name != "wrapper"), None)
    if called is not None:
        name = called.name
    elif any(f.name == "backward" and f"{os.sep}autograd{os.sep}" in f.filename for f in frames):
        name = "DistributedDataParallel's gradient all-reduce (inside backward())"
    else:
        name = "a collective"
    if not user_frames and any(f.name == "run_rank" and f.filename.startswith(_OWN_DIR) for f in frames):
        return {"collective": f"{name}, the diagnostics' own gather after the step (every rank reaches it once "
                              "its step is done)", "ours": True}
    return {"collective": name, "called_at": user_frames[-1] if user_frames else ""}
