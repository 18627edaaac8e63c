"""Low-precision models: what torch does (settled by running it) and what diagnose then says."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from mldebug_mcp.diagnostics.checks import run_checks

from .builders import classifier, clusters


def _train_half(eps: float, steps: int = 5) -> list[float]:
    torch.manual_seed(0)
    x, y = clusters()
    model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4)).half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=eps)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x.half()), y)
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses


def test_torch_adam_on_float16_weights_gives_nan_with_its_default_eps_and_trains_with_a_representable_one():
    assert float(torch.tensor(1e-8, dtype=torch.float16)) == 0.0
    assert math.isnan(_train_half(1e-8)[-1])
    assert all(math.isfinite(v) for v in _train_half(1e-4))


def _half(spec: dict, dtype: torch.dtype) -> dict:
    spec["model"] = spec["model"].to(dtype)
    x, y = spec["batch"]
    spec["batch"] = (x.to(dtype), y)
    return spec


def test_diagnose_names_the_eps_for_a_float16_model(single_thread):
    report = run_checks(_half(classifier(), torch.float16), steps=40)
    by_id = {c["id"]: c for c in report["checks"]}
    assert by_id["overfit_one_batch"]["status"] == "fail"
    assert "optimizer's eps" in by_id["overfit_one_batch"]["summary"] and "float16" in by_id["overfit_one_batch"]["summary"]
    assert "learning rate is far too high" not in by_id["update_ratio"]["summary"]


def test_a_float16_model_with_a_representable_eps_is_not_blamed_on_it(single_thread):
    spec = _half(classifier(optimizer=lambda p: torch.optim.Adam(p, lr=1e-2, eps=1e-4)), torch.float16)
    report = run_checks(spec, steps=40)
    assert not any("optimizer's eps" in c["summary"] for c in report["checks"])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_a_low_precision_loss_is_not_read_as_samples_interacting(dtype, single_thread):
    spec = _half(classifier(optimizer=lambda p: torch.optim.Adam(p, lr=1e-2, eps=1e-4)), dtype)
    report = run_checks(spec, steps=40, only=["odd_shapes"])
    assert report["checks"][0]["status"] == "pass", report["checks"][0]["summary"]
