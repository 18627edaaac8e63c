"""Blind-written variants (F10c): the evaluation-mode families behind the misses and the false alarm, in shapes
of our own, spread over files as projects write them (an engine factory in engine.py, a script in train.py)."""
from pathlib import Path
from textwrap import dedent

from .families import project_findings


def _line(source: str, text: str) -> int:
    return next(n for n, line in enumerate(dedent(source).splitlines(), 1) if text in line)


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
    assert found == [("engine.py", _line(ENGINE_FACTORIES, "x, y = batch"))]


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
    assert [line for _, line in found] == [_line(NOTEBOOK, "outputs = []") + 1]


def test_fresh_instance_switched_or_copied_is_quiet(tmp_path: Path):
    data = "train_set = val_set = test_set = []\n"
    fixed = NOTEBOOK.replace('best_model.load_state_dict(torch.load("net.pt"))\n',
                             'best_model.load_state_dict(torch.load("net.pt"))\n    best_model.eval()\n')
    assert project_findings(tmp_path, {"data.py": data, "nb.py": fixed}, "MLD020") == []
    copied = NOTEBOOK.replace("best_model = build()", "best_model = copy.deepcopy(net)").replace(
        "import torch\n", "import copy\n    import torch\n", 1)
    assert project_findings(tmp_path / "b", {"data.py": data, "nb.py": copied}, "MLD020") == []
