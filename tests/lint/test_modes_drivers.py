"""MLD020 on driver code that lives in an nn.Module or a trainer class: a wrapper module that calibrates
itself over a loader, a model class with its own fit() and a prediction loop, an infer() method that runs in
whatever mode the last training epoch's validation left, and a model call given the model's own mode flag
(`train=False`) in a file that still switches that model with eval() elsewhere. Each with its fixed twin."""

import textwrap

import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source


def _lines(source: str, code: str = "MLD020") -> list[int]:
    found = lint_source(textwrap.dedent(source), "driver.py", LintSettings(select=(code,)))
    return [f.line for f in found if f.code == code]


CALIBRATOR = """
    import torch
    import torch.nn as nn

    class ScaledModel(nn.Module):
        def __init__(self, net):
            super().__init__()
            self.net = net
            self.scale = nn.Parameter(torch.ones(1))

        def forward(self, x):
            return self.net(x) / self.scale

        def calibrate(self, loader):
            {fix}
            outputs, targets = [], []
            with torch.no_grad():
                for x, y in loader:
                    outputs.append(self.net(x))
                    targets.append(y)
            logits, labels = torch.cat(outputs), torch.cat(targets)
            opt = torch.optim.LBFGS([self.scale])
            def closure():
                opt.zero_grad()
                loss = nn.functional.cross_entropy(logits / self.scale, labels)
                loss.backward()
                return loss
            opt.step(closure)
            return self
"""

SELF_FITTING = """
    import torch
    import torch.nn as nn

    class TextClassifier(nn.Module):
        def __init__(self, encoder, n):
            super().__init__()
            self.encoder, self.head = encoder, nn.Linear(128, n)
            self.optimizer = torch.optim.Adam(self.parameters())

        def forward(self, x):
            return self.head(self.encoder(x))

        def fit(self, train_loader):
            self.train()
            for x, y in train_loader:
                loss = nn.functional.cross_entropy(self(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

        def predict_loader(self, test_loader):
            {fix}
            preds = []
            with torch.no_grad():
                for x, _ in test_loader:
                    preds.append(self.head(self.encoder(x)).argmax(-1))
            return torch.cat(preds)
"""

INFER_AFTER_TRAINING = """
    import torch
    import torch.nn as nn

    class RelationTrainer(nn.Module):
        def __init__(self, model, train_loader, val_loader):
            super().__init__()
            self.model = model
            self.train_loader, self.val_loader = train_loader, val_loader
            self.opt = torch.optim.SGD(self.parameters(), lr=0.1)

        def infer(self, sample):
            {fix}
            tokens = self.model.tokenize(sample)
            logits = self.model(tokens, is_training=False)
            return logits.argmax(-1).item()

        def train_model(self, epochs):
            for epoch in range(epochs):
                self.train()
                for x, y in self.train_loader:
                    loss = self.model(x, y).mean()
                    loss.backward()
                    self.opt.step()
                    self.opt.zero_grad()
                self.evaluate(self.val_loader)

        def evaluate(self, loader):
            self.model.eval()
            with torch.no_grad():
                scores = [self.model(x, is_training=False) for x, _ in loader]
            return torch.cat(scores).mean().item()
"""


@pytest.mark.parametrize("source, line, fix", [
    (CALIBRATOR, 17, "self.eval()"),
    (SELF_FITTING, 24, "self.eval()"),
    (INFER_AFTER_TRAINING, 14, "self.model.eval()"),
])
def test_driver_methods_of_a_module_evaluate_in_training_mode(source, line, fix):
    assert _lines(source.replace("{fix}", "pass")) == [line]
    assert _lines(source.replace("{fix}", fix)) == []


def test_a_models_own_helpers_stay_quiet():
    # a model that trains nothing itself: its methods run in whatever mode its user set
    source = """
        import torch
        import torch.nn as nn

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))

            def forward(self, x):
                return self.body(x)

            def embed_all(self, loader):
                with torch.no_grad():
                    return torch.cat([self.body(x) for x, _ in loader])
    """
    assert _lines(source) == []


def test_a_mode_flag_counts_where_the_file_never_switches_that_model():
    source = """
        import torch

        def predict(model, loader):
            with torch.no_grad():
                return [model(x, training=False).argmax(-1) for x in loader]
    """
    assert _lines(source) == []
