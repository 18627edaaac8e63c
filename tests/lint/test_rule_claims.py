"""What the optimiser-order rules say happens, checked by running it (CPU, a few milliseconds each).

MLD011 (zero_grad between backward and step) and MLD012 (step before backward) describe PyTorch 2.x:
zero_grad() sets gradients to None by default (set_to_none=True since 2.0), and SGD, Adam and AdamW skip
a parameter whose .grad is None entirely, momentum and weight decay included. Each test runs the loop
order the rule flags and asserts the claim its text makes; a PyTorch that behaves otherwise fails here
before the text misleads anyone.
"""

from __future__ import annotations

import pytest

from mldebug_mcp.lint.registry import RULES

torch = pytest.importorskip("torch")

OPTIMIZERS = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd-momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "sgd-momentum-decay": ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1}),
    "adam": ("Adam", {"lr": 0.1}),
    "adam-l2": ("Adam", {"lr": 0.1, "weight_decay": 0.1}),
    "adamw": ("AdamW", {"lr": 0.1, "weight_decay": 0.1}),
}
DECAYING = {"sgd-momentum-decay", "adam-l2", "adamw"}
TEXT = {rule.code: rule for rule in RULES}


def _model(layers: int):
    torch.manual_seed(0)
    if layers == 1:
        return torch.nn.Linear(4, 2)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))


def _batch(i: int):
    generator = torch.Generator().manual_seed(100 + i)
    return torch.randn(8, 4, generator=generator), torch.randn(8, 2, generator=generator)


def _train(order: str, optimizer: str, steps: int = 5, set_to_none: bool = True, layers: int = 1,
           warm_up: int = 0) -> float:
    """Run `order` (Z zero_grad, F forward, B backward, S step) `steps` times; the largest weight change.
    `warm_up` correct steps first, so momentum and Adam's moments are already built."""
    model = _model(layers)
    name, options = OPTIMIZERS[optimizer]
    opt = getattr(torch.optim, name)(model.parameters(), **options)
    for i in range(warm_up):
        x, y = _batch(1000 + i)
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    before = [p.detach().clone() for p in model.parameters()]
    loss = None
    for i in range(steps):
        x, y = _batch(i)
        for op in order:
            if op == "Z":
                opt.zero_grad(set_to_none=set_to_none)
            elif op == "F":
                loss = torch.nn.functional.mse_loss(model(x), y)
            elif op == "B":
                loss.backward()
            elif op == "S":
                opt.step()
    return max((p - q).abs().max().item() for p, q in zip(model.parameters(), before, strict=True))


def test_the_correct_order_moves_every_optimizer():
    for optimizer in OPTIMIZERS:
        assert _train("ZFBS", optimizer) > 0.1, optimizer


# MLD011: loss.backward(); opt.zero_grad(); opt.step()

@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_mld011_with_the_default_nothing_moves_not_even_momentum_or_weight_decay(optimizer):
    assert _train("FBZS", optimizer) == 0.0
    assert _train("FBZS", optimizer, layers=2) == 0.0


@pytest.mark.parametrize("optimizer", ["sgd-momentum", "adam"])
def test_mld011_momentum_built_by_earlier_steps_is_not_applied_either(optimizer):
    assert _train("FBZS", optimizer, warm_up=3) == 0.0
    assert _train("FBZS", optimizer, warm_up=3, set_to_none=False) > 0.1  # zeros, not None: stale moments move it


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_mld011_with_set_to_none_false_only_weight_decay_moves_the_weights(optimizer):
    moved = _train("FBZS", optimizer, set_to_none=False)
    assert (moved > 0.0) == (optimizer in DECAYING), moved


def test_mld011_text_states_what_happens():
    rule = TEXT["MLD011"]
    assert "None" in rule.why and "skips every parameter" in rule.why and "weight decay" in rule.why
    assert "stale momentum" not in (rule.__doc__ or "")


# MLD012: opt.step() before loss.backward()

@pytest.mark.parametrize("optimizer", OPTIMIZERS)
def test_mld012_in_the_usual_loop_nothing_trains(optimizer):
    # zero_grad; forward; step; backward: every step finds the gradients cleared by this iteration's zero_grad
    assert _train("ZFSB", optimizer) == 0.0
    assert _train("ZFSB", optimizer, layers=2) == 0.0
    # the same with zero_grad last: the gradients are cleared between backward and the next step
    assert _train("FSBZ", optimizer) == 0.0


def test_mld012_when_gradients_survive_each_step_applies_the_previous_batchs():
    # forward; step; zero_grad; backward, plain SGD on one linear layer: after two iterations the weights
    # have taken exactly one step, the one computed from batch 0 at the starting weights
    model = _model(1)
    start = [p.detach().clone() for p in model.parameters()]
    x, y = _batch(0)
    torch.nn.functional.mse_loss(model(x), y).backward()
    expected = [p.detach() - 0.1 * p.grad for p in model.parameters()]
    model.zero_grad()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i in range(2):
        x, y = _batch(i)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.step()
        if i == 0:
            assert all(torch.equal(p, q) for p, q in zip(model.parameters(), start, strict=True)), "first step moved"
        opt.zero_grad()
        loss.backward()
    assert all(torch.allclose(p, q) for p, q in zip(model.parameters(), expected, strict=True))


def test_mld012_when_gradients_survive_a_deeper_model_fails_loudly():
    # the step changes, in place, weights the graph still needs for the backward that follows
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _train("FSZB", "sgd", layers=2)


def test_mld012_text_states_what_happens():
    rule = TEXT["MLD012"]
    assert "nothing trains" in rule.why and "previous batch" in rule.why


def _cross_entropy_and_gradient(transform):
    torch.manual_seed(0)
    logits = torch.randn(16, 5, requires_grad=True)
    target = torch.randint(0, 5, (16,))
    loss = torch.nn.functional.cross_entropy(transform(logits), target)
    (gradient,) = torch.autograd.grad(loss, logits)
    return loss.item(), gradient


def test_mld001_log_softmax_into_cross_entropy_changes_no_number():
    """MLD001 reports log_softmax -> cross_entropy as hygiene (info): log_softmax is idempotent, so the loss and
    its gradient are those of the logits."""
    plain_loss, plain_gradient = _cross_entropy_and_gradient(lambda z: z)
    loss, gradient = _cross_entropy_and_gradient(lambda z: torch.log_softmax(z, 1))
    assert loss == pytest.approx(plain_loss, abs=1e-6)
    assert torch.allclose(gradient, plain_gradient, atol=1e-6)


def test_mld001_log_of_softmax_is_the_same_loss_until_a_probability_underflows():
    """MLD001 reports log(softmax) -> cross_entropy as a hazard (warning), not as a wrong loss: equal while every
    probability is representable, inf once the target's probability underflows to 0."""
    plain_loss, plain_gradient = _cross_entropy_and_gradient(lambda z: z)
    loss, gradient = _cross_entropy_and_gradient(lambda z: torch.log(torch.softmax(z, 1)))
    assert loss == pytest.approx(plain_loss, abs=1e-6)
    assert torch.allclose(gradient, plain_gradient, atol=1e-6)
    saturated, target = torch.tensor([[0.0, 200.0]]), torch.tensor([0])
    assert torch.nn.functional.cross_entropy(saturated, target).item() == pytest.approx(200.0)
    assert torch.isinf(torch.nn.functional.cross_entropy(torch.log(torch.softmax(saturated, 1)), target))


def test_mld001_messages_state_what_happens():
    from mldebug_mcp.lint.rules.mld001_activation_into_logit_loss import LOG_SOFTMAX_MESSAGE, LOGGED_MESSAGE, MILDER

    assert "unchanged" in LOG_SOFTMAX_MESSAGE and MILDER[LOG_SOFTMAX_MESSAGE] == "info"
    assert "underflows" in LOGGED_MESSAGE and "inf" in LOGGED_MESSAGE and MILDER[LOGGED_MESSAGE] == "warning"


def test_mld001_log_of_a_mixture_of_probabilities_is_its_nll_until_one_underflows():
    """A forward-corrected loss (softmax(z) @ T, T row-stochastic) handed to cross_entropy as a log: the mixture
    sums to one, so cross_entropy's own log_softmax changes nothing and the loss is nll_loss of the log."""
    torch.manual_seed(0)
    logits, target = torch.randn(16, 4), torch.randint(0, 4, (16,))
    transition = torch.softmax(torch.randn(4, 4), 1)
    mixed = torch.log(torch.softmax(logits, 1) @ transition)
    assert torch.nn.functional.cross_entropy(mixed, target).item() == pytest.approx(
        torch.nn.functional.nll_loss(mixed, target).item(), abs=1e-6)
