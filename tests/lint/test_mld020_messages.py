"""MLD020's message names the model, not the function that runs it: `evaluate_model(self, loader)` (a helper
imported from another module, whose name says model) is reported as a call that runs the model in training mode,
never as "evaluate_model.eval() is never called" (a function has no eval(); seen on real code)."""

import textwrap

from mldebug_mcp.services.lint import lint

HELPERS = textwrap.dedent('''
    def evaluate_model(model, iterator):
        correct = 0
        for x, y in iterator:
            correct += (model(x).argmax(1) == y).sum().item()
        return correct
''')

IMPORTED_RUNNER = textwrap.dedent('''
    import torch
    from torch import nn
    from utils import *

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.5), nn.Linear(16, 2))
            self.loss_op = nn.CrossEntropyLoss()
            self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

        def forward(self, x):
            return self.net(x)

        def run_epoch(self, batches, val_batches):
            self.train()
            for i, (x, y) in enumerate(batches):
                self.optimizer.zero_grad()
                loss = self.loss_op(self(x), y)
                loss.backward()
                self.optimizer.step()
                if i % 100 == 0:
                    accuracy = evaluate_model(self, val_batches)
                    print(accuracy)
                    self.train()
''')


def test_an_imported_runner_is_named_as_a_function_that_runs_the_model(tmp_path):
    (tmp_path / "model.py").write_text(IMPORTED_RUNNER)
    (tmp_path / "utils.py").write_text(HELPERS)
    found = [f for f in lint([str(tmp_path)]).findings if f.code == "MLD020" and f.path.endswith("model.py")]
    assert [f.line for f in found] == [24], "the evaluation in training mode is reported at the call"
    assert found[0].message.startswith("evaluate_model() runs the model in training mode")
    assert "evaluate_model.eval()" not in found[0].message
