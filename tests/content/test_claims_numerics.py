"""Numerical claims of the sheets, checked by running them (CPU, milliseconds).

- Clamping a probability before its log (`p.clamp_min(1e-8).log()`) hides the NaN but passes zero gradient for
  every value below the floor: the dead zone refs/static-analysis.md (Numerics) and skill/PLAYBOOK.md (Numerical
  hygiene) warn about. Log-space functions keep the gradient.
- The update-to-weight ratio must be measured from the actual change of the weights across `opt.step()`:
  `(lr * grad).std() / w.std()` is that change only for plain SGD (skill/SKILL.md, PLAYBOOK, diagnostics.md).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional


def test_clamp_then_log_gives_zero_gradient_below_the_floor():
    p = torch.tensor([0.0, 1e-12, 1e-9, 0.5], requires_grad=True)
    loss = -p.clamp_min(1e-8).log().sum()
    assert torch.isfinite(loss)  # the clamp does avoid the -inf ...
    loss.backward()
    assert p.grad[:3].tolist() == [0.0, 0.0, 0.0]  # ... but nothing below the floor gets a gradient
    assert p.grad[3].item() == pytest.approx(-2.0)


def test_log_plus_eps_keeps_a_gradient_where_the_clamp_has_none():
    p = torch.tensor([0.0, 1e-12, 1e-9], requires_grad=True)
    (-torch.log(p + 1e-8)).sum().backward()
    assert (p.grad < -1e7).all()


def _confidently_wrong_logits():
    # the true class (0) is 40 nats below the others: its softmax probability is about 4e-18 in float32
    logits = torch.tensor([[-40.0, 0.0, 0.0, 0.0]], requires_grad=True)
    return logits, torch.tensor([0])


def test_a_confidently_wrong_example_stops_learning_under_the_clamp():
    logits, y = _confidently_wrong_logits()
    loss = -F.softmax(logits, dim=-1).clamp_min(1e-8).log()[0, y[0]]
    loss.backward()
    assert loss.item() == pytest.approx(18.42, abs=0.01)  # -ln(1e-8): the loss is large and flat
    assert torch.count_nonzero(logits.grad).item() == 0  # the worst example teaches nothing


@pytest.mark.parametrize("form", ["log_softmax", "cross_entropy"])
def test_log_space_keeps_the_gradient_of_the_worst_example(form):
    logits, y = _confidently_wrong_logits()
    if form == "log_softmax":
        loss = -F.log_softmax(logits, dim=-1)[0, y[0]]
    else:
        loss = F.cross_entropy(logits, y)
    loss.backward()
    assert loss.item() == pytest.approx(40 + torch.log(torch.tensor(3.0)).item(), abs=1e-3)
    assert logits.grad[0, 0].item() == pytest.approx(-1.0, abs=1e-6)  # full-strength push on the true class


def test_logsigmoid_keeps_the_gradient_where_a_clamped_sigmoid_log_loses_it():
    z = torch.tensor([-40.0], requires_grad=True)
    (-torch.sigmoid(z).clamp_min(1e-8).log()).sum().backward()
    assert z.grad.item() == 0.0
    z.grad = None
    (-F.logsigmoid(z)).sum().backward()
    assert z.grad.item() == pytest.approx(-1.0, abs=1e-6)


def _ratio_after_one_step(optimizer: str, grad_scale: float) -> tuple[float, float]:
    """(measured std(change)/std(w), formula std(lr*grad)/std(w)) for one step on a Linear layer's weight."""
    torch.manual_seed(0)
    model = torch.nn.Linear(32, 16).double()  # float64, so w + update - w is the update to many digits
    lr = 1e-3
    opt = torch.optim.SGD(model.parameters(), lr=lr) if optimizer == "sgd" else \
        torch.optim.Adam(model.parameters(), lr=lr)
    x, y = torch.randn(64, 32).double(), torch.randn(64, 16).double()
    opt.zero_grad()
    (grad_scale * F.mse_loss(model(x), y)).backward()
    w = model.weight
    before = w.detach().clone()
    formula = ((lr * w.grad).std() / before.std()).item()
    opt.step()
    measured = ((w.detach() - before).std() / before.std()).item()
    return measured, formula


@pytest.mark.parametrize("grad_scale", [1.0, 1e-3])
def test_update_ratio_formula_holds_for_plain_sgd(grad_scale):
    measured, formula = _ratio_after_one_step("sgd", grad_scale)
    assert measured == pytest.approx(formula, rel=1e-6)


def test_update_ratio_formula_is_wrong_for_adam():
    # Adam normalises the step (its first step is about lr * sign(grad)), so the size of the gradient says
    # little about the size of the change: lr*grad misreads the ratio by orders of magnitude when gradients are small
    measured, formula = _ratio_after_one_step("adam", 1e-3)
    assert measured / formula > 1e3
    measured_big, _ = _ratio_after_one_step("adam", 1.0)
    assert measured_big == pytest.approx(measured, rel=0.05)  # the real change hardly depends on the gradient scale
