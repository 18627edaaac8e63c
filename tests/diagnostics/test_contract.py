"""The checks read the layout and the floor from the loss and the shapes (checks/contract.py), and what
PyTorch itself does with those layouts is pinned here by running it, not assumed."""

from __future__ import annotations

import functools
import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from mldebug_mcp.diagnostics.checks import run_checks
from mldebug_mcp.diagnostics.checks.contract import contract_of, loss_facts
from mldebug_mcp.diagnostics.checks.session import Session
from mldebug_mcp.diagnostics.checks.spec import as_spec

from . import builders as b
from . import issue_cases as ic


def contract(spec):
    return contract_of(Session(as_spec(spec)))


def verdict(spec, check):
    (result,) = run_checks(spec, only=[check])["checks"]
    return result


# --- what PyTorch does (the facts the contract relies on) -----------------------------------------

def test_cross_entropy_takes_the_class_axis_at_dim_1_for_sequences():
    logits, targets = torch.randn(4, 7, 5), torch.randint(0, 7, (4, 5))  # (B, V, T) and (B, T)
    flat = F.cross_entropy(logits.transpose(1, 2).reshape(-1, 7), targets.reshape(-1))
    assert torch.allclose(nn.CrossEntropyLoss()(logits, targets), flat)
    with pytest.raises(RuntimeError, match="Expected target size"):  # the (B, T, V) layout is refused
        nn.CrossEntropyLoss()(logits.transpose(1, 2), targets)


def test_label_smoothing_puts_a_floor_under_cross_entropy():
    k, eps = 4, 0.1
    high, low = 1 - eps + eps / k, eps / k
    entropy = -(high * math.log(high) + (k - 1) * low * math.log(low))
    labels = torch.arange(8) % k
    best = F.cross_entropy(torch.log(torch.full((8, k), low).scatter(1, labels[:, None], high)), labels,
                           label_smoothing=eps)
    assert math.isclose(float(best), entropy, rel_tol=1e-5) and entropy > 0.3
    assert float(F.cross_entropy(F.one_hot(labels, k).float() * 30, labels, label_smoothing=eps)) > 2


def test_bce_with_logits_refuses_mismatched_shapes_and_mse_broadcasts_them():
    with pytest.raises(ValueError, match="must be the same as input size"):
        nn.BCEWithLogitsLoss()(torch.randn(6, 1), torch.rand(6))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.mse_loss(torch.randn(6, 1), torch.randn(6))
    assert any("different to the input size" in str(w.message) for w in caught)


def test_a_unidirectional_gru_is_causal_and_a_bidirectional_one_is_not():
    x = torch.randn(2, 6, 3, requires_grad=True)
    for bidirectional, leaks in ((False, False), (True, True)):
        out, _ = nn.GRU(3, 4, batch_first=True, bidirectional=bidirectional)(x)
        (grad,) = torch.autograd.grad(out[:, 2].sum(), x)
        assert bool(grad[:, 3:].abs().sum() > 0) is leaks


# --- the contract ----------------------------------------------------------------------------------

def test_the_class_axis_is_read_from_the_shapes():
    assert contract(ic.gru_lm()).class_dim == 1  # (B, V, T) for nn.CrossEntropyLoss
    assert contract(b.lm()).class_dim == 2       # (B, T, V) for a loss that flattens
    assert contract(b.classifier()).class_dim == 1


class SquareLM(nn.Module):
    """Vocabulary and sequence of the same size: (B, T, V) and (B, V, T) both fit the targets."""

    def __init__(self, transpose: bool) -> None:
        super().__init__()
        self.emb, self.head, self.transpose = nn.Embedding(12, 16), nn.Linear(16, 12), transpose

    def forward(self, tokens):
        out = self.head(self.emb(tokens))
        return out.transpose(1, 2) if self.transpose else out


@pytest.mark.parametrize("transpose, loss_fn, axis", [(True, nn.CrossEntropyLoss(), 1), (False, b.lm_loss, 2)])
def test_an_ambiguous_class_axis_is_settled_by_asking_the_loss(transpose, loss_fn, axis):
    tokens = torch.randint(0, 12, (4, 12), generator=torch.Generator().manual_seed(0))
    spec = dict(model=SquareLM(transpose), batch=(tokens, tokens.roll(-1, 1)), loss_fn=loss_fn, task="lm", vocab_size=12)
    found = contract(spec)
    assert found.class_dim == axis and "scores the true labels best" in found.class_how
    assert found.out_seq_dim == 3 - axis


def test_loss_facts_come_from_modules_functions_and_partials():
    assert loss_facts(nn.CrossEntropyLoss(ignore_index=0, label_smoothing=0.2))[1:] == ("cross_entropy", 0, 0.2)
    assert loss_facts(functools.partial(F.cross_entropy, ignore_index=3))[1:] == ("cross_entropy", 3, 0.0)
    assert loss_facts(nn.BCEWithLogitsLoss())[1] == "bce_logits"
    assert loss_facts(b.lm_loss)[1:] == ("unknown", None, None)


def test_the_ignore_index_of_the_loss_module_is_the_one_batch_sanity_uses():
    spec = b.lm(loss_fn=nn.CrossEntropyLoss(ignore_index=0))
    inputs, targets = spec["batch"]
    spec["batch"] = (inputs, torch.zeros_like(targets))  # every target is the loss's ignore index
    result = verdict(spec, "batch_sanity")
    assert result["status"] == "fail" and "ignore index 0" in result["summary"]


def test_the_floor_of_a_label_smoothed_loss_is_found_and_overfitting_aims_at_it():
    smoothed = b.classifier(loss_fn=functools.partial(F.cross_entropy, label_smoothing=0.1))
    k, eps = 4, 0.1
    high, low = 1 - eps + eps / k, eps / k
    entropy = -(high * math.log(high) + (k - 1) * low * math.log(low))
    assert contract(smoothed).floor == pytest.approx(entropy, rel=0.05)
    result = verdict(smoothed, "overfit_one_batch")
    assert result["status"] == "pass" and result["measured"]["loss_floor"] > 0.3


def test_a_loss_that_squeezes_the_output_itself_is_not_a_broadcast():
    spec = b.regression()
    x, y = spec["batch"]
    squeezing = b.regression(batch=(x, y.squeeze(1)), loss_fn=lambda out, t: F.mse_loss(out.squeeze(1), t))
    assert verdict(squeezing, "odd_shapes")["status"] == "pass"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        broadcasting = verdict(b.regression(batch=(x, y.squeeze(1))), "odd_shapes")
    assert broadcasting["status"] == "fail" and "broadcast" in broadcasting["summary"]


def test_bce_with_probabilities_is_not_called_a_double_sigmoid():
    spec = ic.tanh_bce(loss_fn=nn.BCELoss())
    spec["model"] = nn.Sequential(*spec["model"], nn.Sigmoid())
    assert verdict(spec, "loss_at_init")["status"] == "pass"
    double = ic.tanh_bce()
    double["model"] = nn.Sequential(*double["model"], nn.Sigmoid())
    assert verdict(double, "loss_at_init")["status"] == "fail"
