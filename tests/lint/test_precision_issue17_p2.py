"""Issue 17, real-code precision: a scheduler class of the project's own, defined in another file, has no
step-order rule (MLD013); torch's schedulers and their subclasses keep it."""

from pathlib import Path

from .families import both_ways

SCHEDULERS = (
    "from torch.optim import lr_scheduler\n"
    "class CycleScheduler:\n"
    "    def __init__(self, optimizer, n_iter):\n"
    "        self.optimizer, self.n_iter, self.i = optimizer, n_iter, 0\n"
    "    def step(self):\n"
    "        self.i += 1\n"
    "        for group in self.optimizer.param_groups:\n"
    "            group['lr'] = 1 - self.i / self.n_iter\n"
    "class WarmUpLR(lr_scheduler._LRScheduler):\n"
    "    def get_lr(self):\n"
    "        return [base * self.last_epoch for base in self.base_lrs]\n"
)
TRAIN = (
    "from scheduler import {cls}\n"
    "def train(loader, model, optimizer, scheduler):\n"
    "    for x in loader:\n"
    "        model.zero_grad()\n"
    "        model(x).sum().backward()\n"
    "        scheduler.step()\n"
    "        optimizer.step()\n"
    "def main(loader, model, optimizer):\n"
    "    scheduler = {cls}(optimizer, 100)\n"
    "    train(loader, model, optimizer, scheduler)\n"
)


def _lines(tmp_path: Path, code: str) -> list[tuple[str, int]]:
    return both_ways(tmp_path, code)


def test_own_scheduler_class_of_another_file_is_quiet(tmp_path):
    (tmp_path / "scheduler.py").write_text(SCHEDULERS)
    (tmp_path / "train.py").write_text(TRAIN.format(cls="CycleScheduler"))
    assert _lines(tmp_path, "MLD013") == []
    (tmp_path / "train.py").write_text(TRAIN.format(cls="WarmUpLR"))
    assert _lines(tmp_path, "MLD013") == [("train.py", 6)]


def test_unknown_scheduler_class_still_fires(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN.format(cls="CycleScheduler"))  # scheduler.py not in the run
    assert _lines(tmp_path, "MLD013") == [("train.py", 6)]
