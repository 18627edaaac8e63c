"""Blind-written variants (F10a): the families behind the optimiser-loop and sampler misses, in shapes of our own,
spread over files as projects write them (a step helper in utils.py, a sampler built in data.py)."""
from pathlib import Path

from .families import project_findings

SCHEDULE_HELPERS = """
    def update_lr(scheduler, epoch, log):
        scheduler.step()
        log.info("epoch %d lr %s", epoch, scheduler.get_last_lr())


    def step_schedule(model, sched=None):
        if model is not None:
            model.momentum = 0.1
        sched.step()


    def anneal(weight):
        weight.step()
"""

SCHEDULE_LOOP = """
    import torch
    import utils
    from utils import anneal, update_lr


    def run_epoch(net, loader, opt):
        for xb in loader:
            opt.zero_grad()
            net(xb).backward()
            opt.step()


    def fit(net, loader, epochs, log):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=20)
        for epoch in range(epochs):
            update_lr(scheduler, epoch, log)
            run_epoch(net, loader, opt)


    def fit_keyword(net, loader, epochs):
        opt = torch.optim.Adam(net.parameters())
        lr_sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
        for epoch in range(epochs):
            utils.step_schedule(net, sched=lr_sched)
            run_epoch(net, loader, opt)


    class Trainer:
        def __init__(self, net):
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
            self.scheduler = torch.optim.lr_scheduler.ExponentialLR(self.opt, gamma=0.9)

        def train(self, loader, epochs, log):
            for epoch in range(epochs):
                update_lr(self.scheduler, epoch, log)
                run_epoch(self.net, loader, self.opt)


    def fit_fixed(net, loader, epochs, log):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=20)
        for epoch in range(epochs):
            run_epoch(net, loader, opt)
            update_lr(scheduler, epoch, log)


    def fit_with_annealer(net, loader, epochs, kl_weight):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        for epoch in range(epochs):
            anneal(kl_weight)
            run_epoch(net, loader, opt)
"""


def _line(source: str, text: str) -> int:
    from textwrap import dedent
    return next(n for n, line in enumerate(dedent(source).splitlines(), 1) if text in line)


def test_scheduler_stepped_by_a_helper_of_another_file_before_the_epoch(tmp_path: Path):
    found = project_findings(tmp_path, {"utils.py": SCHEDULE_HELPERS, "train.py": SCHEDULE_LOOP}, "MLD013")
    assert found == [("train.py", _line(SCHEDULE_LOOP, "update_lr(scheduler, epoch, log)")),
                     ("train.py", _line(SCHEDULE_LOOP, "utils.step_schedule(")),
                     ("train.py", _line(SCHEDULE_LOOP, "update_lr(self.scheduler"))]
