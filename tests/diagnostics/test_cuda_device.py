"""diagnose on a CUDA device, with specs built on CPU as users build them. Skipped without a GPU (CI has
none); run on a GPU machine with `pytest tests/diagnostics/test_cuda_device.py`, beside
`python benchmarks/diagnose_device.py`, which compares every setup's verdicts with CPU."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mldebug_mcp.diagnostics.checks import run_checks

from .builders import classifier

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


def _statuses(report: dict) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["checks"]}


def test_a_healthy_classifier_gets_the_same_verdicts_on_cuda_as_on_cpu():
    on_cpu = _statuses(run_checks(classifier(), steps=60, device="cpu"))
    on_gpu = run_checks(classifier(), steps=60, device="cuda")
    assert on_gpu["environment"]["device"].startswith("cuda")
    assert _statuses(on_gpu) == on_cpu


def test_class_weights_of_a_loss_module_follow_the_model():
    report = run_checks(classifier(loss_fn=nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 1.0, 0.5]))),
                        steps=60, device="cuda")
    assert not [c for c in report["checks"] if c["status"] in ("fail", "error")]


class GRUClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(6, 16, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.gru(x)[0][:, -1])


def test_eval_mode_gradients_through_a_cudnn_gru():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(32, 10, 6, generator=g)
    y = (x[:, :, 0].sum(1) > 0).long() + (x[:, :, 1].sum(1) > 2).long()
    spec = dict(model=GRUClassifier(), batch=(x, y), loss_fn=F.cross_entropy, task="classification", num_classes=3)
    report = run_checks(spec, steps=60, device="cuda")
    assert _statuses(report)["batch_independence"] == "pass"


def test_a_nan_into_binary_cross_entropy_does_not_break_the_run():
    torch.manual_seed(0)
    x = (torch.rand(32, 20) > 0.5).float()
    model = nn.Sequential(nn.Linear(20, 8), nn.ReLU(), nn.Linear(8, 20), nn.Sigmoid())

    def step(model, batch, optimizer):
        optimizer.zero_grad()
        loss = F.binary_cross_entropy(model(batch[0]), batch[1])
        loss.backward()
        optimizer.step()
        return loss

    # lr 1e4 diverges within a few steps: the weights turn NaN, which on a GPU makes BCE assert
    spec = dict(model=model, batch=(x, x.clone()), loss_fn=lambda out, t: F.binary_cross_entropy(out, t),
                task="custom", train_step=step, optimizer=lambda p: torch.optim.SGD(p, lr=1e4))
    report = run_checks(spec, steps=40, device="cuda")
    assert not [c for c in report["checks"] if "device-side assert" in c["summary"]]


def test_a_train_step_that_makes_cpu_tensors_is_reported_once():
    def step(model, batch, optimizer):
        optimizer.zero_grad()
        logits = model(batch[0])
        loss = F.cross_entropy(logits, batch[1], weight=torch.ones(4))  # CPU weight: a real user's slip
        loss.backward()
        optimizer.step()
        return loss

    report = run_checks(classifier(train_step=step), steps=40, device="cuda")
    failed = [c for c in report["checks"] if c["status"] == "fail"]
    assert len(failed) == 1 and "train_step" in failed[0]["summary"] and "device" in failed[0]["summary"]
