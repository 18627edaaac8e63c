"""Hugging Face style setups: dict batches, models that compute their own loss, ModelOutput/dict/tuple outputs;
and a forward that raises is reported once, with the user's frames only."""

from __future__ import annotations

import pytest
import torch
from torch import nn
import torch.nn.functional as F

from mldebug_mcp.diagnostics.checks import CHECK_IDS, SpecError, run_checks
from mldebug_mcp.diagnostics.checks.tensors import primary

from . import builders as b
from .hf_standins import ModelOutput, collated_lm_batch, hf_lm_spec


def fired(report: dict) -> dict[str, str]:
    return {c["id"]: c["summary"] for c in report["checks"] if c["status"] in ("warn", "fail")}


def test_a_collated_dict_batch_and_the_models_own_loss_pass_every_check():
    report = run_checks(hf_lm_spec())  # no loss_fn: the model's .loss is the loss
    assert fired(report) == {}
    assert {c["id"] for c in report["checks"] if c["status"] == "pass"} >= {
        "batch_sanity", "loss_at_init", "input_dependence", "gradient_flow", "overfit_one_batch", "causality",
        "batch_independence", "first_nonfinite", "odd_shapes", "train_eval_modes"}


@pytest.mark.parametrize("returns", ["dict", "tuple"])
def test_plain_dict_and_tuple_outputs_carry_the_loss_and_logits(returns):
    report = run_checks(hf_lm_spec(returns=returns, loss_fn="model"),
                        only=["batch_sanity", "loss_at_init", "gradient_flow", "causality", "odd_shapes"])
    assert fired(report) == {}


def test_a_loss_fn_that_reads_out_loss_no_longer_breaks_batch_sanity():
    """The tiny GPT-2 report: FAIL batch_sanity 'Tensor' object has no attribute 'loss'."""
    batch = collated_lm_batch()
    spec = hf_lm_spec(batch=(batch, batch["labels"]), loss_fn=lambda out, _: out.loss)
    report = run_checks(spec, only=["batch_sanity", "loss_at_init", "input_dependence"])
    assert fired(report) == {}


def test_causal_lm_labels_equal_to_input_ids_are_shuffled_without_the_input_ids():
    # labels == input_ids: shuffling both together would leave the task intact and fail the check falsely
    result = run_checks(hf_lm_spec(), only=["input_dependence"])["checks"][0]
    assert result["status"] == "pass", result["summary"]
    assert result["measured"]["real_over_shuffled_targets"] < 0.7


def test_a_users_train_step_gets_the_dict_batch_back():
    seen = []

    def train_step(model, batch, optimizer):
        seen.append(sorted(batch))
        optimizer.zero_grad()
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        return loss

    report = run_checks(hf_lm_spec(train_step=train_step), only=["parameter_updates", "overfit_one_batch"])
    assert fired(report) == {}
    assert seen and all(keys == ["attention_mask", "input_ids", "labels"] for keys in seen)


def test_primary_reads_logits_from_every_output_layout():
    logits = torch.randn(2, 3)
    loss = torch.tensor(1.0)
    for output in (logits, (logits, "cache"), (loss, logits), {"loss": loss, "logits": logits},
                   {"loss": loss, "hidden": logits}, ModelOutput(loss=loss, logits=logits)):
        assert primary(output) is logits


def test_the_model_loss_sentinel_is_checked_and_a_missing_loss_is_one_clear_failure():
    with pytest.raises(SpecError, match="or 'model' when the model computes its own loss"):
        run_checks(hf_lm_spec(loss_fn="mse"))
    plain = b.classifier(loss_fn="model")  # an nn.Sequential returns a bare tensor: no .loss to read
    report = run_checks(plain)
    failing = [c for c in report["checks"] if c["status"] == "fail"]
    assert len(failing) == 1 and failing[0]["id"] == "loss_at_init"
    assert "the model returned Tensor without a loss" in failing[0]["summary"]
    assert "give loss_fn(outputs, targets)" in failing[0]["summary"]


def test_a_dict_batch_without_labels_has_no_targets_but_runs():
    x, _ = b.clusters()

    class OwnLoss(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 12))

        def forward(self, features):
            out = self.net(features)
            return {"logits": out, "loss": F.mse_loss(out, features)}  # an autoencoder: no labels at all

    report = run_checks({"model": OwnLoss(), "batch": {"features": x}}, only=["batch_sanity", "gradient_flow"])
    assert fired(report) == {}


# --- one error for a forward that raises ----------------------------------------------------------

class WrongWidth(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(10, 32)  # the batch has 12 features
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        hidden = torch.relu(self.encoder(x))  # the user's line that leads into torch
        return self.head(hidden)


def test_a_forward_that_raises_is_reported_once_with_user_frames_only():
    report = run_checks(b.classifier(model=WrongWidth()))
    failing = [c for c in report["checks"] if c["status"] == "fail"]
    assert len(failing) == 1
    (failure,) = failing
    assert failure["id"] == "loss_at_init"  # batch_sanity still reads the batch itself
    assert "mat1 and mat2 shapes cannot be multiplied" in failure["summary"]
    assert "in module encoder (Linear)" in failure["summary"]
    assert failure["measured"]["batch_shapes"] == {"inputs": [64, 12], "targets": [64]}
    frames = failure["error"]["frames"]
    assert any("the user's line that leads into torch" in f for f in frames)
    assert not any("/torch/" in f or "site-packages" in f or "mldebug_mcp" in f for f in frames), frames
    skipped = [c for c in report["checks"] if c["status"] == "skipped"]
    assert len(skipped) == len(CHECK_IDS) - 2
    assert all("not run: the forward pass, the loss or the train step raised" in c["summary"] for c in skipped)


def test_a_loss_that_raises_is_reported_once_after_batch_sanity_names_the_cause():
    x, y = b.clusters()
    report = run_checks(b.classifier(batch=(x, y + 1)))  # label 4 with 4 classes: cross_entropy raises
    statuses = {c["id"]: c["status"] for c in report["checks"]}
    assert statuses["batch_sanity"] == "fail" and statuses["loss_at_init"] == "fail"
    assert sum(s == "fail" for s in statuses.values()) == 2
    assert "loss_fn raised" in next(c["summary"] for c in report["checks"] if c["id"] == "loss_at_init")


def test_with_a_subset_the_first_selected_check_carries_the_failure():
    report = run_checks(b.classifier(model=WrongWidth()), only=["overfit_one_batch", "gradient_flow"])
    assert [c["status"] for c in report["checks"]] == ["fail", "skipped"]
    # only batch_sanity selected: it calls the model itself and fails once
    (only,) = run_checks(b.classifier(model=WrongWidth()), only=["batch_sanity"])["checks"]
    assert only["status"] == "fail" and "mat1 and mat2" in only["summary"]


def test_a_loss_that_raises_on_a_too_narrow_head_still_lets_batch_sanity_read_the_head():
    spec = b.classifier()
    spec["model"][2] = nn.Linear(32, 3)  # 3 scores for 4 classes: cross_entropy raises on label 3
    statuses = {c["id"]: (c["status"], c["summary"]) for c in run_checks(spec, only=["batch_sanity", "loss_at_init"])["checks"]}
    assert statuses["batch_sanity"][0] == "fail" and "outputs 3 scores per sample" in statuses["batch_sanity"][1]
    assert statuses["loss_at_init"][0] == "fail" and statuses["loss_at_init"][1].startswith("loss_fn raised")


def test_an_adamw_instance_is_rebuilt_over_each_copy():
    # AdamW's defaults hold an Adam-only 'decoupled_weight_decay' that AdamW(...) refuses
    spec = b.classifier()
    spec["optimizer"] = torch.optim.AdamW(spec["model"].parameters(), lr=1e-2, weight_decay=0.01)
    report = run_checks(spec, only=["parameter_updates", "update_ratio"])
    assert fired(report) == {}
