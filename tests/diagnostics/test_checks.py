"""Each check fires on a broken setup and stays quiet on a healthy one (in-process, CPU)."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mldebug_mcp.diagnostics.checks import CHECK_IDS, SpecError, run_checks

from . import builders as b


def verdict(spec, check: str, **options):
    report = run_checks(spec, only=[check], **options)
    (result,) = report["checks"]
    return result


def status(spec, check: str, **options) -> str:
    return verdict(spec, check, **options)["status"]


# --- helpers that break a healthy setup in one place ------------------------------------------

class Scaled(nn.Module):
    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


class Detached(nn.Module):
    def forward(self, x):
        return x.detach()


class AlwaysDropout(nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.5)  # training defaults to True: still active in eval


class LogOfRelu(nn.Module):
    def forward(self, x):
        return torch.log(torch.relu(x))


class MixSamples(nn.Module):
    """(B, F) -> (F, B) with view instead of transpose, then back: values cross samples."""

    def forward(self, x):
        return x.reshape(x.shape[1], x.shape[0]).t().contiguous() * 0.5 + x * 0.5


class Softsign(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs()) ** 2


class WrongSoftsign(Softsign):
    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs())  # missing square


def last_linear(spec) -> nn.Linear:
    return [m for m in spec["model"].modules() if isinstance(m, nn.Linear)][-1]


def train_step(zero_grad: str = "before"):
    def step(model, batch, optimizer):
        x, y = batch
        if zero_grad == "before":
            optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if zero_grad == "between":
            optimizer.zero_grad()
        optimizer.step()
        return loss
    return step


# --- healthy setups pass every applicable check ----------------------------------------------

@pytest.mark.parametrize("build", [b.classifier, b.lm, b.regression], ids=["classifier", "lm", "regression"])
def test_healthy_setups_raise_no_warning_or_failure(build):
    report = run_checks(build())
    bad = {c["id"]: c["summary"] for c in report["checks"] if c["status"] in ("warn", "fail")}
    assert bad == {}
    assert report["status"] == "pass"


# --- one firing case per check (at least) -------------------------------------------------------

def test_batch_sanity_labels_out_of_range():
    x, y = b.clusters()
    result = verdict(b.classifier(batch=(x, y + 1)), "batch_sanity")
    assert result["status"] == "fail" and "labels span [1, 4]" in result["summary"]


@pytest.mark.parametrize("corrupt, expected", [
    (lambda x: x.index_put_((torch.tensor([0]),), torch.tensor(float("nan"))), "NaN/Inf"),
    (lambda x: torch.ones_like(x), "identical"),
    (lambda x: (x.abs() * 40).round().clamp(0, 255), "0-255"),
])
def test_batch_sanity_bad_inputs(corrupt, expected):
    x, y = b.clusters()
    result = verdict(b.classifier(batch=(corrupt(x.clone()), y)), "batch_sanity")
    assert result["status"] == "fail" and expected in result["summary"]


def test_batch_sanity_head_width_must_match_num_classes():
    spec = b.classifier()
    spec["model"][2] = nn.Linear(32, 3)
    result = verdict(spec, "batch_sanity")
    assert result["status"] == "fail" and "outputs 3 scores" in result["summary"]


def test_batch_sanity_non_integral_pixels_in_image_tensors():
    images = torch.rand(16, 1, 6, 6) * 250  # resized/augmented pixels: not integers, still 0-255
    model = nn.Sequential(nn.Flatten(), nn.Linear(36, 4))
    spec = dict(model=model, batch=(images, torch.arange(16) % 4), loss_fn=F.cross_entropy,
                task="classification", num_classes=4)
    result = verdict(spec, "batch_sanity")
    assert result["status"] == "fail" and "0-255" in result["summary"]
    quiet = verdict({**spec, "batch": ((images - 125) / 72, torch.arange(16) % 4)}, "batch_sanity")
    assert quiet["status"] == "pass"


class _SelfScaling(nn.Module):
    """Standardises its own input with buffers (the A/B benchmark's t08 model), or divides pixels by 255."""

    def __init__(self, n: int, mean: torch.Tensor, std: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)
        self.body = nn.Sequential(nn.Linear(n, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, x):
        return self.body((x - self.mean) / self.std)


@pytest.mark.parametrize("inside", ["buffers", "norm-first"])
def test_batch_sanity_raw_inputs_are_fine_when_the_model_scales_them_itself(inside):
    """Large raw features fed to a model that standardises them first: the first weighted layer sees unit scale, so
    no 'standardise features' warning (a false alarm that two A/B runs on t08 had to argue past)."""
    x, y = b.clusters()
    raw = x * 300 + 1000
    model = _SelfScaling(12, raw.mean(0), raw.std(0)) if inside == "buffers" else \
        nn.Sequential(nn.BatchNorm1d(12), nn.Linear(12, 4))
    spec = dict(model=model, batch=(raw, y), loss_fn=F.cross_entropy, task="classification", num_classes=4)
    assert verdict(spec, "batch_sanity")["status"] == "pass"
    unscaled = dict(spec, model=nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4)))
    result = verdict(unscaled, "batch_sanity")
    assert result["status"] == "warn" and "standardise features" in result["summary"]


def test_batch_sanity_lm_targets_all_ignored_and_unshifted():
    spec = b.lm()
    inputs, targets = spec["batch"]
    masked = verdict(b.lm(batch=(inputs, torch.full_like(targets, -100))), "batch_sanity")
    assert masked["status"] == "fail" and "ignore index" in masked["summary"]
    unshifted = verdict(b.lm(shift=False), "batch_sanity")
    assert unshifted["status"] == "fail" and "not shifted" in unshifted["summary"]


def test_batch_sanity_class_imbalance_warns():
    x, _ = b.clusters(n=110)
    y = torch.zeros(110, dtype=torch.long)
    y[:10] = torch.arange(10) % 4
    y[10:] = 1
    y[0], y[1] = 0, 2  # every class present, class 1 dominates
    assert status(b.classifier(batch=(x[:, :12], y)), "batch_sanity") in ("warn", "fail")


def test_loss_at_init_detects_softmax_and_huge_logits():
    assert status(b.classifier(head=nn.Softmax(dim=-1)), "loss_at_init") == "fail"
    assert status(b.classifier(head=Scaled(50.0)), "loss_at_init") == "fail"
    summed = verdict(b.regression(loss_fn=lambda out, y: F.mse_loss(out, y, reduction="sum")), "loss_at_init")
    assert summed["status"] == "fail" and summed["measured"]["ratio_to_expected"] > 10


def test_input_dependence_fires_on_shuffled_labels_and_ignored_inputs():
    x, y = b.clusters()
    shuffled = y[torch.randperm(len(y), generator=torch.Generator().manual_seed(1))]
    assert status(b.classifier(batch=(x, shuffled)), "input_dependence") in ("warn", "fail")
    blind = b.classifier()
    blind["model"] = nn.Sequential(Scaled(0.0), *blind["model"])
    result = verdict(blind, "input_dependence")
    assert result["status"] == "fail" and "inputs" in result["summary"]


def test_gradient_flow_detached_layer_and_missing_parameters():
    spec = b.classifier()
    spec["model"] = nn.Sequential(spec["model"][0], Detached(), *spec["model"][1:])
    result = verdict(spec, "gradient_flow")
    assert result["status"] == "fail" and "no gradient" in result["summary"] and "0.weight" in result["summary"]
    partial = b.classifier(optimizer=lambda params: torch.optim.Adam(list(params)[2:], lr=1e-2))
    result = verdict(partial, "gradient_flow")
    assert result["status"] == "fail" and "not in optimizer" in result["summary"]


def test_overfit_fails_with_softmax_head_and_warns_of_a_huge_learning_rate():
    capped = verdict(b.classifier(head=nn.Softmax(dim=-1)), "overfit_one_batch")
    assert capped["status"] == "fail" and "softmax" in capped["summary"]
    # A rate that diverges is the rate's fault, not the model's: a lower one memorises the batch.
    wild = verdict(b.classifier(optimizer=lambda p: torch.optim.SGD(p, lr=50.0)), "overfit_one_batch")
    assert wild["status"] == "warn" and "too high" in wild["summary"]
    assert wild["measured"]["working_lr_factor"] < 1


def test_parameter_updates_frozen_layer_and_zero_grad_mistakes():
    frozen = b.classifier()
    frozen["model"][0].requires_grad_(False)  # handed to the spec's optimizer: maybe a mistake
    assert status(frozen, "parameter_updates") == "warn"
    left_out = b.classifier(optimizer=lambda ps: torch.optim.Adam([p for p in ps if p.requires_grad], lr=1e-2))
    left_out["model"][0].requires_grad_(False)
    said = verdict(left_out, "parameter_updates")  # the optimizer leaves them out: deliberate, told not warned
    assert said["status"] == "pass" and said["measured"]["frozen"] == 2
    assert any("2 tensors are frozen" in d for d in said["details"])
    missing = verdict(b.classifier(train_step=train_step("never")), "parameter_updates")
    assert missing["status"] == "fail" and missing["measured"]["zero_grad_probe"] == "accumulating"
    between = verdict(b.classifier(train_step=train_step("between")), "parameter_updates")
    assert between["status"] == "fail" and between["measured"]["zero_grad_probe"] == "zeroed"
    fine = verdict(b.classifier(train_step=train_step("before")), "parameter_updates")
    assert fine["status"] == "pass" and fine["measured"]["zero_grad_probe"] == "fresh"


def test_a_train_step_that_returns_nothing_still_gives_a_curve():
    def silent_step(model, batch, optimizer):
        optimizer.zero_grad()
        F.cross_entropy(model(batch[0]), batch[1]).backward()
        optimizer.step()

    assert status(b.classifier(train_step=silent_step), "overfit_one_batch") == "pass"


def test_update_ratio_flags_huge_and_tiny_learning_rates():
    assert status(b.classifier(optimizer=lambda p: torch.optim.Adam(p, lr=1.0)), "update_ratio") == "fail"
    assert status(b.classifier(optimizer=lambda p: torch.optim.SGD(p, lr=1e-7)), "update_ratio") == "warn"


def test_activations_dead_relu_and_saturated_tanh():
    dead = b.classifier()
    nn.init.constant_(dead["model"][0].bias, -20.0)
    result = verdict(dead, "activations")
    assert result["status"] == "fail" and "never fire" in result["summary"]
    saturated = b.regression()
    with torch.no_grad():
        saturated["model"][0].weight.mul_(20)
    assert status(saturated, "activations") == "fail"


def test_first_nonfinite_names_the_module():
    spec = b.classifier()
    spec["model"] = nn.Sequential(spec["model"][0], LogOfRelu(), *spec["model"][1:])
    result = verdict(spec, "first_nonfinite")
    assert result["status"] == "fail" and result["measured"]["first"]["module"] == "1"
    assert result["measured"]["first"]["type"] == "LogOfRelu"


def test_first_nonfinite_replays_a_diverging_run():
    spec = b.classifier(optimizer=lambda p: torch.optim.SGD(p, lr=1e6))
    result = verdict(spec, "first_nonfinite")
    assert result["status"] == "fail" and "step" in result["summary"]


def test_batch_independence_catches_sample_mixing_and_explains_batchnorm():
    mixed = b.classifier()
    mixed["model"] = nn.Sequential(MixSamples(), *mixed["model"])
    assert status(mixed, "batch_independence") == "fail"
    normed = b.classifier()
    normed["model"] = nn.Sequential(nn.Linear(12, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 4))
    result = verdict(normed, "batch_independence")
    assert result["status"] == "pass" and "BatchNorm1d" in result["details"][0]


def test_causality_fails_without_mask_and_skips_non_causal_tasks():
    result = verdict(b.lm(causal=False), "causality")
    assert result["status"] == "fail" and "causal mask" in result["summary"]
    assert status(b.classifier(), "causality") == "skipped"


@pytest.mark.filterwarnings("ignore:Using a target size")  # the very broadcast the check reports
def test_odd_shapes_catches_broadcasting_regression_targets():
    spec = b.regression()
    x, y = spec["batch"]
    result = verdict(b.regression(batch=(x, y.squeeze(1))), "odd_shapes")
    assert result["status"] == "fail" and "broadcast" in result["summary"]


def test_odd_shapes_reports_summed_loss_and_baked_in_batch_size():
    summed = b.regression(loss_fn=lambda out, y: F.mse_loss(out, y, reduction="sum"))
    assert status(summed, "odd_shapes") == "warn"

    class FixedBatch(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 4)

        def forward(self, x):
            return self.fc(x).reshape(64, 4)

    baked = b.classifier()
    baked["model"] = FixedBatch()
    assert status(baked, "odd_shapes") == "fail"


def test_train_eval_modes_catches_dropout_without_training_flag():
    spec = b.classifier()
    spec["model"] = nn.Sequential(spec["model"][0], spec["model"][1], AlwaysDropout(), spec["model"][2])
    assert status(spec, "train_eval_modes") == "fail"
    dropout = b.classifier()
    dropout["model"] = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 4))
    assert status(dropout, "train_eval_modes") == "pass"


def test_leakage_traces_statistics_fitted_on_the_test_split():
    x, y = b.clusters()
    val = b.clusters(n=32, seed=1)
    leaky = verdict(b.classifier(preprocess=b.standardise_everything, val_batch=val), "leakage")
    assert leaky["status"] == "fail"
    assert leaky["measured"]["train_values_changed_by_sentinel"] == leaky["measured"]["train_values"]
    clean = verdict(b.classifier(preprocess=b.standardise_train_only, val_batch=val), "leakage")
    assert clean["status"] == "pass"
    assert status(b.classifier(), "leakage") == "skipped"


def test_leakage_is_caught_when_the_statistics_skip_nan():
    def nan_mean(train, test):
        both = torch.cat([train, test])
        return train - both.nanmean(0), test - both.nanmean(0)

    result = verdict(b.classifier(preprocess=nan_mean), "leakage")
    assert result["status"] == "fail"
    # nanmean drops the NaN rows, so the NaN poison shows up as statistics that moved, not as NaN.
    assert result["measured"]["train_values_changed_by_nan"] > 0
    assert result["measured"]["train_values_changed_by_sentinel"] > 0


def test_gradcheck_compares_custom_backward_in_float64():
    x = torch.randn(8)
    wrong = verdict(b.classifier(gradcheck={"softsign": (WrongSoftsign.apply, (x,))}), "gradcheck")
    assert wrong["status"] == "fail" and wrong["measured"]["softsign"]["relative_error"] > 1e-2
    right = verdict(b.classifier(gradcheck={"softsign": (Softsign.apply, (x,))}), "gradcheck")
    assert right["status"] == "pass" and right["measured"]["softsign"]["relative_error"] < 1e-6


# --- the runner ------------------------------------------------------------------------------------

def test_an_exception_in_user_code_becomes_a_failed_check_with_user_frames():
    def exploding_loss(out, y):
        raise RuntimeError("shape mismatch in my loss")

    result = verdict(b.classifier(loss_fn=exploding_loss), "loss_at_init")
    assert result["status"] == "fail" and "shape mismatch in my loss" in result["summary"]
    assert any("exploding_loss" in frame for frame in result["error"]["frames"])
    assert not any("mldebug_mcp" in frame for frame in result["error"]["frames"])


def test_report_is_valid_json_even_with_nan_values():
    spec = b.classifier(optimizer=lambda p: torch.optim.SGD(p, lr=1e6))
    text = json.dumps(run_checks(spec, only=["overfit_one_batch", "update_ratio"]), allow_nan=False)
    assert '"fail"' in text


@pytest.mark.parametrize("spec, message", [
    ({"model": nn.Linear(2, 2)}, "lacks ['batch']"),
    ({**b.classifier(), "bogus": 1}, "unknown key(s) ['bogus']"),
    ({**b.classifier(), "task": "classify"}, "use one of classification"),
    ({**b.classifier(), "num_classes": None}, "needs 'num_classes'"),
    ({**b.classifier(), "batch": torch.zeros(3)}, "must be a pair (inputs, targets)"),
    ({**b.classifier(), "model": "resnet"}, "must be a torch.nn.Module"),
    ([1, 2], "return a dict"),
])
def test_malformed_specs_get_messages_that_name_the_fix(spec, message):
    with pytest.raises(SpecError) as caught:
        run_checks(spec)
    assert message in str(caught.value)


@pytest.mark.skipif(torch.cuda.is_available(), reason="tests the message on a machine without CUDA")
def test_an_unavailable_device_is_refused_with_the_fix():
    with pytest.raises(SpecError, match="use --device cpu"):
        run_checks(b.classifier(), device="cuda")
    with pytest.raises(SpecError, match="not a torch device name"):
        run_checks(b.classifier(), device="gpu0")


def test_check_ids_are_the_sixteen_documented_ones():
    assert len(CHECK_IDS) == 16 and len(set(CHECK_IDS)) == 16
    with pytest.raises(SpecError, match="unknown check"):
        run_checks(b.classifier(), only=["nope"])


class NoCopy(nn.Sequential):
    def __deepcopy__(self, memo):
        raise TypeError("this module cannot be deep-copied")


def test_a_model_that_refuses_deepcopy_is_restored_afterwards():
    spec = b.classifier()
    spec["model"] = NoCopy(*spec["model"])
    before = {k: v.clone() for k, v in spec["model"].state_dict().items()}
    run_checks(spec, only=["overfit_one_batch", "update_ratio"])
    assert all(torch.equal(before[k], v) for k, v in spec["model"].state_dict().items())


def test_the_users_model_is_never_modified():
    spec = b.classifier()
    before = {k: v.clone() for k, v in spec["model"].state_dict().items()}
    run_checks(spec)
    after = spec["model"].state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)


class DictModel(nn.Module):
    """Hugging Face style: keyword inputs with a mask and labels, output object with .logits."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, features, attention_mask, labels=None):
        logits = self.net(features * attention_mask)
        return {"logits": logits, "loss": F.cross_entropy(logits, labels)}


def test_dict_inputs_with_masks_and_labels_are_handled():
    x, y = b.clusters()
    inputs = {"features": x, "attention_mask": torch.ones_like(x), "labels": y}
    spec = dict(model=DictModel(), batch=(inputs, y), loss_fn=lambda out, _: out["loss"], task="classification",
                num_classes=4, optimizer=lambda p: torch.optim.Adam(p, lr=1e-2))
    report = run_checks(spec)
    bad = {c["id"]: c["summary"] for c in report["checks"] if c["status"] in ("warn", "fail")}
    assert bad == {}


class FunctionalDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(12, 32), nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.dropout(torch.relu(self.fc1(x)), 0.3, training=self.training))


def test_functional_dropout_with_the_training_flag_is_not_flagged():
    spec = b.classifier()
    spec["model"] = FunctionalDropout()
    result = verdict(spec, "train_eval_modes")
    assert result["status"] == "pass" and result["measured"]["train_mode_stochastic"] is True
