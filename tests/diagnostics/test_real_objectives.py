"""Healthy objectives from real projects that the checks once called broken (found by healthy setups written
blind, benchmarks/diagnose_zoo/ since 2026-11-27), each beside the bug it must still catch; and the torch
facts the messages rest on, settled by running them."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mldebug_mcp.diagnostics.checks import run_checks

from .builders import classifier, clusters, regression


def _check(spec: dict, check: str, steps: int = 40) -> dict:
    return run_checks(spec, steps=steps, only=[check])["checks"][0]


# --- torch facts -----------------------------------------------------------------------------------------

def test_torch_optimizers_skip_a_frozen_tensor_without_grad_even_with_weight_decay():
    for make in (lambda ps: torch.optim.AdamW(ps, lr=0.1, weight_decay=0.5),
                 lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.5)):
        live, frozen = nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(3), requires_grad=False)
        optimizer = make([live, frozen])
        live.sum().backward()
        optimizer.step()
        assert frozen.grad is None and torch.equal(frozen.detach(), torch.ones(3))


def test_but_a_zeroed_grad_lets_adamw_weight_decay_move_it():
    frozen = nn.Parameter(torch.ones(3))
    optimizer = torch.optim.AdamW([frozen], lr=0.1, weight_decay=0.5)
    frozen.grad = torch.zeros(3)  # what zero_grad(set_to_none=False) leaves
    frozen.requires_grad_(False)
    optimizer.step()
    assert bool((frozen.detach() < 1).all())


# --- gradients the loss cannot see -------------------------------------------------------------------------

class SiameseHead(nn.Module):
    """A contrastive pair model: the loss reads the difference of two passes, so the last bias cancels."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, pair):
        return self.net(pair[:, 0]) - self.net(pair[:, 1])


def _pairs():
    x, y = clusters(n=64)
    other = torch.roll(torch.arange(64), 1)
    same = (y == y[other]).float()
    return torch.stack([x, x[other]], dim=1), same


def contrastive(diff, same, margin=2.0):
    d = diff.norm(dim=1)
    return (same * d.pow(2) + (1 - same) * F.relu(margin - d).pow(2)).mean()


def test_a_bias_that_cancels_in_a_difference_is_harmless(single_thread):
    spec = dict(model=SiameseHead(), batch=_pairs(), loss_fn=contrastive, task="custom")
    flow = _check(spec, "gradient_flow")
    assert flow["status"] == "pass" and any("never train, harmlessly" in d for d in flow["details"])
    assert _check(spec, "parameter_updates")["status"] == "pass"


def test_a_bias_before_batchnorm_is_harmless(single_thread):
    spec = classifier()
    spec["model"] = nn.Sequential(nn.Linear(12, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 4))
    assert _check(spec, "gradient_flow")["status"] == "pass"


def test_a_layer_cut_off_by_dead_units_still_fails(single_thread):
    spec = classifier()
    model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))
    with torch.no_grad():
        model[0].bias.fill_(-100.0)  # every unit of the first layer is dead: weight and bias get no gradient
    spec["model"] = model
    assert _check(spec, "gradient_flow")["status"] == "fail"


# --- frozen tensors ---------------------------------------------------------------------------------------

class OnlineTarget(nn.Module):
    """BYOL's shape: an online network trained by the optimizer, a target network moved by an EMA."""

    def __init__(self) -> None:
        super().__init__()
        self.online = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4))
        self.target = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4))
        self.target.requires_grad_(False)

    def forward(self, x):
        return self.online(x)


def ema_step(model, batch, optimizer):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(batch[0]), batch[1])
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for t, o in zip(model.target.parameters(), model.online.parameters()):
            t.mul_(0.99).add_(o, alpha=0.01)
    return loss


def test_an_ema_target_moved_by_the_train_step_is_not_a_frozen_tensor_trained(single_thread):
    result = _check(classifier(model=OnlineTarget(), train_step=ema_step), "parameter_updates")
    assert result["status"] == "pass" and result["measured"]["frozen_moved_by_train_step"] == 4


class EditsFrozen(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4), requires_grad=False)
        self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        self.scale.data.mul_(1.01)  # an in-place edit in forward: a real bug
        return self.body(x) * self.scale


def test_a_frozen_tensor_edited_in_forward_still_fails(single_thread):
    assert _check(classifier(model=EditsFrozen()), "parameter_updates")["status"] == "fail"


def test_frozen_tensors_in_the_optimizer_are_told_not_warned(single_thread):
    spec = classifier(optimizer=lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.1))
    spec["model"][0].requires_grad_(False)
    result = _check(spec, "gradient_flow")
    assert result["status"] == "pass" and any("skips them while their .grad is None" in d for d in result["details"])


# --- the loss at initialisation ------------------------------------------------------------------------------

def test_a_custom_objective_may_be_negative_but_cross_entropy_may_not(single_thread):
    critic = dict(model=nn.Linear(12, 1), batch=clusters(), task="custom",
                  loss_fn=lambda out, _y: out.mean() - 1.0)  # a critic's score: any sign
    assert _check(critic, "loss_at_init")["status"] == "skipped"
    negative = classifier(loss_fn=lambda out, y: -F.cross_entropy(out, y))
    assert _check(negative, "loss_at_init")["status"] == "fail"


def test_half_the_mse_is_the_one_half_convention_not_a_wrong_loss(single_thread):
    assert _check(regression(loss_fn=lambda out, y: 0.5 * F.mse_loss(out, y)), "loss_at_init")["status"] == "pass"
    assert _check(regression(loss_fn=lambda out, y: 0.1 * F.mse_loss(out, y)), "loss_at_init")["status"] == "fail"


class MarginHead(nn.Module):
    """ArcFace's shape: the labels go into forward, which adds an angular margin to the true class."""

    def __init__(self, classes: int = 4, scale: float = 64.0, margin: float = 0.5) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 16))
        self.weight = nn.Parameter(torch.randn(classes, 16))
        self.scale, self.margin = scale, margin

    def forward(self, x, labels):
        cos = F.linear(F.normalize(self.body(x)), F.normalize(self.weight)).clamp(-1 + 1e-7, 1 - 1e-7)
        theta = torch.acos(cos)
        target = torch.cos(theta + self.margin)
        onehot = F.one_hot(labels, cos.shape[1]).bool()
        return self.scale * torch.where(onehot, target, cos)


def test_a_margin_head_given_the_labels_warns_instead_of_failing(single_thread):
    x, y = clusters()
    spec = dict(model=MarginHead(), batch=((x, y), y), loss_fn=F.cross_entropy, task="classification", num_classes=4)
    result = _check(spec, "loss_at_init")
    assert result["status"] == "warn" and "takes the targets as an input" in result["summary"]


# --- objectives that sample: custom tasks -------------------------------------------------------------------

class RandomMask(nn.Module):
    """MAE's shape: forward masks a random half of the features, in train and eval mode alike."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 12))

    def forward(self, x):
        keep = (torch.rand_like(x) > 0.5).float()
        return self.body(x * keep)


def test_sampling_in_forward_is_a_warning_for_a_custom_objective_and_a_failure_for_a_classifier(single_thread):
    x, _ = clusters()
    masked = dict(model=RandomMask(), batch=(x, x.clone()), loss_fn=F.mse_loss, task="custom")
    assert _check(masked, "train_eval_modes")["status"] == "warn"

    class NoisyClassifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))

        def forward(self, x):
            return self.body(F.dropout(x, 0.3))  # dropout without training=self.training: on in eval

    assert _check(classifier(model=NoisyClassifier()), "train_eval_modes")["status"] == "fail"


def test_features_then_logits_are_read_as_logits(single_thread):
    class FeaturesAndLogits(nn.Module):  # center-loss and metric-learning code return (features, logits)
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 2))
            self.head = nn.Linear(2, 4)

        def forward(self, x):
            f = self.features(x)
            return f, self.head(f)

    spec = classifier(model=FeaturesAndLogits(), loss_fn=lambda out, y: F.cross_entropy(out[1], y))
    report = run_checks(spec, steps=40, only=["batch_sanity", "loss_at_init"])
    assert all(c["status"] == "pass" for c in report["checks"]), [c["summary"] for c in report["checks"]]
    assert math.isfinite(report["checks"][1]["measured"]["loss"])


def test_the_activation_summary_names_the_worst_layer_not_the_first(single_thread):
    model = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    with torch.no_grad():
        model[0].bias[:16].fill_(-50.0)  # a quarter of the first layer dead: a warning
        model[2].bias[:48].fill_(-50.0)  # three quarters of the second: a failure
    result = _check(classifier(model=model), "activations")
    assert result["status"] == "fail" and result["summary"].startswith("3:"), result["summary"]  # ReLU modules 1 and 3


def _margin_loss(scale: float = 64.0, margin: float = 0.5):
    """insightface's arrangement: the model outputs cosines, the loss adds the margin and the scale."""
    def loss_fn(cos, labels):
        cos = cos.clamp(-1 + 1e-7, 1 - 1e-7)
        target = torch.cos(torch.acos(cos) + margin)
        onehot = F.one_hot(labels, cos.shape[1]).bool()
        return F.cross_entropy(scale * torch.where(onehot, target, cos), labels)
    return loss_fn


class Cosines(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 16))
        self.weight = nn.Parameter(torch.randn(4, 16))

    def forward(self, x):
        return F.linear(F.normalize(self.body(x)), F.normalize(self.weight))


def test_a_margin_and_scale_inside_the_loss_warn_but_a_summed_reduction_fails(single_thread):
    margin = _check(classifier(model=Cosines(), loss_fn=_margin_loss()), "loss_at_init")
    assert margin["status"] == "warn" and "rescales them first" in margin["summary"]
    summed = _check(classifier(loss_fn=lambda out, y: F.cross_entropy(out, y, reduction="sum")), "loss_at_init")
    assert summed["status"] == "fail"


def test_a_bias_beside_a_spectral_norm_weight_that_cancels_is_harmless(single_thread):
    net = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.utils.parametrizations.spectral_norm(nn.Linear(16, 4)))

    class Pair(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, pair):
            return self.net(pair[:, 0]) - self.net(pair[:, 1])

    result = _check(dict(model=Pair(), batch=_pairs(), loss_fn=contrastive, task="custom"), "gradient_flow")
    assert result["status"] == "pass" and "zero by construction" in result["summary"]
    assert any("never train, harmlessly" in d for d in result["details"])


# --- state the spec keeps beside its model -------------------------------------------------------------------

class Centres(nn.Module):
    """Center loss's centres: a module of the loss, moved by the step's own rule, not by the optimizer."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("centres", torch.zeros(4, 4))

    @torch.no_grad()
    def update(self, features, labels, rate: float = 0.5):
        for k in range(4):
            chosen = features[labels == k]
            if len(chosen):
                self.centres[k] += rate * (chosen.mean(0) - self.centres[k])


def test_state_beside_the_model_starts_every_run_afresh_and_is_given_back(single_thread):
    centres = Centres()
    starts = []

    def step(model, batch, optimizer):
        starts.append(centres.centres.abs().sum().item())
        optimizer.zero_grad()
        out = model(batch[0])
        loss = F.cross_entropy(out, batch[1]) + 0.01 * (out - centres.centres[batch[1]]).pow(2).sum(1).mean()
        loss.backward()
        optimizer.step()
        centres.update(out.detach(), batch[1])
        return loss

    report = run_checks(classifier(train_step=step), steps=40, only=["overfit_one_batch", "parameter_updates"])
    assert all(c["status"] == "pass" for c in report["checks"]), [c["summary"] for c in report["checks"]]
    assert torch.equal(centres.centres, torch.zeros(4, 4))  # the user's object, as it was
    assert starts.count(0.0) >= 2  # each fresh run began from the centres the spec was built with


# --- tensors silent only at the start, batches that are one graph, losses that pair despite a floor --------

class SkipGram(nn.Module):
    """word2vec's initialisation: input embeddings uniform, context embeddings zero."""

    def __init__(self) -> None:
        super().__init__()
        self.u = nn.Embedding(20, 8)
        self.v = nn.Embedding(20, 8)
        nn.init.uniform_(self.u.weight, -0.1, 0.1)
        nn.init.zeros_(self.v.weight)

    def forward(self, pairs):
        return (self.u(pairs[:, 0]) * self.v(pairs[:, 1])).sum(1)


def _skipgram_spec(**overrides) -> dict:
    g = torch.Generator().manual_seed(0)
    centre = torch.randint(0, 20, (64,), generator=g)
    pairs = torch.stack([centre, (centre + 1) % 20], 1)
    spec = dict(model=SkipGram(), batch=(pairs, torch.ones(64)), task="custom",
                loss_fn=lambda score, y: F.binary_cross_entropy_with_logits(score, y),
                optimizer=lambda ps: torch.optim.Adam(ps, lr=1e-2))
    spec.update(overrides)
    return spec


def test_a_tensor_silenced_only_by_a_zero_initialised_partner_is_not_cut_off(single_thread):
    report = run_checks(_skipgram_spec(), steps=40, only=["input_dependence", "gradient_flow", "parameter_updates"])
    assert all(c["status"] in ("pass", "warn", "skipped") for c in report["checks"]), [c["summary"] for c in report["checks"]]


def test_a_parameter_group_at_learning_rate_zero_still_fails(single_thread):
    def frozen_head(params):
        params = list(params)
        return torch.optim.Adam([{"params": params[:2]}, {"params": params[2:], "lr": 0.0}], lr=1e-2)

    assert _check(classifier(optimizer=frozen_head), "parameter_updates")["status"] == "fail"


class GraphConv(nn.Module):
    """Kipf and Welling's GCN: the whole graph is the batch, its normalised adjacency a buffer."""

    def __init__(self, adjacency) -> None:
        super().__init__()
        self.register_buffer("adj", adjacency)
        self.w1, self.w2 = nn.Linear(12, 16), nn.Linear(16, 4)

    def forward(self, x):
        return self.adj @ self.w2(F.relu(self.adj @ self.w1(x)))


def test_a_batch_that_is_one_graph_is_not_read_as_samples_mixing(single_thread):
    x, y = clusters()
    near = (y[:, None] == y[None, :]).float() + torch.eye(64)
    spec = classifier(model=GraphConv(near / near.sum(1, keepdim=True)))
    report = run_checks(spec, steps=40, only=["batch_independence", "odd_shapes"])
    by_id = {c["id"]: c for c in report["checks"]}
    assert by_id["batch_independence"]["status"] == "skipped" and "one graph" in by_id["batch_independence"]["summary"]
    assert by_id["odd_shapes"]["status"] == "pass"


class Segmenter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 1, 3, padding=1))

    def forward(self, x):
        return self.body(x)


def _masks():
    g = torch.Generator().manual_seed(0)
    images = torch.rand(16, 1, 12, 12, generator=g)
    masks = (images[:, 0] > 0.7).float()
    masks[:3] = 0  # empty masks: a soft Dice term stays near 1 even for a near-perfect prediction there
    return images, masks


def dice_bce(pred, mask):
    pred = pred.squeeze(1)
    prob = torch.sigmoid(pred)
    dice = 1 - (2 * (prob * mask).sum((1, 2)) + 1e-6) / (prob.sum((1, 2)) + mask.sum((1, 2)) + 1e-6)
    return F.binary_cross_entropy_with_logits(pred, mask) + dice.mean()


@pytest.mark.filterwarnings("ignore:Using a target size")  # the bug twin broadcasts, and torch says so
def test_a_loss_that_squeezes_is_paired_even_with_a_dice_floor_and_broadcasting_still_fails(single_thread):
    spec = dict(model=Segmenter(), batch=_masks(), loss_fn=dice_bce, task="binary")
    assert _check(spec, "odd_shapes")["status"] == "pass"
    # no squeeze: (16, 1, 12, 12) against (16, 12, 12) broadcasts to (16, 16, 12, 12)
    broadcast = dict(spec, loss_fn=lambda pred, mask: F.mse_loss(torch.sigmoid(pred), mask))
    assert _check(broadcast, "odd_shapes")["status"] == "fail"


class SquareBufferMixer(nn.Module):
    """A square buffer as wide as the batch, and a real row-mixing bug: not a graph batch."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.eye(64))
        self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        h = self.body(x)
        return h.t().reshape(h.shape)  # reorders across rows: sample i reads others


def test_a_square_buffer_alone_does_not_make_a_graph_batch(single_thread):
    result = _check(classifier(model=SquareBufferMixer()), "batch_independence")
    assert result["status"] == "fail", result["summary"]
