"""Check 13: eval is deterministic, and train/eval differ only where dropout or BatchNorm explain it."""

from __future__ import annotations

from typing import Any

from .base import FAIL, WARN, Check, rounded
from .session import Session

CHECK = Check("train_eval_modes", "Train/eval behaviour and determinism", (
    "karpathy-mistakes/overfit-single-batch-first", "karpathy-recipe/fix-random-seed"))

MODE_DEPENDENT = ("Dropout", "BatchNorm", "AlphaDropout", "FeatureAlphaDropout", "InstanceNorm", "SyncBatchNorm")


def run(s: Session) -> Any:
    import torch

    inputs = s.batch[0]
    model = s.fresh_model(train=False)
    with torch.no_grad():
        s.seeded(3)
        eval_a = s.logits(model, inputs).detach().clone()
        s.seeded(4)
        eval_b = s.logits(model, inputs).detach().clone()
        model.train()
        # A train-mode forward may move the model's state (spectral norm's power iteration, BatchNorm's
        # running statistics): each pass starts from the same state, so only randomness can tell them apart.
        state = {k: v.clone() for k, v in model.state_dict().items()}
        s.seeded(5)
        train_a = s.logits(model, inputs).detach().clone()
        model.load_state_dict(state)
        s.seeded(5)
        train_b = s.logits(model, inputs).detach().clone()
        model.load_state_dict(state)
        s.seeded(6)
        train_c = s.logits(model, inputs).detach().clone()
    explainers = sorted({type(m).__name__ for m in model.modules() if _explains(m)})
    measured = {"eval_max_diff": rounded(_diff(eval_a, eval_b)), "train_eval_max_diff": rounded(_diff(eval_a, train_a)),
                "train_same_seed_max_diff": rounded(_diff(train_a, train_b)), "mode_dependent_modules": explainers,
                "train_mode_stochastic": not torch.equal(train_a, train_c)}
    problems: list[tuple[str, str]] = []
    if not torch.equal(eval_a, eval_b) and s.spec.task == "custom":
        # a masked autoencoder masks at random and a diffusion model draws timesteps in forward, by design
        problems.append((WARN, "two eval-mode passes on the same batch differ: randomness survives model.eval(); "
                               "by design where forward samples (random masking, diffusion timesteps), a bug in a "
                               "predictor (F.dropout without training=self.training)"))
    elif not torch.equal(eval_a, eval_b):
        problems.append((FAIL, "two eval-mode passes on the same batch differ: randomness survives model.eval() "
                               "(F.dropout without training=self.training, or sampling in forward)"))
    if not torch.equal(train_a, train_b):
        problems.append((WARN, "two train-mode passes under the same torch seed differ: randomness outside torch's "
                               "generator (numpy/random) or nondeterministic kernels; results will not reproduce"))
    # Train-mode outputs that change with the seed are stochastic on purpose (functional dropout
    # with training=self.training, noise layers): that explains a train/eval difference too.
    stochastic = not torch.equal(train_a, train_c)
    if not explainers and not stochastic and not torch.equal(eval_a, train_a) and not problems:
        problems.append((WARN, "train and eval outputs differ but the model has no dropout or BatchNorm module: "
                               "a self.training branch changes behaviour deterministically; make sure that is intended"))
    return CHECK.verdict(
        problems, "eval is deterministic and train/eval differences are explained", measured=measured,
        expected={"eval_max_diff": 0.0, "train_same_seed_max_diff": 0.0},
        meaning="Evaluation must be repeatable; otherwise validation numbers move between identical runs and "
                "comparisons between checkpoints are noise.",
        next_test="grep the forward pass for F.dropout and self.training; check model.eval() before every evaluation.")


def _explains(module: Any) -> bool:
    name = type(module).__name__
    # spectral norm runs a power-iteration step in train mode only (a parametrization, or the older hook's
    # weight_u buffer)
    if name == "_SpectralNorm" or hasattr(module, "weight_u"):
        return True
    if not name.startswith(MODE_DEPENDENT):
        return False
    return not ("Dropout" in name and getattr(module, "p", 1.0) == 0)


def _diff(a: Any, b: Any) -> float:
    return float((a.float() - b.float()).abs().max()) if a.shape == b.shape else float("inf")
