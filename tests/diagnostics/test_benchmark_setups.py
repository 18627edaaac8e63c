"""The diagnose benchmark material: clean setups are healthy, and every mutation applies and builds.

The setups under benchmarks/diagnose_setups/ are loaded by path (they are not part of the
installed package): mutations.py by importlib, each setup by `mutations.load_spec`, which
execs its source as a fresh module.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import math
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SETUPS_DIR = REPO / "benchmarks" / "diagnose_setups"


def _load_mutations_module():
    path = SETUPS_DIR / "mutations.py"
    spec = importlib.util.spec_from_file_location("diagnose_setups_mutations", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolves the class's module while building it
    spec.loader.exec_module(module)
    return module


mutations = _load_mutations_module()
MUTATIONS = mutations.MUTATIONS
SETUPS = mutations.SETUPS
SEEDS = range(5)
CASES = [(setup, seed) for setup in SETUPS for seed in SEEDS]

OVERFIT_STEPS = 200
OVERFIT_FRACTION = 0.05  # the batch loss must fall below 5% of its initial value
PROBE_STEPS = 50  # real vs zeroed inputs / permuted targets are compared after this many steps
MAX_PROBE_RATIO = 0.6
INIT_LOSS_TOLERANCE = 0.25


pytestmark = pytest.mark.usefixtures("single_thread")  # conftest.py


@functools.lru_cache(maxsize=None)
def clean_spec(setup: str, seed: int) -> dict:
    return mutations.load_spec(setup, None, seed)


def fresh(setup: str, seed: int) -> dict:
    """A private copy of a clean spec (tests train its model in place)."""
    spec = dict(clean_spec(setup, seed))
    spec["model"] = copy.deepcopy(spec["model"])
    return spec


def batch_loss(spec: dict, model: nn.Module, batch) -> torch.Tensor:
    inputs, targets = batch
    return spec["loss_fn"](model(inputs), targets)


def train_losses(spec: dict, model: nn.Module, batch, steps: int, stop_below: float | None = None) -> list[float]:
    """Plain training on one batch in train mode; the batch loss before each step, then after the last."""
    model.train()
    optimizer = spec["optimizer"](model.parameters())
    losses = []
    for step in range(steps + 1):
        loss = batch_loss(spec, model, batch)
        losses.append(loss.item())
        if step == steps or (stop_below is not None and step >= PROBE_STEPS and losses[-1] < stop_below):
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses


def permuted(targets: torch.Tensor, seed: int) -> torch.Tensor:
    """Targets shuffled across the batch dimension (whole sequences for an LM)."""
    order = torch.randperm(targets.shape[0], generator=torch.Generator().manual_seed(1000 + seed))
    return targets[order]


@functools.lru_cache(maxsize=None)
def curves(setup: str, seed: int) -> dict[str, list[float]]:
    """Loss curves from one init: real batch (until overfit), zeroed inputs, permuted targets."""
    spec = clean_spec(setup, seed)
    inputs, targets = spec["batch"]
    runs = {
        "real": ((inputs, targets), OVERFIT_STEPS),
        "zeroed_inputs": ((torch.zeros_like(inputs), targets), PROBE_STEPS),
        "permuted_targets": ((inputs, permuted(targets, seed)), PROBE_STEPS),
    }
    result = {}
    for name, (batch, steps) in runs.items():
        model = copy.deepcopy(spec["model"])
        torch.manual_seed(seed)  # dropout masks
        stop = None
        if name == "real":
            stop = OVERFIT_FRACTION * batch_loss(spec, model, batch).item()
        result[name] = train_losses(spec, model, batch, steps, stop_below=stop)
    return result


def expected_init_loss(spec: dict) -> float:
    task = spec["task"]
    if task == "classification":
        return math.log(spec["num_classes"])
    if task == "lm":
        return math.log(spec["vocab_size"])
    assert task == "regression"
    targets = spec["batch"][1]
    return (targets.float() ** 2).mean().item()


# --- the mutation table ---------------------------------------------------------------


def test_mutation_table_is_well_formed():
    assert len(MUTATIONS) >= 24
    names = [m.name for m in MUTATIONS]
    assert len(set(names)) == len(names)
    for m in MUTATIONS:
        assert m.setup in SETUPS, m.name
        assert m.check in mutations.CHECKS, m.name
        assert "\n" not in m.find and "\n" not in m.replace, m.name
        assert m.find and m.find != m.replace, m.name
        assert m.description.strip(), m.name
    assert {m.setup for m in MUTATIONS} == set(SETUPS)
    with pytest.raises(Exception):
        MUTATIONS[0].name = "renamed"  # frozen


@pytest.mark.parametrize("m", MUTATIONS, ids=lambda m: m.name)
def test_mutation_applies_once_compiles_and_builds(m):
    clean = (SETUPS_DIR / f"{m.setup}.py").read_text(encoding="utf-8")
    assert clean.count(m.find) == 1
    source = mutations.mutated_source(m)
    assert source != clean
    assert len(source.splitlines()) == len(clean.splitlines())  # a one-line change
    changed = [i for i, (a, b) in enumerate(zip(clean.splitlines(), source.splitlines())) if a != b]
    assert len(changed) == 1
    compile(source, f"<{m.name}>", "exec")
    spec = mutations.load_spec(m.setup, source, seed=0)
    assert isinstance(spec["model"], nn.Module)


def test_mutated_source_rejects_a_fragment_that_is_not_unique():
    bad = mutations.Mutation("bad", "regression", "import", "import", "leakage", "not unique")
    with pytest.raises(AssertionError):
        mutations.mutated_source(bad)


def test_load_spec_gives_each_load_a_fresh_module():
    a = mutations.load_spec("mlp_classifier")
    b = mutations.load_spec("mlp_classifier")
    assert type(a["model"]) is not type(b["model"])
    assert type(a["model"]).__module__ != type(b["model"]).__module__


# --- the clean setups follow the contract ---------------------------------------------


@pytest.mark.parametrize("setup", SETUPS)
def test_spec_follows_the_contract(setup):
    spec = clean_spec(setup, 0)
    model, (inputs, targets) = spec["model"], spec["batch"]
    assert isinstance(model, nn.Module)
    assert isinstance(spec["optimizer"](model.parameters()), torch.optim.Optimizer)
    assert callable(spec["loss_fn"]) and callable(spec["train_step"])
    model.eval()
    with torch.no_grad():
        outputs = model(inputs)
    task = spec["task"]
    if task == "classification":
        assert outputs.shape == (inputs.shape[0], spec["num_classes"])
        assert targets.dtype == torch.int64 and targets.shape == (inputs.shape[0],)
        assert 0 <= targets.min() and targets.max() < spec["num_classes"]
        assert set(targets.tolist()) == set(range(spec["num_classes"]))
    elif task == "lm":
        assert inputs.dtype == torch.int64 and targets.dtype == torch.int64
        assert inputs.shape == targets.shape and inputs.dim() == 2
        assert outputs.shape == (*inputs.shape, spec["vocab_size"])
        assert spec["seq_dim"] == 1 and spec["causal"] is True
        assert torch.equal(targets[:, :-1], inputs[:, 1:])  # next-token targets
        assert ((targets >= 0) & (targets < spec["vocab_size"])).all()
    else:
        assert task == "regression"
        assert outputs.shape == targets.shape == (inputs.shape[0], 1)
        assert targets.dtype == torch.float32
    if task != "lm":
        # Inputs are normalised: roughly mean 0, std 1.
        assert abs(inputs.mean().item()) < 0.25 and 0.7 < inputs.std().item() < 1.3
    if "val_batch" in spec:
        val_inputs, val_targets = spec["val_batch"]
        assert val_inputs.shape[1:] == inputs.shape[1:] and val_targets.shape[1:] == targets.shape[1:]
        assert not torch.equal(val_inputs[: len(inputs)], inputs[: len(val_inputs)])


@pytest.mark.parametrize("setup", SETUPS)
def test_spec_is_deterministic_in_its_seed(setup):
    a, b = mutations.load_spec(setup, None, 3), mutations.load_spec(setup, None, 3)
    c = mutations.load_spec(setup, None, 4)
    for ta, tb in zip(a["batch"], b["batch"]):
        assert torch.equal(ta, tb)
    for pa, pb in zip(a["model"].parameters(), b["model"].parameters()):
        assert torch.equal(pa, pb)
    assert not torch.equal(a["batch"][0], c["batch"][0])


def test_cnn_and_regression_have_validation_batches():
    assert "val_batch" in clean_spec("cnn_bn", 0)
    assert "val_batch" in clean_spec("regression", 0)


def test_regression_preprocess_uses_training_statistics_only():
    spec = clean_spec("regression", 0)
    gen = torch.Generator().manual_seed(0)
    train_raw = 5.0 * torch.randn(64, 8, generator=gen) + 3.0
    test_raw = 5.0 * torch.randn(32, 8, generator=gen) + 3.0
    train_a, test_a = spec["preprocess"](train_raw, test_raw)
    train_b, test_b = spec["preprocess"](train_raw, 1e6 * test_raw)  # poison the test split
    assert torch.equal(train_a, train_b)
    assert not torch.equal(test_a, test_b)
    assert abs(train_a.mean().item()) < 1e-5 and abs(train_a.std(0).mean().item() - 1) < 1e-5


def test_regression_raw_inputs_need_preprocessing():
    source = (SETUPS_DIR / "regression.py").read_text(encoding="utf-8")
    module = type(sys)("regression_raw_probe")
    exec(compile(source, "regression.py", "exec"), module.__dict__)
    raw, _ = module.make_raw_data(torch.Generator().manual_seed(0))
    assert raw.mean().item() > 2.0 and raw.std().item() > 4.0


def test_custom_autograd_function_passes_gradcheck():
    spec = clean_spec("regression", 0)
    assert spec["gradcheck"]
    for fn, example_inputs in spec["gradcheck"].values():
        assert torch.autograd.gradcheck(fn, example_inputs)


@pytest.mark.parametrize("setup", SETUPS)
def test_train_step_is_one_plain_training_step(setup):
    spec = clean_spec(setup, 0)
    a, b = copy.deepcopy(spec["model"]), copy.deepcopy(spec["model"])
    a.train()
    b.train()
    opt_a, opt_b = spec["optimizer"](a.parameters()), spec["optimizer"](b.parameters())
    for _ in range(2):  # twice: a missing zero_grad would show on the second step
        torch.manual_seed(0)
        loss = batch_loss(spec, a, spec["batch"])
        opt_a.zero_grad()
        loss.backward()
        opt_a.step()
        torch.manual_seed(0)
        returned = spec["train_step"](b, spec["batch"], opt_b)
        assert torch.is_tensor(returned) and returned.item() == pytest.approx(loss.item())
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.equal(pa, pb)


# --- the clean setups are healthy (requirements 1-6), for every seed ------------------


@pytest.mark.parametrize(("setup", "seed"), CASES)
def test_overfits_its_batch_within_200_steps(setup, seed):
    real = curves(setup, seed)["real"]
    assert min(real) < OVERFIT_FRACTION * real[0], f"best {min(real) / real[0]:.3f} of the initial loss"


@pytest.mark.parametrize(("setup", "seed"), CASES)
def test_loss_at_init_is_as_expected(setup, seed):
    spec = clean_spec(setup, seed)
    expected = expected_init_loss(spec)
    model = spec["model"]
    for mode in ("train", "eval"):
        getattr(model, mode)()
        torch.manual_seed(seed)
        with torch.no_grad():
            loss = batch_loss(spec, model, spec["batch"]).item()
        assert abs(loss / expected - 1) <= INIT_LOSS_TOLERANCE, f"{mode}: {loss:.3f} vs expected {expected:.3f}"


@pytest.mark.parametrize(("setup", "seed"), CASES)
def test_real_data_learns_faster_than_zeroed_inputs_or_permuted_targets(setup, seed):
    c = curves(setup, seed)
    real = c["real"][PROBE_STEPS]
    assert real <= MAX_PROBE_RATIO * c["zeroed_inputs"][PROBE_STEPS]
    assert real <= MAX_PROBE_RATIO * c["permuted_targets"][PROBE_STEPS]


@pytest.mark.parametrize(("setup", "seed"), CASES)
def test_samples_are_independent_in_eval_mode(setup, seed):
    spec = clean_spec(setup, seed)
    model, inputs = spec["model"], spec["batch"][0]
    model.eval()
    with torch.no_grad():
        base = model(inputs)
        for i in (0, inputs.shape[0] // 2):
            others = torch.ones(inputs.shape[0], dtype=torch.bool)
            others[i] = False
            changed = _perturb(spec, inputs, others)
            out = model(changed)
            assert torch.allclose(out[i], base[i], rtol=0, atol=1e-6), f"sample {i} depends on other samples"
            assert not torch.allclose(out[others], base[others])  # the probe does reach the model
        assert torch.equal(model(inputs), base)  # eval mode is deterministic


def _perturb(spec: dict, inputs: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    changed = inputs.clone()
    if inputs.dtype == torch.int64:
        changed[rows] = (changed[rows] + 1) % spec["vocab_size"]
    else:
        noise = torch.randn(changed[rows].shape, generator=torch.Generator().manual_seed(0))
        changed[rows] = changed[rows] + noise
    return changed


@pytest.mark.parametrize("seed", SEEDS)
def test_language_model_is_causal(seed):
    spec = clean_spec("causal_lm", seed)
    model, tokens = spec["model"], spec["batch"][0]
    model.eval()
    with torch.no_grad():
        base = model(tokens)
        for t in (1, tokens.shape[1] // 2, tokens.shape[1] - 1):
            changed = tokens.clone()
            changed[:, t:] = (changed[:, t:] + 1) % spec["vocab_size"]
            out = model(changed)
            assert torch.allclose(out[:, :t], base[:, :t], rtol=0, atol=1e-6), f"positions < {t} see the future"
            assert not torch.allclose(out[:, t:], base[:, t:])


@pytest.mark.parametrize(("setup", "seed"), CASES)
def test_activations_at_init_are_healthy(setup, seed):
    spec = clean_spec(setup, seed)
    model, inputs = spec["model"], spec["batch"][0]
    seen: dict[str, torch.Tensor] = {}
    hooks = [
        module.register_forward_hook(lambda mod, args, out, name=name: seen.__setitem__(name, out.detach()))
        for name, module in model.named_modules()
        if isinstance(module, (nn.ReLU, nn.Tanh))
    ]
    try:
        for mode in ("train", "eval"):
            getattr(model, mode)()
            seen.clear()
            with torch.no_grad():
                model(inputs)
            for name, out in seen.items():
                if isinstance(model.get_submodule(name), nn.ReLU):
                    per_unit = out.transpose(0, 1).reshape(out.shape[1], -1)  # feature or channel
                    dead = (per_unit.amax(dim=1) <= 0).float().mean().item()
                    assert dead <= 0.10, f"{mode}: {name} has {dead:.0%} dead units"
                else:
                    saturated = (out.abs() > 0.97).float().mean().item()
                    assert saturated <= 0.05, f"{mode}: {name} is {saturated:.1%} saturated"
    finally:
        for hook in hooks:
            hook.remove()
    if setup in ("mlp_classifier", "cnn_bn"):
        assert any(isinstance(m, nn.ReLU) for m in model.modules())
    if setup == "regression":
        assert any(isinstance(m, nn.Tanh) for m in model.modules())


# Small enough that the mutation benchmark's 200-step baselines take a second or two on one CPU core. Sizes,
# not timings, are what a unit test can check on a shared machine; benchmarks/ measures the time.
MAX_PARAMETERS = 50_000
MAX_BATCH_ELEMENTS = 50_000


@pytest.mark.parametrize("setup", SETUPS)
def test_setups_stay_small(setup):
    spec = fresh(setup, 0)
    assert sum(p.numel() for p in spec["model"].parameters()) < MAX_PARAMETERS
    assert spec["batch"][0].numel() < MAX_BATCH_ELEMENTS
