"""Blind-written variants (F10c): the evaluation-mode families behind the misses and the false alarm, in shapes
of our own, spread over files as projects write them (an engine factory in engine.py, a script in train.py)."""
from pathlib import Path

from .families import line_of, project_findings

# a factory builds an engine around a closure that runs the model: the closure switches the mode on each call,
# so the factory's caller need not (the mode fact of the factory must come from the closure, not "infers")
ENGINE_FACTORIES = """
    import torch


    class Loop:
        def __init__(self, fn):
            self.fn = fn

        def run(self, batches):
            return [self.fn(b) for b in batches]


    def make_evaluator(model, device):
        def _score(batch):
            model.eval()
            with torch.no_grad():
                return model(batch.to(device))
        return Loop(_score)


    def build_predictor(net):
        def predict_step(x):
            net.eval()
            with torch.inference_mode():
                return net(x).softmax(-1)
        runner = Loop(predict_step)
        return runner


    def create_tester(network, loss_fn):
        def _evaluate(batch):
            x, y = batch
            with torch.no_grad():
                out = network(x)
            return loss_fn(out, y).item()
        return Loop(_evaluate)
"""

ENGINE_SCRIPT = """
    import torch
    from engine import build_predictor, create_tester, make_evaluator

    net = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for x in range(3):
        opt.zero_grad()
        net(torch.randn(2, 4)).sum().backward()
        opt.step()
    evaluator = make_evaluator(net, "cpu")
    predictor = build_predictor(net)
    tester = create_tester(net, torch.nn.functional.mse_loss)
    print(evaluator.run([torch.randn(2, 4)]), predictor.run([torch.randn(2, 4)]), tester.run([]))
"""


def test_closure_that_switches_the_mode_covers_the_factorys_callers(tmp_path: Path):
    found = project_findings(tmp_path, {"engine.py": ENGINE_FACTORIES, "train.py": ENGINE_SCRIPT}, "MLD020")
    # the closure of create_tester runs the model without eval(): reported there, not at the callers of the others
    assert found == [("engine.py", line_of(ENGINE_FACTORIES, "x, y = batch"))]


# a notebook exported as a script: the training cell ends with model.eval() for validation, a later cell builds a
# fresh instance, loads the saved weights into it and predicts the test set; the switch of `model` says nothing
# about `best_model`, built after it
NOTEBOOK = """
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader
    from data import test_set, train_set, val_set

    # In[1]:

    def build():
        return nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))

    net = build()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(3):
        net.train()
        for x, y in DataLoader(train_set, batch_size=8):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            print(sum((net(x).argmax(1) == y).sum() for x, y in DataLoader(val_set, batch_size=8)))
    torch.save(net.state_dict(), "net.pt")

    # In[2]:

    best_model = build()
    best_model.load_state_dict(torch.load("net.pt"))
    test_loader = DataLoader(test_set, batch_size=8)

    # In[3]:

    outputs = []
    with torch.no_grad():
        for x, _ in test_loader:
            outputs.append(best_model(x).softmax(1))
"""


def test_fresh_instance_best_model_after_another_models_eval(tmp_path: Path):
    data = "train_set = val_set = test_set = []\n"
    found = project_findings(tmp_path, {"data.py": data, "nb.py": NOTEBOOK}, "MLD020")
    assert [line for _, line in found] == [line_of(NOTEBOOK, "outputs = []") + 1]


def test_fresh_instance_switched_or_copied_is_quiet(tmp_path: Path):
    data = "train_set = val_set = test_set = []\n"
    fixed = NOTEBOOK.replace('best_model.load_state_dict(torch.load("net.pt"))\n',
                             'best_model.load_state_dict(torch.load("net.pt"))\n    best_model.eval()\n')
    assert project_findings(tmp_path, {"data.py": data, "nb.py": fixed}, "MLD020") == []
    copied = NOTEBOOK.replace("best_model = build()", "best_model = copy.deepcopy(net)").replace(
        "import torch\n", "import copy\n    import torch\n", 1)
    assert project_findings(tmp_path / "b", {"data.py": data, "nb.py": copied}, "MLD020") == []


# a home-made Learner dispatches hooks to callbacks it is handed (never imported: they come in a list); a
# validation callback's hook leaves the learner's model in eval mode, and fit() switched train() once
CALLBACKS = """
    import torch


    class Callback:
        def before_epoch(self, learner): pass
        def after_epoch(self, learner): pass


    class DevScore(Callback):
        def __init__(self, dev_loader):
            self.dev_loader = dev_loader

        @torch.no_grad()
        def after_epoch(self, learner):
            learner.net.eval()
            learner.dev_acc = sum((learner.net(x).argmax(1) == y).float().mean() for x, y in self.dev_loader)


    class TrainMode(Callback):
        def before_train_epoch(self, learner):
            learner.net.train()
"""

LEARNER = """
    import torch


    class Learner:
        def __init__(self, net, loader, cbs):
            self.net, self.loader, self.cbs = net, loader, cbs
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

        def _step(self, x, y):
            self.opt.zero_grad()
            torch.nn.functional.cross_entropy(self.net(x), y).backward()
            self.opt.step()

        def _run(self, event):
            for cb in self.cbs:
                getattr(cb, event)(self)

        def fit(self, epochs):
            self.net.train()
            for epoch in range(epochs):
                for x, y in self.loader:
                    self._step(x, y)
                self._run("after_epoch")

        def fit_direct(self, epochs):
            self.net.train()
            for epoch in range(epochs):
                for x, y in self.loader:
                    self._step(x, y)
                for cb in self.cbs:
                    cb.after_epoch(self)

        def fit_restoring(self, epochs):
            for epoch in range(epochs):
                self._run("before_train_epoch")
                for x, y in self.loader:
                    self._step(x, y)
                self._run("after_epoch")
"""


def test_callback_hook_of_another_file_leaves_the_learners_model_in_eval(tmp_path: Path):
    found = project_findings(tmp_path, {"callbacks.py": CALLBACKS, "learner.py": LEARNER}, "MLD021")
    assert found == [("learner.py", line_of(LEARNER, 'self._run("after_epoch")')),
                     ("learner.py", line_of(LEARNER, "cb.after_epoch(self)"))]


def test_callback_hook_that_restores_train_is_quiet(tmp_path: Path):
    restoring = CALLBACKS.replace(
        "for x, y in self.dev_loader)\n",
        "for x, y in self.dev_loader)\n            learner.net.train()\n")
    assert project_findings(tmp_path, {"callbacks.py": restoring, "learner.py": LEARNER}, "MLD021") == []
