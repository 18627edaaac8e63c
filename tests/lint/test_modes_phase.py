"""MLD020 on a step or epoch function shared by the training and validation phases: model.train() runs
whatever the phase and only the update sits under a phase test, so validation runs in training mode. The
finding goes at the train() switch. Fixed twins (the switch follows the phase) and updates guarded by
something else (gradient accumulation) stay quiet."""

import textwrap

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source


def _lines(source: str) -> list[int]:
    found = lint_source(textwrap.dedent(source), "phases.py", LintSettings(select=("MLD020",)))
    return [f.line for f in found if f.code == "MLD020"]


PHASE_LOOP = """
    import torch

    def fit(model, loaders, criterion, optimizer, epochs):
        for epoch in range(epochs):
            for phase in ["train", "val"]:
                {switch}
                for x, y in loaders[phase]:
                    out = model(x)
                    loss = criterion(out, y)
                    if phase == "train":
                        optimizer.zero_grad()
                        loss.backward()
                        optimizer.step()
"""

FLAG_ARGUMENT = """
    import torch

    def run_epoch(model, loader, criterion, optimizer, is_train=True):
        total = 0.0
        {switch}
        for x, y in loader:
            loss = criterion(model(x), y)
            if is_train:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total += loss.item()
        return total
"""

TRAINER_STEP = """
    import torch

    class Trainer:
        def __init__(self, net, opt):
            self.net, self.opt = net, opt

        def step(self, batch, evaluate=False):
            {switch}
            pred = self.net(batch["image"])
            loss = ((pred - batch["target"]) ** 2).mean()
            if not evaluate:
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            return loss.item()
"""


def test_a_phase_loop_that_switches_to_train_for_every_phase():
    assert _lines(PHASE_LOOP.replace("{switch}", "model.train()")) == [7]
    fixed = 'if phase == "train":\n                    model.train()\n                else:\n                    model.eval()'
    assert _lines(PHASE_LOOP.replace("{switch}", fixed)) == []
    assert _lines(PHASE_LOOP.replace("{switch}", 'model.train(phase == "train")')) == []


def test_an_epoch_function_whose_update_depends_on_a_flag():
    assert _lines(FLAG_ARGUMENT.replace("{switch}", "model.train()")) == [6]
    assert _lines(FLAG_ARGUMENT.replace("{switch}", "model.train(is_train)")) == []


def test_a_trainer_step_shared_with_evaluation():
    assert _lines(TRAINER_STEP.replace("{switch}", "self.net = self.net.train()")) == [9]
    fixed = "self.net.train() if not evaluate else self.net.eval()"
    assert _lines(TRAINER_STEP.replace("{switch}", fixed)) == []


def test_gradient_accumulation_is_no_phase():
    source = """
        import torch

        def train_epoch(model, loader, criterion, optimizer, accum=4):
            model.train()
            for i, (x, y) in enumerate(loader):
                loss = criterion(model(x), y) / accum
                loss.backward()
                if (i + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
    """
    assert _lines(source) == []
    scaler_flag = """
        import torch

        def train_epoch(model, loader, criterion, optimizer, scaler, use_amp):
            model.train()
            for x, y in loader:
                loss = criterion(model(x), y)
                if use_amp:
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                else:
                    loss.backward()
                    optimizer.step()
    """
    assert _lines(scaler_flag) == []
