"""The diagnose zoo (benchmarks/diagnose_zoo/) is healthy code: every setup builds, follows the contract,
and trains: its loss falls over 30 plain steps with the optimizer its authors use.

The zoo measures the checks (benchmarks/diagnose_zoo.py); this test only proves the material is sound,
without running any check, so a FAIL there is the check's, not the setup's.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from benchmarks.diagnose_zoo import SETUPS, load_module, load_spec, provenance
from mldebug_mcp.diagnostics.checks import as_spec

STEPS = 30
MAX_PARAMETERS = 250_000  # small enough that 200 steps take about a second on one CPU thread


pytestmark = pytest.mark.usefixtures("single_thread")  # conftest.py


def test_the_zoo_has_at_least_30_setups_each_with_its_module():
    assert len(SETUPS) >= 30 and len(set(SETUPS)) == len(SETUPS)
    here = REPO / "benchmarks" / "diagnose_zoo"
    modules = {p.stem for p in here.glob("*.py") if not p.stem.startswith("_") and p.stem != "mutations"}
    assert modules == set(SETUPS)


@pytest.mark.parametrize("name", SETUPS)
def test_setup_states_its_provenance_and_follows_the_contract(name):
    assert len(provenance(name)) > 40  # one line naming the real architecture or code it follows
    given, default = load_spec(name, 0, optimizer=True), load_spec(name, 0, optimizer=False)
    assert callable(given["optimizer"]) and "optimizer" not in default
    assert set(given) - {"optimizer"} == set(default)
    as_spec(given)  # raises SpecError when the contract is broken
    model = given["model"]
    assert sum(p.numel() for p in model.parameters()) < MAX_PARAMETERS
    assert isinstance(given["optimizer"](model.parameters()), torch.optim.Optimizer)


@pytest.mark.parametrize("name", SETUPS)
def test_setup_is_deterministic_in_its_seed(name):
    a, b, c = (load_module(name).debug_spec(seed) for seed in (1, 1, 2))
    for pa, pb in zip(a["model"].parameters(), b["model"].parameters()):
        assert torch.equal(pa, pb)
    first = [t for t in _tensors(a["batch"])]
    assert all(torch.equal(x, y) for x, y in zip(first, _tensors(b["batch"])))
    assert any(not torch.equal(x, y) for x, y in zip(first, _tensors(c["batch"])) if x.shape == y.shape)


@pytest.mark.parametrize("name", SETUPS)
def test_setup_trains_with_its_own_optimizer(name):
    spec = load_spec(name, 0, optimizer=True)
    model = spec["model"]
    model.train()
    optimizer = spec["optimizer"](model.parameters())
    step = spec.get("train_step") or _plain_step(spec["loss_fn"])
    losses = [float(step(model, spec["batch"], optimizer).detach()) for _ in range(STEPS)]
    assert all(math.isfinite(v) for v in losses), losses
    tail = sum(losses[-5:]) / 5
    # at least 0.1%: a transformer trained from scratch (hf_bert_classifier) starts on a plateau
    assert tail < 0.999 * losses[0], f"{losses[0]:.4g} -> {tail:.4g} over {STEPS} steps"
    assert max(losses) < 1.5 * losses[0] + 1e-3, "the loss climbs: the step diverges"


def _plain_step(loss_fn):
    """The step diagnose takes for a spec without train_step: zero_grad, loss_fn(model(inputs), targets), step."""
    from mldebug_mcp.diagnostics.checks.tensors import call_model

    def step(model, batch, optimizer):
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(call_model(model, batch[0]), batch[1])
        loss.backward()
        optimizer.step()
        return loss

    return step


def _tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _tensors(v)


def test_every_mutation_is_a_one_line_change_that_compiles():
    from benchmarks.diagnose_zoo.mutations import MUTATIONS, mutated_source
    from mldebug_mcp.diagnostics.checks import CHECK_IDS

    assert len({m.name for m in MUTATIONS}) == len(MUTATIONS)
    assert len({m.setup for m in MUTATIONS}) >= 10
    for m in MUTATIONS:
        assert m.check in CHECK_IDS and m.setup in SETUPS and m.description, m.name
        clean = (REPO / "benchmarks" / "diagnose_zoo" / f"{m.setup}.py").read_text(encoding="utf-8").splitlines()
        mutated = mutated_source(m).splitlines()
        assert len(mutated) == len(clean), m.name
        assert sum(a != b for a, b in zip(clean, mutated)) == 1, m.name
        compile("\n".join(mutated), m.name, "exec")
