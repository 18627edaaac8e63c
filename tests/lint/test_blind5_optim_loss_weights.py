"""MLD015 across files (blind split 5's family): a loss module with weights of its own (learnable uncertainty
weights, a classifier head) that no optimiser holds, because the optimiser was built from the model alone.
The loss class lives in another file: a base trainer handed its optimiser gets the loss from a method a
subclass of another file defines, or a training script builds an imported weighted loss next to an
optimiser over the model. Quiet when the weights are added, or when the loss has none."""



from .families import project_findings

BASE = """
    import torch


    class ModelWithLoss(torch.nn.Module):
        def __init__(self, model, loss):
            super().__init__()
            self.model, self.loss = model, loss

        def forward(self, batch):
            out = self.model(batch["x"])
            return self.loss(out, batch)


    class BaseTrainer:
        def __init__(self, cfg, model, optimizer):
            self.cfg = cfg
            self.optimizer = optimizer
            self.stats, self.loss = self._get_losses(cfg)
            self.model_with_loss = ModelWithLoss(model, self.loss)

        def run_epoch(self, loader):
            for batch in loader:
                loss = self.model_with_loss(batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
"""

TASK = """
    import torch
    from torch import nn

    from .base import BaseTrainer


    class DetReidLoss(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.classifier = nn.Linear(cfg.emb_dim, cfg.ids)
            self.s_det = nn.Parameter(-1.85 * torch.ones(1))

        def forward(self, out, batch):
            return out.mean() * torch.exp(-self.s_det) + self.classifier(out).mean()


    class DetReidTrainer(BaseTrainer):
        def _get_losses(self, cfg):
            loss = DetReidLoss(cfg)
            return ["loss"], loss
"""

SCRIPT = """
    import torch
    from pkg.task import DetReidLoss


    def main(model, cfg, loader):
        criterion = DetReidLoss(cfg)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        for batch in loader:
            loss = criterion(model(batch["x"]), batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path / "pkg", files, "MLD015")


def test_base_trainer_handed_its_optimizer_builds_a_weighted_loss_of_a_subclass(tmp_path):
    assert _run(tmp_path, {"base.py": BASE, "task.py": TASK}) == [("base.py", 20)]


def test_script_builds_an_imported_weighted_loss_beside_a_model_optimizer(tmp_path):
    assert _run(tmp_path, {"task.py": TASK, "base.py": BASE, "script.py": SCRIPT}) == [
        ("base.py", 20), ("script.py", 8)]


def test_weights_added_or_no_weights_is_quiet(tmp_path):
    added = BASE.replace("            self.model_with_loss = ModelWithLoss(model, self.loss)\n",
                         "            self.model_with_loss = ModelWithLoss(model, self.loss)\n"
                         "            self.optimizer.add_param_group({'params': self.loss.parameters()})\n")
    assert _run(tmp_path, {"base.py": added, "task.py": TASK}) == []
    plain = TASK.replace("self.classifier = nn.Linear(cfg.emb_dim, cfg.ids)", "self.ce = nn.CrossEntropyLoss()") \
        .replace("self.s_det = nn.Parameter(-1.85 * torch.ones(1))", "self.s_det = 1.0") \
        .replace(" + self.classifier(out).mean()", "")
    assert _run(tmp_path, {"base.py": BASE, "task.py": plain, "script.py": SCRIPT}) == []
    grouped = SCRIPT.replace("torch.optim.Adam(model.parameters(), lr=1e-4)",
                             "torch.optim.Adam([*model.parameters(), *criterion.parameters()], lr=1e-4)")
    assert _run(tmp_path, {"task.py": plain, "base.py": added, "script.py": grouped}) == []


MODEL = """
    import torch
    from torch import nn

    from pkg.blocks import build_backbone, Head


    class Tracker(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.backbone = build_backbone(cfg)
            self.neck = nn.Conv2d(512, 256, 1)
            self.head = Head(cfg)
            self.fuse = nn.ConvTranspose2d(768, 256, 1)

        def forward(self, z, x):
            feats = torch.cat([self.neck(self.backbone(z)), self.neck(self.backbone(x))], 1)
            return self.head(self.fuse(feats))
"""

OPTIM = """
    import torch


    def build_optimizer(model, lr):
        groups = [{"params": model.backbone.parameters(), "lr": lr * 0.1}]
        groups += [{"params": model.neck.parameters(), "lr": lr}]
        groups += [{"params": model.head.parameters(), "lr": lr}]
        return torch.optim.SGD(groups, momentum=0.9)
"""


def test_handed_model_whose_class_another_file_defines_leaves_a_part_out(tmp_path):
    assert ("optim.py", 9) in _run(tmp_path, {"model.py": MODEL, "optim.py": OPTIM})


def test_every_part_grouped_or_the_part_frozen_is_quiet(tmp_path):
    grouped = OPTIM.replace('groups += [{"params": model.head.parameters(), "lr": lr}]',
                            'groups += [{"params": model.head.parameters(), "lr": lr}]\n'
                            '        groups += [{"params": model.fuse.parameters(), "lr": lr}]')
    assert _run(tmp_path, {"model.py": MODEL, "optim.py": grouped}) == []
    frozen = MODEL.replace("self.fuse = nn.ConvTranspose2d(768, 256, 1)",
                           "self.fuse = nn.ConvTranspose2d(768, 256, 1)\n            self.fuse.requires_grad_(False)")
    assert _run(tmp_path, {"model.py": frozen, "optim.py": OPTIM}) == []
