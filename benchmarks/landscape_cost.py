"""The landscape probe at its default grid against 200 training steps of the same setup, side by side.

The issue's target: probing the landscape (41 points on each of 3 slices, a 21x21 grid, the gradient,
d.H.d per direction and two power iterations of 20 Hessian-vector products each) costs at most 5x the
time of 200 training steps (forward, backward, Adam) on the same model and batch. Both run in this
process, one thread, best of --repeat, with a budget large enough that the grid is never shrunk.

    python benchmarks/landscape_cost.py [--repeat 3] [--device cpu] [--threads 1]

Exit code 1 when a setup is over the target.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

TARGET_RATIO = 5.0
TRAIN_STEPS = 200


def setups(device):
    import torch
    import torch.nn.functional as F

    def mlp():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                    torch.nn.ReLU(), torch.nn.Linear(128, 10))
        x, y = torch.randn(128, 32), torch.randint(0, 10, (128,))
        return model, (x, y), F.cross_entropy

    def cnn():
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
                                    torch.nn.MaxPool2d(2), torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.AdaptiveAvgPool2d(4), torch.nn.Flatten(), torch.nn.Linear(512, 10))
        x, y = torch.randn(64, 1, 28, 28), torch.randint(0, 10, (64,))
        return model, (x, y), F.cross_entropy

    def transformer():
        torch.manual_seed(0)
        layer = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True)
        body = torch.nn.Sequential(torch.nn.Embedding(100, 64), torch.nn.TransformerEncoder(layer, 2),
                                   torch.nn.Linear(64, 100))
        x = torch.randint(0, 100, (16, 32))
        return body, (x, x), lambda out, t: F.cross_entropy(out.reshape(-1, 100), t.reshape(-1))

    for name, build in (("mlp 32-128-128-10, batch 128", mlp), ("cnn 28x28, batch 64", cnn),
                        ("transformer 2x64, 16x32 tokens", transformer)):
        model, (x, y), loss_fn = build()
        yield name, model.to(device), (x.to(device), y.to(device)), loss_fn


def train_seconds(model, batch, loss_fn):
    import copy

    import torch

    model = copy.deepcopy(model)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    started = time.perf_counter()
    for _ in range(TRAIN_STEPS):
        optimizer.zero_grad(set_to_none=True)
        loss_fn(model(batch[0]), batch[1]).backward()
        optimizer.step()
    with torch.no_grad():
        loss_fn(model(batch[0]), batch[1]).item()  # waits for an accelerator's queue
    return time.perf_counter() - started


def probe_seconds(model, batch, loss_fn):
    from mldebug_mcp.diagnostics.landscape.probe import probe

    started = time.perf_counter()
    report = probe(model, lambda m: loss_fn(m(batch[0]), batch[1]), budget_s=3600)
    return time.perf_counter() - started, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.device}, {args.threads} thread(s), best of {args.repeat}")
    print(f"{'setup':<32} {'200 steps':>10} {'landscape':>10} {'ratio':>6}  grid  verdict")
    over = 0
    for name, model, batch, loss_fn in setups(args.device):
        train = min(train_seconds(model, batch, loss_fn) for _ in range(args.repeat))
        runs = [probe_seconds(model, batch, loss_fn) for _ in range(args.repeat)]
        probe, report = min(runs, key=lambda r: r[0])
        ratio = probe / train
        over += ratio > TARGET_RATIO
        size = report["surface"]["size"] if report["surface"] else 0
        print(f"{name:<32} {train:>9.2f}s {probe:>9.2f}s {ratio:>5.2f}x  {size}x{size}  {report['verdict']}"
              f"{'' if ratio <= TARGET_RATIO else '  OVER TARGET'}")
    print(f"target: landscape within {TARGET_RATIO:g}x of {TRAIN_STEPS} training steps")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
