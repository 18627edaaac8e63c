"""What the distributed diagnose costs next to training: the distributed suite against 200 plain DDP steps of
the same setup, side by side, for each example in examples/distributed.

Both sides start the same way (torchrun, standalone rendezvous, 2 ranks, gloo on CPU, one thread per rank,
the user's interpreter importing torch in every rank) and are timed end to end, wall clock, one after the
other in this run. Training runs the example's debug_spec for STEPS steps of its own step: its train_step
when given, else zero_grad, loss, backward, step, on the spec's batch (or its loader's first batch). The
target is diagnose within 3x the training time. Also shown: the time inside the ranks (diagnose's slowest
rank's measurements against the slowest rank's 200 steps), where startup is left out.

    python benchmarks/diagnose_distributed.py [--variant clean|buggy] [--steps 200] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import anyio

from mldebug_mcp.services import diagnose as service

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "distributed"
TARGET_RATIO = 3.0
HANGS = {("rank0_only_collective", "buggy")}  # ends in the collective timeout by design: not a cost to compare

TRAIN = textwrap.dedent("""
    import importlib.util, json, os, sys, time
    import torch, torch.distributed as dist
    path, steps = sys.argv[1], int(sys.argv[2])
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    loaded = importlib.util.spec_from_file_location("example", path)
    example = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(example)
    spec = example.debug_spec(rank, world)
    model = spec["model"]
    batch = spec.get("batch") or tuple(next(iter(spec["loader"])))
    factory = spec.get("optimizer") or (lambda params: torch.optim.Adam(params, lr=3e-4))
    optimizer = factory(model.parameters())
    dist.barrier()
    started = time.perf_counter()
    for _ in range(steps):
        if spec.get("train_step"):
            spec["train_step"](model, batch, optimizer)
        else:
            optimizer.zero_grad()
            spec["loss_fn"](model(batch[0]), batch[1]).backward()
            optimizer.step()
    seconds = time.perf_counter() - started
    times = [None] * world
    dist.all_gather_object(times, seconds)
    if rank == 0:
        print("STEPS_SECONDS " + json.dumps(times), flush=True)
    dist.barrier()
    os._exit(0)  # torch 2.13's gloo threads sometimes abort in the interpreter's teardown
""")


def train(path: Path, steps: int, script: Path) -> tuple[float, float]:
    """(wall seconds of the whole torchrun, the slowest rank's seconds in the steps)."""
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
               str(script), str(path), str(steps)]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=path.parent, env=env, timeout=600, check=False)
    wall = time.perf_counter() - started
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("STEPS_SECONDS ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"training {path} failed ({done.returncode}): {done.stderr[-800:]}")
    return wall, max(json.loads(line.split(" ", 1)[1]))


def diagnose(path: Path) -> tuple[float, float, str]:
    """(wall seconds, the slowest rank's measuring seconds, the overall status)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    started = time.perf_counter()
    report = anyio.run(lambda: service.diagnose_target(f"{path}:debug_spec", limits=service.limits(timeout_s=300),
                                                       cwd=path.parent, nproc=2))
    return time.perf_counter() - started, max(report.environment["rank_seconds"]), report.status


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", choices=("clean", "buggy"), default="clean")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--only", nargs="*", help="example folder names (default: all)")
    args = parser.parse_args()
    names = sorted(p.name for p in EXAMPLES.iterdir() if (p / f"{args.variant}.py").is_file())
    names = [n for n in names if (not args.only or n in args.only) and (n, args.variant) not in HANGS]
    print(f"{'example':<26} {'status':<6} {'diagnose s':>10} {f'{args.steps} steps s':>11} {'ratio':>6}   "
          f"{'in ranks: diagnose s':>20} {'steps s':>8}")
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "train_steps.py"
        script.write_text(TRAIN)
        for name in names:
            path = EXAMPLES / name / f"{args.variant}.py"
            d_wall, d_ranks, status = diagnose(path)
            t_wall, t_ranks = train(path, args.steps, script)
            ratio = d_wall / t_wall
            ratios.append(ratio)
            print(f"{name:<26} {status:<6} {d_wall:10.2f} {t_wall:11.2f} {ratio:6.2f}   {d_ranks:20.3f} {t_ranks:8.3f}",
                  flush=True)
    worst = max(ratios, default=0.0)
    print(f"worst ratio {worst:.2f} (target <= {TARGET_RATIO:g}): {'met' if worst <= TARGET_RATIO else 'MISSED'}")
    return 0 if worst <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
