"""What the rules added for blind split 11's new classes say happens, checked by running it on CPU.

MLD074 (clip after the step), MLD037 (a target that aliases the prediction), MLD042 (a mean with no dim in
forward) and MLD038 (an optimiser never stepped) each claim a silent effect; a PyTorch that behaved otherwise
would fail here before the rule's text misleads anyone.
"""

from __future__ import annotations

import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source
from mldebug_mcp.lint.registry import RULES

torch = pytest.importorskip("torch")
RULE = {rule.code: rule for rule in RULES}


def _trained(clip_where: str, steps: int = 3) -> torch.Tensor:
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(steps):
        x, y = torch.randn(16, 4) * 10, torch.randn(16, 1) * 10  # large: the clip at 0.1 always fires
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        if clip_where == "before":
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        if clip_where == "after":
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def test_mld074_a_clip_after_the_step_changes_no_update():
    unclipped, after, before = _trained("none"), _trained("after"), _trained("before")
    assert torch.equal(after, unclipped), "clipping after step() must leave the trained weights as without a clip"
    assert not torch.allclose(before, unclipped), "the clip must fire in this setup, or the test proves nothing"
    assert _fires(RULE["MLD074"].BAD, "MLD074") and not _fires(RULE["MLD074"].GOOD, "MLD074")


def test_mld037_an_aliased_target_makes_the_loss_compare_a_tensor_with_itself():
    torch.manual_seed(0)
    net = torch.nn.Linear(3, 2)
    q_pred = net(torch.randn(5, 3))
    q_target = q_pred  # the flagged line: no copy
    q_target[torch.arange(5), torch.zeros(5, dtype=torch.long)] = torch.full((5,), 7.0)
    loss = torch.nn.functional.mse_loss(q_target, q_pred)
    loss.backward()
    assert loss.item() == 0.0
    assert all(p.grad is None or not p.grad.any() for p in net.parameters())
    # the fix: a detached copy, and the loss pulls the predictions towards the written targets
    net.zero_grad()
    q_pred = net(torch.randn(5, 3))
    q_target = q_pred.detach().clone()
    q_target[torch.arange(5), torch.zeros(5, dtype=torch.long)] = torch.full((5,), 7.0)
    fixed = torch.nn.functional.mse_loss(q_pred, q_target)
    fixed.backward()
    assert fixed.item() > 0 and net.weight.grad.abs().sum() > 0


def test_mld042_a_mean_with_no_dim_makes_a_sample_depend_on_its_batch():
    torch.manual_seed(0)
    adv_layer, val_layer = torch.nn.Linear(4, 3), torch.nn.Linear(4, 1)

    def dueling(h, per_sample):
        adv = adv_layer(h)
        centre = adv.mean(dim=1, keepdim=True) if per_sample else adv.mean()
        return val_layer(h) + adv - centre

    sample, others = torch.randn(1, 4), torch.randn(7, 4)
    for per_sample, expected_equal in ((False, False), (True, True)):
        alone = dueling(sample, per_sample)
        in_batch = dueling(torch.cat([sample, others]), per_sample)[:1]
        assert torch.allclose(alone, in_batch) is expected_equal


def test_mld038_backward_without_a_step_leaves_the_weights_unchanged():
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    before = model.weight.detach().clone()
    for _ in range(3):
        optimizer.zero_grad()
        model(torch.randn(8, 4)).pow(2).mean().backward()
    assert model.weight.grad is not None and model.weight.grad.abs().sum() > 0
    assert torch.equal(model.weight.detach(), before)


def _fires(source: str, code: str) -> bool:
    return any(f.code == code for f in lint_source(source, "snippet.py", LintSettings(select=(code,))))


def test_mld039_an_epoch_sized_cosine_stepped_per_batch_ends_its_schedule_within_the_first_epoch():
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    epochs, batches = 4, 10
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
    seen = []
    for _ in range(batches):  # the first epoch's batches
        optimizer.step()
        scheduler.step()
        seen.append(optimizer.param_groups[0]["lr"])
    assert seen[epochs - 1] < 1e-9, "the floor the run was meant to reach at its end, after 4 of 10 batches"
    assert max(seen[epochs:]) > 0.9, "and the rate climbs back up within the same epoch"
    assert _fires(RULE["MLD039"].BAD, "MLD039") and not _fires(RULE["MLD039"].GOOD, "MLD039")
