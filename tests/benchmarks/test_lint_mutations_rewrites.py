"""The structural rewrites of benchmarks/lint_mutations.py keep the program's meaning: run both copies and compare."""

from __future__ import annotations

import ast
import contextlib
import io
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import lint_mutations

SCRIPT_LOOP = """
import torch
from torch import nn

torch.manual_seed(0)
STEPS = 3
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(STEPS)]


def report(tag):
    print(tag, round(sum(p.sum().item() for p in model.parameters()), 6))


total = 0.0
for epoch in range(2):
    for x, y in data:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    report(epoch)
print("total", round(total, 6), "last", round(loss.item(), 6))
"""

METHOD_LOOP = """
import torch
from torch import nn


class Trainer:
    def __init__(self):
        torch.manual_seed(1)
        self.model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1))
        self.opt = torch.optim.Adam(self.model.parameters(), lr=0.01)
        self.steps = 0

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for i, (x, y) in enumerate(loader):
            self.opt.zero_grad()
            loss = ((self.model(x) - y) ** 2).mean()
            loss.backward()
            self.opt.step()
            self.steps += 1
            running += loss.item()
        return running / (i + 1)


def main():
    torch.manual_seed(2)
    loader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
    trainer = Trainer()
    for epoch in range(3):
        print(epoch, round(trainer.train_epoch(loader), 6), trainer.steps)


if __name__ == "__main__":
    main()
"""

EVAL_LOOP = """
import torch
from torch import nn


def evaluate(model, loader, threshold=0.0):
    model.eval()
    correct, seen = 0, 0
    with torch.no_grad():
        for x, y in loader:
            pred = (model(x).squeeze(1) > threshold).long()
            correct += (pred == y).sum().item()
            seen += len(y)
    return correct / max(seen, 1), seen


torch.manual_seed(3)
net = nn.Linear(6, 1)
batches = [(torch.randn(10, 6), torch.randint(0, 2, (10,))) for _ in range(4)]
print(evaluate(net, batches))
print(evaluate(net, [], 0.5))
"""

BREAK_LOOP = """
import torch
from torch import nn

torch.manual_seed(4)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)


def fit(max_steps, data):
    step = 0
    best = None
    history = []
    while True:
        x, y = data[step % len(data)]
        opt.zero_grad()
        loss = nn.functional.l1_loss(model(x), y)
        loss.backward()
        opt.step()
        history.append(round(loss.item(), 5))
        best = loss.item() if best is None else min(best, loss.item())
        step += 1
        if step >= max_steps:
            break
    return step, round(best, 6), history


print(fit(7, [(torch.randn(3, 2), torch.randn(3, 1)) for _ in range(2)]))
"""

NESTED_EVAL = """
import torch
from torch import nn

torch.manual_seed(5)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
train = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
val = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(2)]


def run():
    scores = []
    for epoch in range(2):
        for step, (x, y) in enumerate(train):
            opt.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            if step == 1:
                with torch.no_grad():
                    err = 0.0
                    for vx, vy in val:
                        err += nn.functional.mse_loss(model(vx), vy).item()
                scores.append(round(err, 6))
    return scores


print(run())
"""

PROGRAMS = {"script": SCRIPT_LOOP, "method": METHOD_LOOP, "eval": EVAL_LOOP, "break": BREAK_LOOP,
            "nested_eval": NESTED_EVAL}


def _run(source: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<case>", "exec"), {"__name__": "__main__"})  # noqa: S102 - the test's own programs
    return out.getvalue()


def _rewrite(source: str, name: str) -> str:
    return lint_mutations.rewritten({"train.py": textwrap.dedent(source)}, lint_mutations.REWRITES[name])["train.py"]


@pytest.mark.parametrize("rewrite,marker", [("main", "def _script_main():"), ("outlined", "def _loop_")])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_rewrite_keeps_printed_results(program: str, rewrite: str, marker: str) -> None:
    source = PROGRAMS[program]
    new = _rewrite(source, rewrite)
    if rewrite == "outlined" or program != "method":  # METHOD_LOOP's top level is only the __main__ block
        assert marker in new, new
    expected = _run(source)
    assert expected.strip()
    assert _run(new) == expected, new


def test_outlined_moves_both_loops_and_returns_accumulators() -> None:
    new = _rewrite(NESTED_EVAL, "outlined")
    assert new.count("def _loop_") == 2
    assert "err = _loop_" in new  # the evaluation accumulator is used after the loop
    new = _rewrite(EVAL_LOOP, "outlined")
    assert "(correct, seen) = _loop_1(correct, loader, model, seen, threshold)" in new \
        or "correct, seen = _loop_1(correct, loader, model, seen, threshold)" in new, new


def test_main_declares_globals_functions_read() -> None:
    new = _rewrite(SCRIPT_LOOP, "main")
    func = next(n for n in ast.parse(new).body if isinstance(n, ast.FunctionDef) and n.name == "_script_main")
    assert isinstance(func.body[0], ast.Global) and func.body[0].names == ["model", "total"]  # total: a literal constant the loop rebinds
    assert new.rstrip().endswith("_script_main()")


SKIPPED_LOOP = """
import torch


def train(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = model(x).sum()
        loss.backward()
        if loss.item() < 0:
            return loss
        opt.step()


def largest(model, loader):
    for x in loader:
        loss = model(x).sum()
        loss.backward()
        if loss.item() > 0:
            big = loss.item()  # bound on some iterations only: handing it back could fail where the original ran
    return big


def step_all(model, loader, opt):
    global STEP
    for x in loader:
        model(x).sum().backward()
        STEP += 1
"""

SKIPPED_MAIN = """
import torch
LR = 0.1
NAMES = ["a", "b"]


def f():
    return LR
"""


@pytest.mark.parametrize("source,rewrite", [(SKIPPED_LOOP, "outlined"), (SKIPPED_MAIN, "main"),
                                            ("import torch\nglobal X\nX = torch.zeros(1)\n", "main")])
def test_skipped_shapes_stay_unchanged(source: str, rewrite: str) -> None:
    assert _rewrite(source, rewrite) == _rewrite(source, "unparsed")
