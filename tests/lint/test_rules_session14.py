"""Rules and widenings of the fourteenth session, each on the real shape it was written for and a correct twin."""

from __future__ import annotations

import textwrap

import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source

from .families import project_findings


def _codes(source: str, code: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(textwrap.dedent(source), settings=LintSettings(select=(code,)))]


def test_requires_grad_false_leaves_batchnorm_statistics_moving_in_train_mode_and_only_eval_stops_them():
    """MLD025's claim, run on CPU: freezing the parameters does not freeze the running statistics."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    backbone = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8))
    for param in backbone.parameters():
        param.requires_grad = False
    before = backbone[1].running_mean.clone()
    backbone.train()
    backbone(torch.randn(32, 4) + 3.0)
    moved = backbone[1].running_mean.clone()
    assert not torch.equal(before, moved)
    backbone.eval()
    backbone(torch.randn(32, 4) + 3.0)
    assert torch.equal(moved, backbone[1].running_mean)


DOCTR_SHAPE = """
    import torch

    def fit_one_epoch(model, train_loader, optimizer):
        model.train()
        for images, targets in train_loader:
            loss = model(images, targets)["loss"]
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    def main(args, model, train_loader):
        if args.freeze_backbone:
            for p in model.feat_extractor.parameters():
                p.requires_grad = False
        optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
        for epoch in range(args.epochs):
            fit_one_epoch(model, train_loader, optimizer)
"""


def test_a_backbone_frozen_by_an_option_and_trained_in_a_helper_is_flagged_at_the_freeze():
    assert _codes(DOCTR_SHAPE, "MLD025") == [(14, "MLD025")]


def test_the_same_backbone_put_back_in_eval_mode_after_train_is_quiet():
    fixed = DOCTR_SHAPE.replace("        model.train()\n", "        model.train()\n        model.feat_extractor.eval()\n")
    assert _codes(fixed, "MLD025") == []


def test_a_train_override_that_keeps_the_frozen_part_in_eval_is_quiet():
    overridden = DOCTR_SHAPE + """
    class Wrapper(torch.nn.Module):
        def train(self, mode=True):
            super().train(mode)
            self.feat_extractor.eval()
            return self
    """
    assert _codes(overridden, "MLD025") == []


def test_frozen_text_encoders_and_target_networks_are_not_read_as_probes():
    source = """
    import torch

    def fit(unet, text_encoder, target_net, loader, optimizer):
        text_encoder.requires_grad_(False)
        for p in target_net.parameters():
            p.requires_grad = False
        unet.train()
        text_encoder.train()
        target_net.train()
        for x in loader:
            loss = unet(x, text_encoder(x)).mean() + target_net(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """
    assert _codes(source, "MLD025") == []


CONDSEG = {
    "model.py": """
        import torch.nn as nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.mask = nn.Sequential(nn.Conv2d(8, 1, 1), nn.Sigmoid())
                self.edge = nn.Sequential(nn.Conv2d(8, 1, 1), nn.Sigmoid())

            def forward(self, x):
                return self.mask(x), self.edge(x)
    """,
    "losses.py": """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class DiceBCELoss(nn.Module):
            def forward(self, inputs, targets, smooth=1):
                inputs = torch.sigmoid(inputs)
                inputs, targets = inputs.view(-1), targets.view(-1)
                dice = 1 - (2 * (inputs * targets).sum() + smooth) / (inputs.sum() + targets.sum() + smooth)
                return F.binary_cross_entropy(inputs, targets) + dice
    """,
    "engine.py": """
        def train(model, loader, optimizer, loss_fn):
            for x, y in loader:
                optimizer.zero_grad()
                mask, edge = model(x)
                loss = loss_fn(mask, y) + loss_fn(edge, y)
                loss.backward()
                optimizer.step()
    """,
    "main.py": """
        import torch
        from engine import train
        from losses import DiceBCELoss
        from model import Head

        model = Head()
        train(model, [], torch.optim.Adam(model.parameters()), DiceBCELoss())
    """,
}


def test_a_sigmoid_model_whose_tuple_goes_to_a_loss_that_applies_its_own_sigmoid_is_squashed_twice(tmp_path):
    """ConDSeg (split 21): the heads end in nn.Sigmoid, the engine of another file feeds each element of the
    returned tuple to the loss main.py hands it, and that loss class applies torch.sigmoid to its input first."""
    assert project_findings(tmp_path, CONDSEG, "MLD001") == [("model.py", 7), ("model.py", 8)]


def test_the_same_project_with_raw_heads_or_a_loss_that_takes_probabilities_is_quiet(tmp_path):
    raw = {**CONDSEG, "model.py": CONDSEG["model.py"].replace(", nn.Sigmoid())", ")")}
    probabilities = {**CONDSEG, "losses.py": CONDSEG["losses.py"].replace("torch.sigmoid(inputs)", "inputs.float()")}
    for name, files in (("raw", raw), ("probabilities", probabilities)):
        (tmp_path / name).mkdir()
        assert project_findings(tmp_path / name, files, "MLD001") == [], name


def test_a_loss_that_squashes_only_under_a_flag_is_not_read_as_expecting_logits(tmp_path):
    flagged = {**CONDSEG, "losses.py": CONDSEG["losses.py"].replace(
        "inputs = torch.sigmoid(inputs)", "if self.from_logits:\n                    inputs = torch.sigmoid(inputs)")}
    assert project_findings(tmp_path, flagged, "MLD001") == []


def test_a_second_sigmoid_squeezes_probabilities_into_half_to_three_quarters():
    """MLD001's claim for a loss that applies its own sigmoid to a model output that already is one, run on CPU:
    the predictions cannot leave [0.5, 0.731], so neither BCE nor Dice can reach a target of 0 or 1."""
    torch = pytest.importorskip("torch")
    twice = torch.sigmoid(torch.sigmoid(torch.linspace(-50, 50, 101)))
    assert float(twice.min()) >= 0.5 and float(twice.max()) <= 0.7311


def test_the_same_file_message_names_the_loss_class_that_squashes_its_input():
    source = '''
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class DiceBCELoss(nn.Module):
        def forward(self, inputs, targets):
            inputs = torch.sigmoid(inputs)
            return F.binary_cross_entropy(inputs, targets)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())

        def forward(self, x):
            return self.body(x)

    def train(loader):
        model, criterion = Net(), DiceBCELoss()
        optimizer = torch.optim.Adam(model.parameters())
        for x, y in loader:
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    '''
    findings = lint_source(textwrap.dedent(source), settings=LintSettings(select=("MLD001",)))
    assert [(f.line, f.code) for f in findings] == [(14, "MLD001")]
    assert "DiceBCELoss (built on its own sigmoid)" in findings[0].message


NEWS_RECOMMENDATION = {
    "evaluate.py": """
        import torch
        from torch.utils.data import DataLoader

        @torch.no_grad()
        def evaluate(model, directory, max_count):
            vectors = {}
            for minibatch in DataLoader(load_news(directory), batch_size=128):
                vectors.update(zip(minibatch["id"], model.get_news_vector(minibatch)))
            return score(vectors, max_count)
    """,
    "train.py": """
        import torch
        from evaluate import evaluate

        def train(model, models, model_name, loader, optimizer):
            model.train()
            for i, batch in enumerate(loader):
                loss = model(batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if i % 1000 == 0:
                    auc = evaluate(model if model_name != "Exp1" else models[0], "./data/val", 200000)
    """,
}


def test_a_model_handed_to_an_evaluation_of_a_held_out_folder_through_a_conditional_is_still_in_train_mode(tmp_path):
    """news-recommendation (split 24): the model goes to evaluate() as `model if ... else models[0]`, with the
    validation folder's path as its data; evaluate() runs it under no_grad without eval()."""
    assert project_findings(tmp_path, NEWS_RECOMMENDATION, "MLD020") == [("train.py", 6)]


def test_the_same_hand_off_after_model_eval_or_with_a_training_folder_is_quiet(tmp_path):
    switched = {**NEWS_RECOMMENDATION, "train.py": NEWS_RECOMMENDATION["train.py"].replace(
        "                    auc = evaluate(", "                    model.eval()\n                    auc = evaluate(")}
    training = {**NEWS_RECOMMENDATION, "train.py": NEWS_RECOMMENDATION["train.py"].replace("./data/val",
                                                                                          "./data/train")}
    for name, files in (("switched", switched), ("training", training)):
        (tmp_path / name).mkdir()
        assert project_findings(tmp_path / name, files, "MLD020") == [], name


def test_a_squeezed_column_of_a_batch_of_one_gives_the_same_elementwise_loss_as_the_unsqueezed_one():
    """MLD041's exception for `q.gather(1, a).squeeze()` in an elementwise loss, run on CPU: with one row both sides
    hold one value, so the loss equals the one with matching shapes (torch only warns about the sizes)."""
    torch = pytest.importorskip("torch")
    import warnings

    q = torch.tensor([[0.3, 1.7, -0.4]])
    column = q.gather(1, torch.tensor([[1]]))
    target = torch.tensor([2.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        squeezed = torch.nn.functional.mse_loss(target, column.squeeze())
    assert column.squeeze().dim() == 0
    assert torch.equal(squeezed, torch.nn.functional.mse_loss(target, column.squeeze(1)))
