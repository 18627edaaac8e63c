"""What this session's rule texts claim happens, settled by running it on CPU: a Parameter moved after it was
wrapped (MLD015), StepLR(step_size=1) stepped per batch (MLD039) and an undetached TD target (MLD043). A PyTorch
that behaved otherwise would fail here before a rule's text misleads anyone."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


class _Moved(torch.nn.Module):
    def __init__(self, move):
        super().__init__()
        self.weight = move(torch.nn.Parameter(torch.ones(3)))

    def forward(self, x):
        return (x * self.weight).sum()


def test_mld015_a_parameter_moved_to_another_dtype_is_a_plain_tensor_the_module_does_not_register():
    model = _Moved(lambda p: p.double())
    assert not isinstance(model.weight, torch.nn.Parameter)
    assert list(model.parameters()) == []  # so no optimizer built from model.parameters() can hold it
    assert not model.weight.is_leaf  # a copy in the graph: backward fills the discarded Parameter behind it


def test_mld015_the_same_move_to_the_device_it_is_on_returns_the_parameter_itself():
    # why the bug hides on a CPU run and appears on the GPU: .to() returns self when nothing changes
    model = _Moved(lambda p: p.to("cpu"))
    assert isinstance(model.weight, torch.nn.Parameter) and len(list(model.parameters())) == 1


def test_mld015_float_of_a_float32_parameter_is_the_parameter_itself():
    # why MLD015 leaves `.float()` alone: on the default dtype it copies nothing
    model = _Moved(lambda p: p.float())
    assert isinstance(model.weight, torch.nn.Parameter) and len(list(model.parameters())) == 1


def test_mld039_steplr_with_step_size_1_stepped_per_batch_decays_the_rate_every_batch():
    weight = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([weight], lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.85)
    for _ in range(100):  # one epoch of 100 batches
        optimizer.step()
        scheduler.step()
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.85 ** 100)  # about 9e-8 after one epoch
    assert optimizer.param_groups[0]["lr"] < 1e-7


def test_mld043_an_undetached_td_target_adds_the_next_states_gradient():
    torch.manual_seed(0)
    q = torch.nn.Linear(3, 2, bias=False)
    s, s_next = torch.randn(4, 3), torch.randn(4, 3)
    a, r, gamma = torch.tensor([0, 1, 1, 0]), torch.randn(4), 0.9

    def gradient(detach: bool) -> torch.Tensor:
        q.zero_grad()
        next_q = q(s_next).max(1)[0]
        y = r + gamma * (next_q.detach() if detach else next_q)
        torch.nn.functional.mse_loss(q(s).gather(1, a[:, None]).squeeze(1), y).backward()
        return q.weight.grad.clone()

    semi, residual = gradient(True), gradient(False)
    assert not torch.allclose(semi, residual)  # the loss also moves Q(s') towards Q(s): another update
    with torch.no_grad():  # the semi-gradient is the TD error times dQ(s, a) alone
        error = q(s).gather(1, a[:, None]).squeeze(1) - (r + gamma * q(s_next).max(1)[0])
    expected = torch.zeros_like(semi)
    for i in range(4):
        expected[a[i]] += 2 * error[i] * s[i] / 4
    assert torch.allclose(semi, expected, atol=1e-6)
