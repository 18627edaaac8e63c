"""Claims of refs/large-model-stability.md, refs/post-training.md and refs/practice-gaps.md that code can settle,
run on CPU; the helpers are executed from the sheets' own code blocks, so the shipped code is what is tested."""

import re
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from mldebug_mcp.content.documents import documents

REFS = Path(__file__).resolve().parents[2] / "refs"
SHEETS = ("large-model-stability", "post-training", "practice-gaps")


def _sheet_code(name: str) -> dict:
    """Execute every python block of a sheet (in order, one namespace) and return the namespace."""
    text = (REFS / f"{name}.md").read_text(encoding="utf-8")
    namespace: dict = {}
    for block in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        if "plt." in block:  # plotting example; needs matplotlib and data
            continue
        exec(compile(block, f"{name}.md", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def stability():
    return _sheet_code("large-model-stability")


@pytest.fixture(scope="module")
def gaps():
    return _sheet_code("practice-gaps")


def test_the_sheets_are_documents_the_server_lists():
    assert set(SHEETS) <= set(documents())
    from mldebug_mcp.server import references

    source = Path(references.__file__).read_text(encoding="utf-8")
    assert all(name in source for name in SHEETS)


def _adam_step_sizes(beta2: float, quiet_steps: int = 2000) -> tuple[float, float]:
    """Step size at the end of a quiet stretch (grad 1e-3) and at a sudden grad of 1.0."""
    p = nn.Parameter(torch.zeros(1))
    opt = torch.optim.Adam([p], lr=1e-3, betas=(0.9, beta2))
    quiet = 0.0
    for _ in range(quiet_steps):
        before = p.detach().clone()
        p.grad = torch.full_like(p, 1e-3)
        opt.step()
        quiet = float((p.detach() - before).abs())
    before = p.detach().clone()
    p.grad = torch.ones_like(p)
    opt.step()
    return quiet, float((p.detach() - before).abs())


def test_a_stale_second_moment_turns_a_gradient_jump_into_an_oversized_step():
    quiet_999, jump_999 = _adam_step_sizes(0.999)
    quiet_95, jump_95 = _adam_step_sizes(0.95)
    assert jump_999 > 2.5 * quiet_999          # beta2 0.999: the jump step is several times the usual one
    assert jump_95 < quiet_95                  # beta2 0.95: the denominator catches up within the step
    assert jump_999 > 5 * jump_95


def test_epsilon_dominates_adam_when_gradients_are_below_it(stability):
    steps = {}
    for scale in (1e-10, 1e-3):
        p = nn.Parameter(torch.zeros(4))
        opt = torch.optim.Adam([p], lr=1e-3, eps=1e-8)
        for _ in range(50):
            before = p.detach().clone()
            p.grad = torch.full_like(p, scale)
            opt.step()
        steps[scale] = float((p.detach() - before).abs().mean())
        share = stability["adam_health"](opt)["group0/eps_dominated"]
        assert share == (1.0 if scale == 1e-10 else 0.0)
    assert steps[1e-3] == pytest.approx(1e-3, rel=0.05)       # normal gradients: a step of about lr
    assert steps[1e-10] < 0.02 * steps[1e-3]                 # below epsilon: Adam becomes a tiny-step SGD


def test_adam_hides_a_thousandfold_smaller_gradient_that_sgd_shows(gaps):
    def norms(optimizer_cls, scale, **kw):
        torch.manual_seed(0)
        model = nn.Linear(8, 1)
        x, y = torch.randn(32, 8), torch.randn(32, 1)
        opt = optimizer_cls(model.parameters(), lr=1e-2, **kw)
        return gaps["grad_and_update_norms"](model, opt, lambda: scale * ((model(x) - y) ** 2).mean())

    adam_full, adam_tiny = norms(torch.optim.Adam, 1.0), norms(torch.optim.Adam, 1e-3)
    sgd_full, sgd_tiny = norms(torch.optim.SGD, 1.0), norms(torch.optim.SGD, 1e-3)
    assert adam_tiny["grad_norm"] == pytest.approx(1e-3 * adam_full["grad_norm"], rel=1e-4)
    assert adam_tiny["update_norm"] == pytest.approx(adam_full["update_norm"], rel=1e-3)
    assert sgd_tiny["update_norm"] == pytest.approx(1e-3 * sgd_full["update_norm"], rel=1e-2)


def test_z_loss_sees_a_logit_drift_that_cross_entropy_cannot(stability):
    torch.manual_seed(0)
    logits, labels = torch.randn(2, 5, 11), torch.randint(0, 11, (2, 5))
    loss0, logz0 = stability["lm_loss_with_z"](logits, labels, z_coef=0.0)
    loss1, logz1 = stability["lm_loss_with_z"](logits - 30.0, labels, z_coef=0.0)
    assert float(loss1) == pytest.approx(float(loss0), abs=1e-5)      # softmax is shift-invariant
    assert float(logz0 - logz1) == pytest.approx(30.0, abs=1e-4)     # but log Z drifts by the shift
    with_z0, _ = stability["lm_loss_with_z"](logits, labels)
    with_z1, _ = stability["lm_loss_with_z"](logits - 30.0, labels)
    assert float(with_z1) > float(with_z0) + 0.05


class _TinyCausalLM(nn.Module):
    """One causal self-attention layer; position_ids that restart at 0 mark a new packed example."""

    def __init__(self, vocab=20, dim=16):
        super().__init__()
        torch.manual_seed(0)
        self.emb, self.qkv, self.out = nn.Embedding(vocab, dim), nn.Linear(dim, 3 * dim), nn.Linear(dim, vocab)

    def forward(self, input_ids, position_ids=None):
        h = self.emb(input_ids)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        n = input_ids.shape[1]
        mask = torch.ones(n, n, dtype=torch.bool).tril()
        if position_ids is not None:
            segment = torch.cumsum((position_ids[0] == 0).long(), 0)
            mask &= segment[:, None] == segment[None, :]
        attn = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None], attn_mask=mask)[0]

        class Out:
            logits = self.out(attn)

        return Out


def test_packing_without_example_boundaries_leaks_and_with_them_does_not(stability):
    model = _TinyCausalLM()
    a, b = torch.tensor([3, 5, 7, 9]), torch.tensor([2, 4, 6])
    leak = stability["packing_leaks"](model, a, b)
    boundaries = torch.cat([torch.arange(len(a)), torch.arange(len(b))])[None]
    held = stability["packing_leaks"](model, a, b, position_ids=boundaries)
    assert leak > 1e-2
    assert held < 1e-5


def test_psi_and_ks_separate_a_shifted_feature_from_a_resample(gaps):
    rng = np.random.default_rng(0)
    train, same, shifted = rng.normal(0, 1, 5000), rng.normal(0, 1, 5000), rng.normal(1, 1, 5000)
    assert gaps["psi"](train, same) < 0.02 and gaps["ks_statistic"](train, same) < 0.05
    assert gaps["psi"](train, shifted) > 0.25 and gaps["ks_statistic"](train, shifted) > 0.3
    report = gaps["drift_report"]({"same": train, "moved": train}, {"same": same, "moved": shifted})
    assert report[0][0] == "moved"
