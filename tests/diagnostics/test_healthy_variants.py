"""Healthy setups in shapes the checks once mistook for bugs (found on benchmarks/diagnose_zoo): each
stays quiet, and the bug it resembles still fires."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from mldebug_mcp.diagnostics.checks import run_checks

from . import builders as b


def verdict(spec, check):
    (result,) = run_checks(spec, only=[check])["checks"]
    return result


def step_zeroing_at_the_end(model, batch, optimizer):
    loss = F.cross_entropy(model(batch[0]), batch[1])
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()  # Hugging Face's loop: zero after the step, so the next one starts clean
    return loss


def test_zero_grad_after_the_step_is_fresh_and_never_zeroing_is_not():
    fine = verdict(b.classifier(train_step=step_zeroing_at_the_end), "parameter_updates")
    assert fine["status"] == "pass" and fine["measured"]["zero_grad_probe"] == "fresh"

    def never(model, batch, optimizer):
        F.cross_entropy(model(batch[0]), batch[1]).backward()
        optimizer.step()

    assert verdict(b.classifier(train_step=never), "parameter_updates")["measured"]["zero_grad_probe"] == "accumulating"


def test_an_lbfgs_closure_computes_its_gradients_inside_step():
    def closure_step(model, batch, optimizer):
        def closure():
            optimizer.zero_grad()
            loss = F.mse_loss(model(batch[0]), batch[1])
            loss.backward()
            return loss
        return optimizer.step(closure)

    spec = b.regression(train_step=closure_step, optimizer=lambda p: torch.optim.LBFGS(p, lr=1.0, max_iter=5))
    result = verdict(spec, "parameter_updates")
    assert result["status"] == "pass" and result["measured"]["zero_grad_probe"] == "fresh"


class Tagger(nn.Module):
    def __init__(self, vocab: int = 20, tags: int = 5) -> None:
        super().__init__()
        self.emb, self.head = nn.Embedding(vocab, 16), nn.Linear(16, tags)

    def forward(self, tokens):
        return self.head(self.emb(tokens))


def test_a_loss_averaged_over_unpadded_tokens_is_not_samples_interacting():
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(1, 20, (16, 9), generator=g)
    tags = torch.randint(0, 5, (16, 9), generator=g)
    lengths = torch.randint(3, 10, (16,), generator=g)
    tags[torch.arange(9) >= lengths[:, None]] = -100  # padding, different per sentence

    def token_loss(logits, targets):
        return F.cross_entropy(logits.reshape(-1, 5), targets.reshape(-1), ignore_index=-100)

    spec = dict(model=Tagger(), batch=(tokens, tags), loss_fn=token_loss, task="classification", num_classes=5)
    result = verdict(spec, "odd_shapes")
    assert result["status"] == "pass" and result["measured"]["weighted_by"] == "counted target elements"


def test_a_filter_silent_on_the_background_is_not_a_dead_unit():
    images = torch.zeros(16, 1, 8, 8)
    images[:, :, 2:6, 2:6] = torch.rand(16, 1, 4, 4) + 0.5  # a bright patch on a black background
    conv = nn.Conv2d(1, 4, 3, padding=1)
    with torch.no_grad():
        conv.weight.copy_(torch.ones_like(conv.weight))
        conv.bias.fill_(-0.1)  # fires on the patch, silent on the background
    model = nn.Sequential(conv, nn.ReLU(), nn.Flatten(), nn.Linear(256, 2))
    spec = dict(model=model, batch=(images, torch.arange(16) % 2), loss_fn=F.cross_entropy,
                task="classification", num_classes=2)
    result = verdict(spec, "activations")
    assert result["status"] == "pass", result["summary"]
    with torch.no_grad():
        conv.bias.fill_(-100.0)  # now every filter is silent everywhere
    assert verdict(spec, "activations")["status"] == "fail"


def test_a_regression_model_that_starts_near_the_mean_is_uninformed_not_leaking():
    spec = b.regression()
    x, y = spec["batch"]
    shifted = y + 3.0  # mean(y^2) is about 10 while Var(y) is 1

    class StartsAtMean(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 1)
            with torch.no_grad():
                self.fc.weight.mul_(0.01)
                self.fc.bias.fill_(3.0)

        def forward(self, inputs):
            return self.fc(inputs)

    result = verdict(b.regression(batch=(x, shifted), model=StartsAtMean()), "loss_at_init")
    assert result["status"] == "pass" and "Var(y)" in result["expected"]["why"]


def test_small_positive_logits_are_not_a_sigmoid_but_a_sigmoid_is():
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(32, 4, generator=g), (torch.rand(32, 1, generator=g) > 0.5).float()
    head = nn.Linear(4, 1)
    with torch.no_grad():
        head.weight.mul_(0.01)
        head.bias.fill_(0.3)  # every logit in (0, 1) at init, by the init alone
    spec = dict(model=head, batch=(x, y), loss_fn=nn.BCEWithLogitsLoss(), task="binary")
    assert verdict(spec, "loss_at_init")["status"] == "pass"
    squashed = dict(spec, model=nn.Sequential(nn.Linear(4, 1), nn.Sigmoid()))
    assert verdict(squashed, "loss_at_init")["status"] == "fail"


def test_a_small_initialised_linear_model_with_sgd_is_not_called_a_huge_rate():
    spec = b.classifier()
    model = nn.Linear(12, 4)
    with torch.no_grad():
        model.weight.normal_(std=0.01)  # d2l's softmax regression
        model.bias.zero_()
    spec.update(model=model, optimizer=lambda p: torch.optim.SGD(p, lr=0.1))
    assert verdict(spec, "update_ratio")["status"] == "pass"
    assert verdict(b.classifier(optimizer=lambda p: torch.optim.Adam(p, lr=1.0)), "update_ratio")["status"] == "fail"


class AutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 6), nn.Tanh(), nn.Linear(6, 12))

    def forward(self, x):
        return self.net(x)


def test_an_autoencoders_input_stays_in_place_when_its_targets_are_shuffled():
    x, _ = b.clusters()
    spec = dict(model=AutoEncoder(), batch=(x, x.clone()), loss_fn=F.mse_loss, task="regression",
                optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    result = verdict(spec, "input_dependence")
    assert result["status"] != "fail" and result["measured"]["real_over_shuffled_targets"] < 0.7


def test_a_step_that_raises_at_a_searched_rate_ends_that_run_not_the_check():
    def fragile_step(model, batch, optimizer):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(batch[0]), batch[1])
        if optimizer.param_groups[0]["lr"] > 1e-3:
            raise RuntimeError("a loss that breaks at high rates")
        loss.backward()
        optimizer.step()
        return loss

    slow = b.classifier(optimizer=lambda p: torch.optim.SGD(p, lr=1e-5), train_step=fragile_step)
    result = verdict(slow, "overfit_one_batch")
    assert result["status"] in ("warn", "fail") and any("raised RuntimeError" in d for d in result["details"])


def test_a_class_weighted_loss_with_void_pixels_weighs_samples_by_their_counted_pixels():
    g = torch.Generator().manual_seed(0)
    images = torch.randn(8, 3, 6, 6, generator=g)
    masks = torch.randint(0, 4, (8, 6, 6), generator=g)
    masks[:, :1] = 255  # void border, as segmentation datasets mark it
    masks[:3, 3:] = 255  # some images have more void than others
    criterion = nn.CrossEntropyLoss(weight=torch.tensor([0.5, 1.0, 2.0, 4.0]), ignore_index=255)
    spec = dict(model=nn.Conv2d(3, 4, 3, padding=1), batch=(images, masks), loss_fn=criterion,
                task="classification", num_classes=4)
    result = verdict(spec, "odd_shapes")
    assert result["status"] == "pass" and "weighted_mean_sample_loss" in result["measured"]


def test_half_of_a_handful_of_silent_units_warns_and_a_silent_wide_layer_fails():
    narrow = b.classifier()
    narrow["model"] = nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 4))
    with torch.no_grad():
        narrow["model"][0].bias[:5] = -50.0  # 5 of 8 units silent
    result = verdict(narrow, "activations")
    assert result["status"] == "warn" and "62% of 8 ReLU units" in result["summary"]
    wide = b.classifier()
    nn.init.constant_(wide["model"][0].bias, -50.0)  # all 32 silent
    assert verdict(wide, "activations")["status"] == "fail"


def test_a_step_that_clips_but_never_zeroes_still_accumulates():
    def clipping_step(model, batch, optimizer):
        loss = F.cross_entropy(model(batch[0]), batch[1])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # rescales the leftover with the rest
        optimizer.step()
        return loss

    result = verdict(b.classifier(train_step=clipping_step), "parameter_updates")
    assert result["status"] == "fail" and result["measured"]["zero_grad_probe"] == "accumulating"
