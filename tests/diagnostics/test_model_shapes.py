"""Healthy models in shapes real projects use, which diagnose once got wrong: lazy modules, a closure
optimizer, spectral norm. Each has its bug twin that must still be caught."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn

from mldebug_mcp.diagnostics.checks import SpecError, run_checks

from .builders import classifier


def _statuses(report: dict) -> dict[str, str]:
    return {c["id"]: c["status"] for c in report["checks"]}


def test_a_lazy_model_is_materialised_as_its_first_forward_would(single_thread):
    spec = classifier()
    spec["model"] = nn.Sequential(nn.LazyLinear(32), nn.ReLU(), nn.Linear(32, 4))
    report = run_checks(spec, steps=60)
    assert not [c for c in report["checks"] if c["status"] in ("fail", "error")]
    assert spec["model"][0].weight.shape == (32, 12)


def test_a_lazy_model_that_cannot_take_the_batch_is_a_spec_error_naming_it():
    spec = classifier()
    spec["model"] = nn.Sequential(nn.LazyLinear(32), nn.ReLU(), nn.Linear(16, 4))  # 32 -> 16: a real mismatch
    with pytest.raises(SpecError, match="lazy modules"):
        run_checks(spec, steps=20)


def test_an_optimizer_that_needs_a_closure_trains(single_thread):
    report = run_checks(classifier(optimizer=lambda p: torch.optim.LBFGS(p, lr=0.5)), steps=40)
    statuses = _statuses(report)
    assert statuses["overfit_one_batch"] == "pass" and "error" not in statuses.values()


def test_with_a_closure_optimizer_a_broken_model_is_still_caught(single_thread):
    spec = classifier(optimizer=lambda p: torch.optim.LBFGS(p, lr=0.5))
    spec["model"] = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4), nn.Softmax(dim=1))
    assert _statuses(run_checks(spec, steps=40))["loss_at_init"] == "fail"


@pytest.mark.parametrize("wrap", [nn.utils.parametrizations.spectral_norm, nn.utils.spectral_norm])
def test_spectral_norm_is_deterministic_state_not_randomness(wrap, single_thread):
    spec = classifier()
    spec["model"] = nn.Sequential(wrap(nn.Linear(12, 32)), nn.ReLU(), nn.Linear(32, 4))
    report = run_checks(spec, steps=40, only=["train_eval_modes"])
    assert report["checks"][0]["status"] == "pass", report["checks"][0]["summary"]


class NumpyNoise(nn.Module):
    """Train-mode noise from NumPy's generator, which torch's seed does not repeat."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        if self.training:
            x = x + torch.from_numpy(np.random.normal(size=x.shape).astype("float32"))
        return self.body(x)


def test_randomness_outside_torch_still_warns(single_thread):
    spec = classifier()
    spec["model"] = NumpyNoise()
    report = run_checks(spec, steps=40, only=["train_eval_modes"])
    assert report["checks"][0]["status"] == "warn" and "numpy" in report["checks"][0]["summary"]


def test_a_training_branch_without_spectral_norm_keeps_its_warning(single_thread):
    class Branch(nn.Module):  # a deterministic self.training branch without any explaining module
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(12, 4)

        def forward(self, x):
            return self.body(x) * (2.0 if self.training else 1.0)

    spec = classifier()
    spec["model"] = Branch()
    report = run_checks(spec, steps=40, only=["train_eval_modes"])
    assert report["checks"][0]["status"] == "warn"
