"""Blind-written variants, round 2 (F11c): the evaluation-mode families behind the misses and the false alarms,
in shapes of our own, spread over files as projects write them."""
from pathlib import Path
from textwrap import dedent

from .families import line_of, project_findings

# an averaging wrapper of the project deep-copies the live model (its training mode with it) and never switches
# the copy; the script evaluates the copy with a helper that does not switch modes, after the live model's eval()
AVERAGER = """
    import copy

    import torch.nn as nn


    class WeightAverager(nn.Module):
        def __init__(self, net, beta=0.999):
            super().__init__()
            self.shadow = copy.deepcopy(net)
            self.beta = beta
            for p in self.shadow.parameters():
                p.requires_grad_(False)

        def step(self, net):
            for a, b in zip(self.shadow.parameters(), net.parameters()):
                a.data.mul_(self.beta).add_(b.data, alpha=1 - self.beta)
"""

AVERAGER_SCRIPT = """
    import torch
    from averager import WeightAverager


    @torch.no_grad()
    def score(network, batches):
        hits = 0
        for x, y in batches:
            hits += (network(x).argmax(-1) == y).sum().item()
        return hits


    def run(net, opt, train_batches, val_batches, epochs):
        avg = WeightAverager(net)
        for _ in range(epochs):
            net.train()
            for x, y in train_batches:
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(x), y).backward()
                opt.step()
                avg.step(net)
            net.eval()
            live = score(net, val_batches)
            smooth = score(avg.shadow, val_batches)
            print(live, smooth)
"""

# the evaluation helper lives in a third file, the wrapper keeps its copy in a differently named attribute
SWA = """
    from copy import deepcopy


    class SlowWeights:
        def __init__(self, model):
            self.averaged_model = deepcopy(model)
            self.n = 0

        def update(self, model):
            self.n += 1
"""

SWA_EVAL = """
    import torch


    def accuracy_of(model, loader):
        right = 0
        with torch.inference_mode():
            for inputs, labels in loader:
                right += (model(inputs).argmax(1) == labels).sum().item()
        return right / len(loader.dataset)
"""

SWA_SCRIPT = """
    import torch
    from evaluate import accuracy_of
    from swa import SlowWeights


    def main(model, optimizer, loaders, epochs):
        slow = SlowWeights(model)
        for epoch in range(epochs):
            model.train()
            for x, y in loaders["train"]:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            slow.update(model)
            model.eval()
            print(accuracy_of(model, loaders["val"]), accuracy_of(slow.averaged_model, loaders["val"]))
"""


def test_averaged_copy_never_switched_is_reported_where_it_is_evaluated(tmp_path: Path):
    found = project_findings(tmp_path / "a", {"averager.py": AVERAGER, "train.py": AVERAGER_SCRIPT}, "MLD020")
    assert found == [("train.py", line_of(AVERAGER_SCRIPT, "smooth = score"))]
    found = project_findings(tmp_path / "b", {"swa.py": SWA, "evaluate.py": SWA_EVAL, "main.py": SWA_SCRIPT},
                             "MLD020")
    # (the helper that runs what it is handed under inference_mode without eval() is reported by itself too)
    assert ("main.py", line_of(SWA_SCRIPT, "accuracy_of(slow.averaged_model")) in found


def test_averaged_copy_switched_by_its_class_or_its_caller_is_quiet(tmp_path: Path):
    switched = AVERAGER.replace("self.shadow = copy.deepcopy(net)\n",
                                "self.shadow = copy.deepcopy(net)\n            self.shadow.eval()\n")
    assert project_findings(tmp_path / "a", {"averager.py": switched, "train.py": AVERAGER_SCRIPT}, "MLD020") == []
    by_caller = AVERAGER_SCRIPT.replace("smooth = score(", "avg.eval()\n            smooth = score(")
    assert project_findings(tmp_path / "b", {"averager.py": AVERAGER, "train.py": by_caller}, "MLD020") == []
    # the script switches the copy in a set-up step of its own
    setup = AVERAGER_SCRIPT.replace("        avg = WeightAverager(net)\n",
                                    "        avg = WeightAverager(net)\n        freeze(avg.shadow)\n") + (
        "\n    def freeze(copy):\n        copy.eval()\n        return copy\n")
    assert setup != AVERAGER_SCRIPT
    # (freeze(avg.shadow) switches it through a helper of the file)
    assert project_findings(tmp_path / "e", {"averager.py": AVERAGER, "train.py": setup}, "MLD020") == []
    # a wrapper from a library (not a file of the run): its mode handling is not known here
    library = AVERAGER_SCRIPT.replace("from averager import WeightAverager", "from timm.utils import WeightAverager")
    assert project_findings(tmp_path / "c", {"train.py": library}, "MLD020") == []
    # a helper that switches the model it is handed itself
    own = SWA_EVAL.replace("    right = 0\n", "    model.eval()\n        right = 0\n")
    assert project_findings(tmp_path / "d", {"swa.py": SWA, "evaluate.py": own, "main.py": SWA_SCRIPT},
                            "MLD020") == []


# a distillation trainer keeps a student and a frozen teacher; one method trains the student and evaluates the
# teacher, so the two are separate models: the validation method's teacher.eval() leaves the student training
DISTILL = """
    import torch


    class KDTrainer:
        def __init__(self, pupil, mentor, opt, device="cuda"):
            self.pupil = pupil.to(device)
            self.mentor = mentor.to(device)
            self.opt = opt

        def fit_epoch(self, loader):
            self.pupil.train()
            self.mentor.eval()
            for x, y in loader:
                with torch.no_grad():
                    soft = self.mentor(x).softmax(-1)
                loss = (self.pupil(x).log_softmax(-1) * soft).sum()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()

        @torch.no_grad()
        def evaluate(self, val_loader):
            self.mentor.eval()
            hits = 0
            for x, y in val_loader:
                hits += (self.pupil(x).argmax(-1) == y).sum().item()
            return hits
"""


def test_only_the_other_model_switched_before_evaluation(tmp_path: Path):
    found = project_findings(tmp_path / "a", {"kd.py": DISTILL}, "MLD020")
    second_switch = [n for n, line in enumerate(dedent(DISTILL).splitlines(), 1) if "self.mentor.eval()" in line][1]
    assert found == [("kd.py", second_switch)]  # where the student's eval() goes: the top of evaluate()
    fixed = DISTILL.replace("self.mentor.eval()\n            hits", "self.pupil.eval()\n            hits")
    assert fixed != DISTILL
    assert project_findings(tmp_path / "b", {"kd.py": fixed}, "MLD020") == []
    # both switched for the evaluation
    both = DISTILL.replace("self.mentor.eval()\n            hits",
                           "self.mentor.eval()\n            self.pupil.eval()\n            hits")
    assert both != DISTILL
    assert project_findings(tmp_path / "c", {"kd.py": both}, "MLD020") == []


# a learner's epoch method sets the mode of the phase (train(is_training)) and calls a per-batch method that runs
# the model: the caller chose the mode
PHASED = """
    import torch


    class Runner:
        def __init__(self, net, loaders, loss_fn, opt):
            self.net, self.loaders, self.loss_fn, self.opt = net, loaders, loss_fn, opt

        def _batch(self, x, y):
            self.out = self.net(x)
            self.loss = self.loss_fn(self.out, y)

        def _epoch(self, is_training):
            self.net.train(is_training)
            loader = self.loaders[0] if is_training else self.loaders[1]
            with torch.set_grad_enabled(is_training):
                for x, y in loader:
                    self._batch(x, y)
                    if is_training:
                        self.loss.backward()
                        self.opt.step()
                        self.opt.zero_grad()

        def fit(self, epochs):
            for _ in range(epochs):
                self._epoch(True)
                self._epoch(False)
"""


def test_per_batch_method_under_a_phase_mode_is_quiet(tmp_path: Path):
    assert project_findings(tmp_path, {"runner.py": PHASED}, "MLD020") == []


# a model factory in another file loads a checkpoint and returns the model in eval mode; the ensemble script's
# prediction helper relies on it
FACTORY = """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.2), nn.Linear(8, 2))

        def forward(self, x):
            return self.body(x)


    def load_member(path, device):
        net = Net()
        net.load_state_dict(torch.load(path, map_location="cpu"))
        return net.to(device).eval()
"""

ENSEMBLE = """
    import torch
    from members import load_member


    @torch.no_grad()
    def predict(net, loader):
        return torch.cat([net(x).softmax(-1) for x in loader])


    def main(paths, loader):
        total = 0
        for path in paths:
            member = load_member(path, "cpu")
            total = total + predict(member, loader)
        return total
"""


def test_model_from_a_factory_that_switches_it_is_quiet(tmp_path: Path):
    assert project_findings(tmp_path / "a", {"members.py": FACTORY, "infer.py": ENSEMBLE}, "MLD020") == []
    unswitched = FACTORY.replace("return net.to(device).eval()", "return net.to(device)")
    assert project_findings(tmp_path / "b", {"members.py": unswitched, "infer.py": ENSEMBLE}, "MLD020") != []


# a sampling script (it trains nothing) loads the model through a classmethod of the model class and hands it to
# a decoding helper: eval() goes after the loading, in the caller
SAMPLER = """
    import torch
    from model import TinyLM


    def sample_text(net, prompt, steps):
        out = prompt
        with torch.no_grad():
            for _ in range(steps):
                logits = net(out)
                nxt = logits[:, -1:].argmax(-1)
                out = torch.cat([out, nxt], dim=1)
        return out


    def main(path):
        net, tokenizer = TinyLM.restore_from(path)
        net = net.to("cpu")
        print(sample_text(net, tokenizer("hello"), 20))
"""

TINY_LM = """
    import torch
    import torch.nn as nn


    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 8)
            self.drop = nn.Dropout(0.1)
            self.out = nn.Linear(8, 10)

        def forward(self, x):
            return self.out(self.drop(self.emb(x)))

        @classmethod
        def restore_from(cls, path):
            lm = cls()
            lm.load_state_dict(torch.load(path))
            return lm, None
"""


def test_sampling_helper_of_a_script_that_loads_the_model_is_reported_after_the_loading(tmp_path: Path):
    found = [f for f in project_findings(tmp_path / "a", {"model.py": TINY_LM, "sample.py": SAMPLER}, "MLD020")
             if f[0] == "sample.py"]
    assert found == [("sample.py", line_of(SAMPLER, 'net = net.to("cpu")'))]
    fixed = SAMPLER.replace('net = net.to("cpu")\n', 'net = net.to("cpu")\n        net.eval()\n')
    assert [f for f in project_findings(tmp_path / "b", {"model.py": TINY_LM, "sample.py": fixed}, "MLD020")
            if f[0] == "sample.py"] == []


# a hook-based trainer of the script switches train() when built; the evaluation helper of another file is
# registered as a partial and leaves the model in eval mode
EVAL_HELPERS = """
    import torch


    def run_test_set(model, loader):
        model.eval()
        total = 0
        with torch.no_grad():
            for x, y in loader:
                total += (model(x).argmax(-1) == y).sum().item()
        return total
"""

HOOK_TRAINER = """
    import functools

    import torch
    from testing import run_test_set


    class IterTrainer:
        def __init__(self, model, data, optimizer):
            model.train()
            self.model, self.data, self.optimizer = model, data, optimizer
            self.hooks = []

        def step(self):
            x, y = next(self.data)
            loss = torch.nn.functional.cross_entropy(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

        def loop(self, iters):
            for i in range(iters):
                self.step()
                for hook in self.hooks:
                    hook()


    def main(model, data, optimizer, test_loader):
        trainer = IterTrainer(model, data, optimizer)
        trainer.hooks.append(functools.partial(run_test_set, model, test_loader))
        trainer.loop(10000)
"""


def test_evaluation_callback_of_a_trainer_that_trains_once(tmp_path: Path):
    found = project_findings(tmp_path / "a", {"testing.py": EVAL_HELPERS, "train.py": HOOK_TRAINER}, "MLD021")
    assert found == [("train.py", line_of(HOOK_TRAINER, "functools.partial(run_test_set"))]
    # the helper restores the mode it found
    restoring = EVAL_HELPERS.replace("        return total", "        model.train()\n        return total")
    assert project_findings(tmp_path / "b", {"testing.py": restoring, "train.py": HOOK_TRAINER}, "MLD021") == []
    # the trainer puts the model in training mode at every step
    per_step = HOOK_TRAINER.replace("            x, y = next(self.data)\n",
                                    "            self.model.train()\n            x, y = next(self.data)\n")
    assert per_step != HOOK_TRAINER
    assert project_findings(tmp_path / "c", {"testing.py": EVAL_HELPERS, "train.py": per_step}, "MLD021") == []


# the same family written as functions, the models named for their roles only (no "model"/"net" in the names):
# train() of one beside eval() of the other says both are modules
KD_FUNCTIONS = """
    import torch
    import torch.nn.functional as F


    def distill_epoch(student, teacher, loader, opt):
        student.train()
        teacher.eval()
        for x, y in loader:
            with torch.no_grad():
                t = teacher(x)
            loss = F.kl_div(student(x).log_softmax(-1), t.softmax(-1), reduction="batchmean")
            opt.zero_grad()
            loss.backward()
            opt.step()


    @torch.no_grad()
    def student_accuracy(student, teacher, val_loader):
        teacher.eval()
        hits = 0
        for x, y in val_loader:
            hits += (student(x).argmax(-1) == y).sum().item()
        return hits


    @torch.no_grad()
    def teacher_accuracy(teacher, val_loader):
        teacher.eval()
        return sum((teacher(x).argmax(-1) == y).sum().item() for x, y in val_loader)
"""


def test_student_named_for_its_role_evaluated_after_the_teachers_eval(tmp_path: Path):
    found = project_findings(tmp_path / "a", {"kd.py": KD_FUNCTIONS}, "MLD020")
    switches = [n for n, line in enumerate(dedent(KD_FUNCTIONS).splitlines(), 1) if "teacher.eval()" in line]
    assert found == [("kd.py", switches[1])]
    fixed = KD_FUNCTIONS.replace("teacher.eval()\n        hits = 0", "student.eval()\n        hits = 0")
    assert fixed != KD_FUNCTIONS
    assert project_findings(tmp_path / "b", {"kd.py": fixed}, "MLD020") == []


def test_builder_that_loads_weights_for_a_predicting_script_is_reported_after_the_loading(tmp_path: Path):
    unswitched = FACTORY.replace("return net.to(device).eval()", "return net.to(device)")
    found = project_findings(tmp_path / "a", {"members.py": unswitched, "infer.py": ENSEMBLE}, "MLD020")
    assert ("members.py", line_of(unswitched, "net.load_state_dict(")) in found
    # the script switches the model itself
    switching = ENSEMBLE.replace('member = load_member(path, "cpu")\n',
                                 'member = load_member(path, "cpu")\n            member.eval()\n')
    assert switching != ENSEMBLE
    assert project_findings(tmp_path / "b", {"members.py": unswitched, "infer.py": switching}, "MLD020") == []
    # a training script resumes from the builder: no prediction file uses it
    resume = ENSEMBLE.replace("return total", "total.sum().backward()\n        return total")
    assert [f for f in project_findings(tmp_path / "c", {"members.py": unswitched, "infer.py": resume}, "MLD020")
            if f[0] == "members.py"] == []
