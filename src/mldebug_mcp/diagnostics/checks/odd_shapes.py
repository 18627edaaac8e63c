"""Check 12: shapes agree, and the loss still makes sense at prime batch and sequence sizes."""

from __future__ import annotations

import math
import warnings
from typing import Any

from .base import FAIL, WARN, Check, rounded
from .batch_format import pairwise_tensor
from .contract import contract_of, probe_loss
from .session import Session
from .tensors import batch_size, call_model, content_tensors, map_tensors, take

CHECK = Check("odd_shapes", "Odd and prime-size dimensions", (
    "karpathy-recipe/fails-silently", "jones/unit-test-the-tricky-bits"))

PRIMES = (7, 5, 3, 2)
TOLERANCE = 1e-4  # relative gap between the batch loss and the mean of per-sample losses
PER_SAMPLE_TASKS = ("classification", "binary", "regression")
ALIGNED = 0.01  # a perfect prediction scoring below 1% of the initial loss is paired with its own target


def run(s: Session) -> Any:
    import torch

    inputs, targets = s.batch
    n = batch_size(inputs)
    s.seeded()
    model = s.fresh_model(train=False)
    problems: list[tuple[str, str]] = []
    measured: dict[str, Any] = {}
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        logits = s.primary(call_model(model, inputs))
        measured["output_shape"], measured["target_shape"] = list(logits.shape), _shape(targets)
        shape_problems = _shape_problems(s, logits, targets)
        problems += shape_problems
        p = next((q for q in PRIMES if q < n), 1)
        sub = (take(inputs, slice(0, p)), take(targets, slice(0, p)))
        measured["prime_batch"] = p
        graph = pairwise_tensor(s)
        if graph is not None:  # the rows of one graph cannot run as a smaller batch
            measured["one_graph"] = graph
            return CHECK.verdict(problems, f"shapes agree; the batch is one graph ({graph}), so smaller batches "
                                           f"were not tried", measured=measured)
        sub_logits = _output_or_raise(s, model, sub[0], p, problems)
        if sub_logits is None:
            pass
        elif sub_logits.shape[:1] != (p,):
            problems.append((FAIL, f"a batch of {p} gives output shape {tuple(sub_logits.shape)}: the batch size is baked in"))
        elif s.spec.task in PER_SAMPLE_TASKS:
            # the model keeps the rows apart (a row's output is the same alone as in the full batch)
            rows_apart = sub_logits.shape == logits[:p].shape and bool(
                torch.allclose(sub_logits.float(), logits[:p].float(), rtol=1e-4, atol=1e-5))
            problems += _decomposition(s, model, sub, p, measured, loss_couples=rows_apart and not shape_problems)
        one = _output_or_raise(s, model, take(inputs, slice(0, 1)), 1, problems)
        if one is not None and one.shape[:1] != (1,):
            problems.append((FAIL, f"a batch of 1 gives output shape {tuple(one.shape)}: an unqualified squeeze() drops the batch axis"))
        if s.spec.seq_dim is not None:
            problems += _sequence(s, model, inputs, targets, measured)
    for w in caught:
        if "size" in str(w.message) and "target" in str(w.message).lower():
            problems.append((FAIL, f"PyTorch warned: {w.message}"))
    return CHECK.verdict(
        problems, f"shapes agree, and batches of {measured['prime_batch']} and 1 behave", measured=measured,
        expected={"batch_loss_equals_mean_of_sample_losses": True, "output_batch_dim": "follows the input"},
        meaning="When every dimension has the same size, swapped axes and broadcasting pass silently; "
                "prime sizes and per-sample losses expose them.",
        next_test="Add an assert on output and target shapes right before the loss call in the training code.")


def _output_or_raise(s: Session, model: Any, inputs: Any, size: int, problems: list) -> Any:
    """The logits for a smaller batch; a model that raises on it is this check's finding, not a crash."""
    try:
        return s.primary(call_model(model, inputs))
    except Exception as exc:  # the batch size is baked into the model (a reshape, a fixed buffer)
        problems.append((FAIL, f"a batch of {size} raises {type(exc).__name__} in eval mode: {exc}"))
        return None


def _shape(value: Any) -> Any:
    return list(value.shape) if hasattr(value, "shape") else None


def _shape_problems(s: Session, logits: Any, targets: Any) -> list[tuple[str, str]]:
    """Output and target shapes as the loss reads them (see contract): the class axis where the loss
    takes it; for elementwise losses, a mismatch only where the loss really broadcasts."""
    if not hasattr(targets, "shape"):
        return []
    task, c = s.spec.task, contract_of(s)
    out, tgt = tuple(logits.shape), tuple(targets.shape)
    if task in ("binary", "regression") and out != tgt:
        if logits.numel() == targets.numel():
            if _loss_aligns(s, logits, targets):
                return []
            return [(FAIL, f"output {out} and target {tgt} differ in shape: an elementwise loss broadcasts them "
                           f"to {tuple(_broadcast(out, tgt))}, comparing every prediction with every target")]
        return [(FAIL, f"output {out} and target {tgt} do not match")]
    if task in ("classification", "lm") and c.class_dim is not None and c.class_dim < len(out) and targets.ndim:
        wanted = out[:c.class_dim] + out[c.class_dim + 1:]
        if wanted != tgt and not (targets.is_floating_point() and out == tgt):  # class probabilities as targets
            if logits.numel() == targets.numel() * out[c.class_dim]:
                return []  # the same values flattened differently: the loss_fn reshapes both
            return [(FAIL, f"logits {out} and targets {tgt}: with the class axis at dim {c.class_dim} "
                           f"({c.class_how}), {c.loss_name or 'the loss'} wants targets {wanted}")]
    return []


def _loss_aligns(s: Session, logits: Any, targets: Any) -> bool:
    """A prediction equal to the targets (laid out as the output) scores near 0: the loss pairs each
    prediction with its own target (a squeeze inside loss_fn); broadcasting would compare it with all."""
    import torch

    if s.model_loss:
        return False
    # integer 0/1 masks (a segmentation's long masks) are binary targets too
    binary_ints = not targets.is_floating_point() and targets.dtype != torch.bool and bool(((targets == 0) | (targets == 1)).all())
    if not (targets.is_floating_point() or binary_ints):
        return False
    perfect = targets.reshape(logits.shape).to(logits.dtype)
    if s.spec.task == "binary" and contract_of(s).loss_kind != "bce":
        perfect = torch.logit(perfect.clamp(1e-4, 1 - 1e-4))
    given, best = probe_loss(s.loss_fn, logits, targets), probe_loss(s.loss_fn, perfect, targets)
    if not (math.isfinite(best) and math.isfinite(given)):
        return False
    if best <= ALIGNED * abs(given):
        return True
    # A loss that is not near 0 even when perfect (a Dice term on empty masks) still pairs each prediction with
    # its own target when the perfect predictions, handed to the wrong samples, score clearly worse; under
    # broadcasting every prediction meets every target either way, and the two score alike.
    if logits.shape[0] < 2 or bool(torch.equal(targets, targets.roll(1, 0))):
        return False
    swapped = probe_loss(s.loss_fn, perfect.roll(1, 0), targets)
    return math.isfinite(swapped) and best < 0.5 * swapped


def _broadcast(a: tuple, b: tuple) -> tuple:
    import torch

    try:
        return tuple(torch.broadcast_shapes(a, b))
    except RuntimeError:
        return a


def _decomposition(s: Session, model: Any, sub: tuple, p: int, measured: dict,
                   loss_couples: bool = False) -> list[tuple[str, str]]:
    """Is the loss of p samples the mean of their own losses? `loss_couples`: shapes agree (or each prediction
    meets its own target) and the model keeps the rows apart, so a gap can only come from the loss itself."""
    batch_loss = s.loss(model, sub)
    whole = float(batch_loss)
    parts = [float(s.loss(model, (take(sub[0], slice(j, j + 1)), take(sub[1], slice(j, j + 1))))) for j in range(p)]
    mean = sum(parts) / p
    gap = abs(whole - mean) / max(abs(mean), 1e-12)
    # a bfloat16 or float16 loss rounds at its own precision (bf16: 2**-7 relative), far above float32's
    tolerance = max(TOLERANCE, 2 * _epsilon(batch_loss))
    measured.update(batch_loss=rounded(whole), mean_sample_loss=rounded(mean), relative_gap=rounded(gap),
                    tolerance=rounded(tolerance))
    if gap <= tolerance:
        return []
    # A loss averaged over counted elements (tokens, pixels; the ignore_index left out) weighs each
    # sample by how many of its targets count: that mean, not the per-sample one, is the contract.
    weights = _counted_targets(s, sub[1], p)
    if weights is not None and sum(weights) > 0:
        weighted = sum(w * v for w, v in zip(weights, parts)) / sum(weights)
        if abs(whole - weighted) <= tolerance * max(abs(weighted), 1e-12):
            measured.update(weighted_mean_sample_loss=rounded(weighted), weighted_by="counted target elements")
            return []
    if abs(whole - sum(parts)) <= tolerance * max(abs(whole), 1e-12):
        return [(WARN, f"the batch loss is the sum of per-sample losses ({whole:.4g}): reduction='sum' scales "
                       "the gradient with the batch size")]
    if loss_couples:
        return [(WARN, f"the loss of {p} samples ({whole:.4g}) is not the mean of their own losses ({mean:.4g}), "
                       "while shapes agree and the model keeps the samples apart: the loss couples them, by design "
                       "in a batch-level Dice, a contrastive or a ranking loss, a bug in a per-sample one")]
    return [(FAIL, f"the loss of {p} samples ({whole:.4g}) is not the mean of their own losses ({mean:.4g}): "
                   "samples interact in eval mode, through the loss (broadcasting (N, 1) against (N,)) or the model "
                   "(mixing across the batch, randomness that survives eval); see batch_independence and train_eval_modes")]


def _epsilon(value: Any) -> float:
    import torch

    dtype = getattr(value, "dtype", None)
    return float(torch.finfo(dtype).eps) if isinstance(dtype, torch.dtype) and dtype.is_floating_point else 0.0


def _counted_targets(s: Session, targets: Any, p: int) -> list[float] | None:
    """Per sample, the weight a mean over elements gives it: how many of its target elements count
    (class indices the loss ignores, its ignore_index or any outside [0, k) since it ran on them, are
    left out), each counted with its class's weight when the loss has per-class weights."""
    import torch

    c = contract_of(s)
    if not hasattr(targets, "shape") or targets.ndim < 1 or (targets.ndim < 2 and c.class_weight is None):
        return None
    if targets.is_floating_point():
        return [float(targets[j].numel()) for j in range(p)]
    k = c.classes or (int(targets.max()) + 1)
    counted = (targets != c.ignore_index) & (targets >= 0) & (targets < k)
    weights = torch.ones(k) if c.class_weight is None or c.class_weight.numel() != k else c.class_weight.float().cpu()
    per_element = weights[targets.clamp(0, k - 1).cpu()] * counted.float().cpu()
    return [float(per_element[j].sum()) for j in range(p)]


def _sequence(s: Session, model: Any, inputs: Any, targets: Any, measured: dict) -> list[tuple[str, str]]:
    c = contract_of(s)
    seq_dim, out_dim = c.in_seq_dim, c.out_seq_dim
    if seq_dim is None:
        return []
    lengths = [t.shape[seq_dim] for _, t in _seq_tensors(inputs, seq_dim)]
    if not lengths:
        return []
    length = lengths[0]
    prime = next((q for q in (13, 11, 7, 5, 3) if q < length), None)
    if prime is None:
        return []
    cut = (slice(None),) * seq_dim + (slice(0, prime),)
    short = map_tensors(inputs, lambda _, t: t[cut] if t.ndim > seq_dim and t.shape[seq_dim] == length else t)
    out = s.primary(call_model(model, short))
    measured["prime_sequence"] = prime
    if out_dim is not None and s.spec.task == "lm" and (out.ndim <= out_dim or out.shape[out_dim] != prime):
        return [(FAIL, f"a sequence of {prime} gives output shape {tuple(out.shape)}: the sequence length is baked in "
                       f"(inputs cut along dim {seq_dim}, outputs read along dim {out_dim})")]
    return []


def _seq_tensors(inputs: Any, seq_dim: int) -> list:
    return [(k, t) for k, t in content_tensors(inputs) if t.ndim > seq_dim]
