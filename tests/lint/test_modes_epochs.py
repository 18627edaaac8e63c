"""MLD021 on epoch loops whose steps are calls: the training step is a helper of this file
(`self.train_epoch(loader)`, `run_epoch(model, ...)`) and the evaluation an evaluator object built with the
model (`Evaluator(model).scores()`, a class of this file or of another file of the run) or a local
validate(). Each with fixed twins: the helper sets the mode itself, or the evaluator restores it."""

import textwrap

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source

from .families import project_findings


def _lines(source: str) -> list[int]:
    found = lint_source(textwrap.dedent(source), "trainer.py", LintSettings(select=("MLD021",)))
    return [f.line for f in found if f.code == "MLD021"]


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD021")


SAME_FILE = """
    import torch

    class Evaluator:
        def __init__(self, model, loader):
            self.model, self.loader = model, loader

        def evaluate(self):
            self.model.eval()
            with torch.no_grad():
                return sum(self.model(x).argmax(1).eq(y).sum().item() for x, y in self.loader)

    class Trainer:
        def __init__(self, model, optimizer, train_loader, dev_loader):
            self.model, self.optimizer = model, optimizer
            self.train_loader, self.dev_loader = train_loader, dev_loader

        def train_epoch(self):
            {fix}
            for x, y in self.train_loader:
                loss = torch.nn.functional.cross_entropy(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

        def fit(self, epochs):
            self.model.train()
            for epoch in range(epochs):
                self.train_epoch()
                accuracy = Evaluator(self.model, self.dev_loader).evaluate()
                print(epoch, accuracy)
"""


def test_an_evaluator_object_of_this_file_after_a_training_helper():
    assert _lines(SAME_FILE.replace("{fix}", "pass")) == [30]
    assert _lines(SAME_FILE.replace("{fix}", "self.model.train()")) == []
    # a training helper that freezes BatchNorm on purpose sets the mode itself on every call
    assert _lines(SAME_FILE.replace("{fix}", "self.model.eval()")) == []


EVALUATORS = """
    import torch

    class DevScorer:
        def __init__(self, model, loader, split="dev"):
            self.model, self.loader, self.split = model, loader, split

        def scores(self):
            self.model.eval()
            with torch.no_grad():
                out = [self.model(x) for x, _ in self.loader]
            {restore}
            return torch.cat(out).mean().item()
"""

TRAIN_SCRIPT = """
    import torch
    from evaluators import DevScorer

    def train_one_epoch(model, loader, optimizer):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    def main(model, loader, dev_loader, optimizer, epochs):
        scorer = DevScorer(model, dev_loader)
        model.train()
        for epoch in range(epochs):
            train_one_epoch(model, loader, optimizer)
            print(epoch, scorer.scores())
"""


def test_an_evaluator_object_of_another_file(tmp_path):
    found = _run(tmp_path, {"evaluators.py": EVALUATORS.replace("{restore}", "pass"), "train.py": TRAIN_SCRIPT})
    assert found == [("train.py", 17)]
    fixed = EVALUATORS.replace("{restore}", "self.model.train()")
    assert _run(tmp_path, {"evaluators.py": fixed, "train.py": TRAIN_SCRIPT}) == []


LOCAL_VALIDATE = """
    import torch

    def run_epoch(net, loader, opt):
        {fix}
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            opt.step()

    def validate(net, loader):
        net.eval()
        with torch.no_grad():
            return [net(x) for x, _ in loader]

    def fit(net, loader, val_loader, opt, epochs):
        net.train()
        for epoch in range(epochs):
            run_epoch(net, loader, opt)
            validate(net, val_loader)
"""


def test_a_local_validate_after_a_training_helper():
    assert len(_lines(LOCAL_VALIDATE.replace("{fix}", "pass"))) == 1
    assert _lines(LOCAL_VALIDATE.replace("{fix}", "net.train()")) == []
