"""Blind-written variants (F10a): the families behind the optimiser-loop and sampler misses, in shapes of our own,
spread over files as projects write them (a step helper in utils.py, a sampler built in data.py)."""
from pathlib import Path

from .families import line_of, project_findings

SCHEDULE_HELPERS = """
    def update_lr(scheduler, epoch, log):
        scheduler.step()
        log.info("epoch %d lr %s", epoch, scheduler.get_last_lr())


    def step_schedule(model, sched=None):
        if model is not None:
            model.momentum = 0.1
        if sched is not None:
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



def test_scheduler_stepped_by_a_helper_of_another_file_before_the_epoch(tmp_path: Path):
    found = project_findings(tmp_path, {"utils.py": SCHEDULE_HELPERS, "train.py": SCHEDULE_LOOP}, "MLD013")
    assert found == [("train.py", line_of(SCHEDULE_LOOP, "update_lr(scheduler, epoch, log)")),
                     ("train.py", line_of(SCHEDULE_LOOP, "utils.step_schedule(")),
                     ("train.py", line_of(SCHEDULE_LOOP, "update_lr(self.scheduler"))]


STEP_HELPERS = """
    import torch


    def train_step(model, batch, optimizer, scaler, loss_fn):
        \"\"\"One AMP update.\"\"\"
        x, y = batch
        with torch.autocast("cuda"):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss.detach()


    def optimize(loss, opt, clip=None):
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(opt.param_groups[0]["params"], clip)
        opt.step()


    def update(net, x, y, optim):
        optim.zero_grad()
        net(x).sum().backward()
        optim.step()


    def fused_step(loss, optimizer):
        loss.backward()
        optimizer.step()
"""

STEP_LOOPS = """
    import torch
    from steps import fused_step, optimize, train_step, update


    def main(model, loader, cfg, loss_fn):
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        scaler = torch.cuda.amp.GradScaler()
        for epoch in range(cfg.epochs):
            for batch in loader:
                train_step(model, batch, optimizer, scaler, loss_fn)


    class Runner:
        def __init__(self, net):
            self.net = net
            self.opt = torch.optim.SGD(net.parameters(), lr=0.1)

        def epoch(self, loader):
            opt = self.opt
            for x, y in loader:
                optimize(self.net(x).pow(2).mean(), opt)
                update(self.net, x, y, opt)

        def epoch_zeroed(self, loader):
            for x, y in loader:
                self.opt.zero_grad()
                fused_step(self.net(x).mean(), self.opt)
"""


def test_step_helper_of_another_file_that_never_clears(tmp_path: Path):
    found = project_findings(tmp_path, {"steps.py": STEP_HELPERS, "train.py": STEP_LOOPS}, "MLD010")
    # the first statement after the docstring, where zero_grad() goes; `update` clears, `fused_step`'s caller does
    assert found == [("steps.py", line_of(STEP_HELPERS, "x, y = batch")), ("steps.py", line_of(STEP_HELPERS, "loss.backward()"))]


def test_step_helper_whose_loop_clears_is_quiet(tmp_path: Path):
    loops = STEP_LOOPS.replace("for batch in loader:\n", "for batch in loader:\n                optimizer.zero_grad()\n")
    loops = loops.replace("for x, y in loader:\n                optimize", "for x, y in loader:\n"
                          "                self.net.zero_grad()\n                optimize")
    assert project_findings(tmp_path, {"steps.py": STEP_HELPERS, "train.py": loops}, "MLD010") == []


SHARDED_DATA = """
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler


    def make_loader(ds, batch_size, distributed, is_train=True):
        sampler = DistributedSampler(ds, shuffle=is_train) if distributed else None
        return DataLoader(ds, batch_size=batch_size, sampler=sampler, shuffle=sampler is None and is_train)
"""

EPOCH_METHOD_TRAINER = """
    import torch
    from torch.nn.parallel import DistributedDataParallel
    from data import make_loader


    class Engine:
        def __init__(self, cfg, net, ds):
            self.net = DistributedDataParallel(net)
            self.opt = torch.optim.AdamW(self.net.parameters())
            self.train_loader = make_loader(ds, cfg.batch_size, True)

        def _epoch(self, epoch):
            self.net.train()
            for step, (x, y) in enumerate(self.train_loader):
                self.opt.zero_grad()
                self.net(x, y).backward()
                self.opt.step()

        def fit(self, epochs):
            for epoch in range(epochs):
                self._epoch(epoch)
"""


def test_per_epoch_method_runs_a_sharded_train_loader_of_another_file(tmp_path: Path):
    files = {"data.py": SHARDED_DATA, "engine.py": EPOCH_METHOD_TRAINER}
    assert project_findings(tmp_path / "bug", files, "MLD054") == [
        ("engine.py", line_of(EPOCH_METHOD_TRAINER, "self.net.train()"))]
    fixed = EPOCH_METHOD_TRAINER.replace("            self.net.train()\n", "            self.net.train()\n"
                                         "            self.train_loader.sampler.set_epoch(epoch)\n")
    assert project_findings(tmp_path / "ok", {**files, "engine.py": fixed}, "MLD054") == []


AUGMENTATIONS = """
    import torch
    import torch.nn as nn
    import torchaudio
    import torchvision.transforms as T
    from torch.utils.data import DataLoader
    from torchvision import transforms

    cfg = {"bs": 16, "epochs": 3}
    wave_augment = nn.Sequential(
        torchaudio.transforms.MelSpectrogram(sample_rate=16000, n_mels=64),
        torchaudio.transforms.FrequencyMasking(freq_mask_param=15),
    )
    image_augment = torch.nn.Sequential(T.RandomResizedCrop(224), T.RandomHorizontalFlip())
    color_augment = nn.Sequential(transforms.ColorJitter(0.2, 0.2), transforms.RandomCrop(32))


    def pad_batch(batch):
        feats = []
        for wave, _, text, *_ in batch:
            feats.append(wave_augment(wave).squeeze(0).transpose(0, 1))
        return feats


    def image_batch(batch):
        out = []
        for image, label in batch:
            out.append(color_augment(image_augment(image)))
        return out


    loader = DataLoader(corpus, batch_size=cfg["bs"], shuffle=True, collate_fn=pad_batch)
    images = DataLoader(pictures, batch_size=cfg["bs"], shuffle=True, collate_fn=image_batch)
    for epoch in range(cfg["epochs"]):
        for step, (feats, labels) in enumerate(loader):
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} {decode(feats[:1])[0]!r}")
"""


def test_augmentation_pipelines_in_a_sequential_are_not_models_left_training():
    from textwrap import dedent

    from mldebug_mcp.lint.engine import lint_source
    assert [f.line for f in lint_source(dedent(AUGMENTATIONS), "t.py") if f.code == "MLD020"] == []


def test_step_helper_whose_loop_clears_through_a_named_helper_is_quiet(tmp_path: Path):
    loops = STEP_LOOPS.replace("from steps import", "from grads import clear_grads\n    from steps import").replace(
        "for batch in loader:\n", "for batch in loader:\n                clear_grads(optimizer)\n")
    found = project_findings(tmp_path, {"steps.py": STEP_HELPERS, "train.py": loops}, "MLD010")
    assert ("steps.py", line_of(STEP_HELPERS, "x, y = batch")) not in found
