"""MLD020 where validation reaches the model through a helper shared with training: a trainer's
`_forward_pass()` method, a module-level `run_batch(net, batch)`, a `compute_loss(batch)` method. The
finding opens the evaluating function; fixed twins (eval() there, or a helper that switches the mode
itself) stay quiet."""

import textwrap

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source


def _lines(source: str) -> list[int]:
    found = lint_source(textwrap.dedent(source), "trainer.py", LintSettings(select=("MLD020",)))
    return [f.line for f in found if f.code == "MLD020"]


TRAINER = """
    import torch

    class SegTrainer:
        def __init__(self, model, optimizer, criterion, loaders):
            self.model, self.optimizer, self.criterion, self.loaders = model, optimizer, criterion, loaders

        def fit(self, epochs):
            for _ in range(epochs):
                self.model.train()
                for x, y in self.loaders["train"]:
                    _, loss = self._forward_pass(x, y)
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                score = self.validate(self.loaders["val"])

        def validate(self, val_loader):
            {fix}
            scores = []
            with torch.no_grad():
                for x, y in val_loader:
                    output, loss = self._forward_pass(x, y)
                    scores.append(loss.item())
            return sum(scores) / len(scores)

        def _forward_pass(self, x, y):
            output = self.model(x)
            return output, self.criterion(output, y)
"""

MODULE_HELPER = """
    import torch

    def run_batch(net, batch, device):
        return net(batch["x"].to(device))

    def train_epoch(net, loader, optimizer, device):
        net.train()
        for batch in loader:
            loss = torch.nn.functional.cross_entropy(run_batch(net, batch, device), batch["y"].to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    def evaluate(net, val_loader, device):
        {fix}
        correct = 0
        with torch.no_grad():
            for batch in val_loader:
                logits = run_batch(net, batch, device)
                correct += (logits.argmax(1) == batch["y"].to(device)).sum().item()
        return correct
"""

LOSS_METHOD = """
    import torch

    class Runner:
        def __init__(self, net, opt, train_loader, val_loader):
            self.net, self.opt = net, opt
            self.train_loader, self.val_loader = train_loader, val_loader

        def compute_loss(self, batch):
            pred = self.net(batch[0])
            return torch.nn.functional.mse_loss(pred, batch[1])

        def train_one_epoch(self):
            self.net.train()
            for batch in self.train_loader:
                loss = self.compute_loss(batch)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()

        def evaluate(self):
            {fix}
            with torch.no_grad():
                losses = [self.compute_loss(b).item() for b in self.val_loader]
            return sum(losses) / len(losses)
"""


def test_validation_through_a_trainers_forward_helper():
    assert _lines(TRAINER.replace("{fix}", "pass")) == [20]
    assert _lines(TRAINER.replace("{fix}", "self.model.eval()")) == []


def test_validation_through_a_module_level_helper():
    assert _lines(MODULE_HELPER.replace("{fix}", "pass")) == [17]
    assert _lines(MODULE_HELPER.replace("{fix}", "net.eval()")) == []


def test_validation_through_a_loss_method():
    assert _lines(LOSS_METHOD.replace("{fix}", "pass")) == [23]
    assert _lines(LOSS_METHOD.replace("{fix}", "self.net.eval()")) == []


def test_a_helper_that_sets_the_mode_itself_stays_quiet():
    source = TRAINER.replace("{fix}", "pass").replace(
        "            output = self.model(x)\n", "            self.model.eval()\n            output = self.model(x)\n")
    assert _lines(source) == []


ENSEMBLE_AGENT = """
    import torch

    class Agent:
        def __init__(self, q_nets, optimizer):
            self.q_nets, self.optimizer = q_nets, optimizer

        def update(self, obs, target):
            for q_net in self.q_nets:
                q_net.train()
            loss = sum(((q(obs) - target) ** 2).mean() for q in self.q_nets)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

        def best_action(self, obs):
            values = torch.stack([q_net(obs) for q_net in self.q_nets]).min(0)[0]
            return values.argmax(-1)

        def first_head(self, obs):
            return self.q_nets[0](obs).argmax(-1)

        @torch.no_grad()
        def evaluate_policy(self, obs):
            {fix}
            return self.best_action(obs), self.first_head(obs)
"""


def test_an_ensemble_run_through_helpers():
    # `q_net` of `for q_net in self.q_nets` and `self.q_nets[0]` stand for the container self.q_nets
    assert _lines(ENSEMBLE_AGENT.replace("{fix}", "pass")) == [26]
    fixed = "for q_net in self.q_nets:\n                q_net.eval()"
    assert _lines(ENSEMBLE_AGENT.replace("{fix}", fixed)) == []
