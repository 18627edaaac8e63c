"""Check 3: the model learns from its inputs and its targets, not from a side channel."""

from __future__ import annotations

import math
from typing import Any

from .base import FAIL, PASS, SKIPPED, WARN, Check, band, rounded
from .one_batch import fit_then_score, learning_run, lr_text
from .session import Session
from .tensors import content_tensors, map_tensors, replace_content, take, tensors_in

CHECK = Check("input_dependence", "Real vs zeroed and random inputs, real vs shuffled targets", (
    "slavv/try-random-input", "slavv/shuffle-labels-with-inputs", "karpathy-recipe/overfit-one-batch"))

PASS_RATIO, FAIL_RATIO = 0.7, 0.9  # our thresholds: real loss / baseline loss after the same steps
TAIL = 5  # average the last steps so dropout noise does not decide the verdict
LEARNS = 0.9  # our threshold: real data that keeps 90% of the way to its floor has not learnt; nothing to compare
GAUGE = 0.5   # our threshold: a model that learns noise at most half as fast as data cannot memorise it in time
WEAK = 0.5    # real data that keeps more than half the way has learnt weakly: warnings at most
TRANSFER = 0.1  # our threshold: true targets carry over when their held-out loss beats shuffled targets' by 10% of its start


def run(s: Session) -> Any:
    import torch

    inputs, targets = s.batch
    generator = torch.Generator().manual_seed(s.probe_seed)
    if _output_ignores_inputs(s, generator):
        return CHECK.result(
            FAIL, "the output is the same for the real inputs and for random ones: the input never reaches the "
                  "output (detached, multiplied by zero, or overwritten in forward)",
            measured={"output_changes_with_inputs": False}, expected={"output_changes_with_inputs": True},
            meaning=MEANING, next_test=NEXT)
    real = learning_run(s)
    if not all(math.isfinite(v) for v in real.curve):
        return CHECK.skip("the real-data run diverged at every rate tried; see overfit_one_batch and first_nonfinite")
    n, floor = len(real.curve), real.floor
    rate = lr_text(s, real.factor)
    real_tail = _tail(real.curve)
    measured: dict[str, Any] = {"steps": n, "lr_factor": real.factor, "real_loss": rounded(real_tail),
                                "loss_floor": rounded(floor)}
    series = {"real": [rounded(v) for v in real.curve]}
    left = (real_tail - floor) / (real.first - floor) if real.first > floor else math.inf
    if not left <= LEARNS:
        return CHECK.result(
            SKIPPED, f"inconclusive: real data does not learn either ({real.first:.4g} -> {real_tail:.4g} in {n} steps "
                     f"at {rate}, the best rate tried), so baselines cannot be told apart; see overfit_one_batch",
            measured=measured, series=series, meaning=MEANING, next_test=NEXT)
    zeroed = replace_content(inputs, lambda _, t: torch.zeros_like(t))
    ratios: dict[str, float] = {}

    def baseline(name: str, batch: tuple) -> float:
        curve = s.train_curve(name, batch, n, lr_factor=real.factor)
        series[name] = [rounded(v) for v in curve]
        ratios[name] = _ratio(real_tail, _tail(curve), floor)
        measured[_key(name)] = rounded(ratios[name])
        return ratios[name]

    # Random inputs are run only where they can tell something: beside zeroed inputs that did not
    # pass, and as the memorisation gauge for shuffled targets that the held-out half did not clear.
    needs_random = not baseline("zeroed inputs", (zeroed, targets)) <= PASS_RATIO
    shuffled = _shuffled(targets, generator)
    transfer = None
    if shuffled is not None and not baseline("shuffled targets", (_relabelled(inputs, targets, shuffled), shuffled)) <= PASS_RATIO:
        transfer = _transfer(s, n, real.factor, generator, measured, series)
        needs_random = needs_random or not transfer
    if needs_random:
        noise = torch.Generator().manual_seed(s.probe_seed + 1)
        baseline("random inputs", (replace_content(inputs, lambda _, t: _noise_like(t, noise)), targets))
    verdicts, notes = _verdicts(ratios, pure=_identical_samples(zeroed), weak=left > WEAK, transfer=transfer,
                                custom=s.spec.task == "custom")
    status = max(verdicts.values(), key=[SKIPPED, PASS, WARN, FAIL].index)
    bad = [k for k, v in verdicts.items() if v != PASS]
    where = f"after {n} steps at {rate}"
    if not bad:
        summary = f"real data is learnt clearly faster than {', '.join(k for k in verdicts if k not in notes) or 'zeroed inputs'} {where}"
    elif any("targets" in k for k in bad) and len(bad) == 1:
        summary = ("true targets are learnt no faster than shuffled ones: the targets do not follow the inputs "
                   f"(labels shuffled separately from inputs, or misaligned), {where}")
        if verdicts["shuffled targets"] == WARN:
            summary += "; or the model memorises any labelling of one batch this fast: compare on held-out data"
    else:
        summary = (f"real inputs are learnt no faster than {', '.join(b for b in bad if 'inputs' in b) or 'the baselines'} "
                   f"{where}: the input is not reaching the output or the data is destroyed")
    return CHECK.result(
        status, summary, measured=measured, series=series,
        expected={"real_over_baseline_pass": PASS_RATIO, "real_over_baseline_fail": FAIL_RATIO},
        details=[f"{v}: {k} (real/baseline = {measured[_key(k)]}){notes.get(k, '')}" for k, v in verdicts.items()],
        meaning=MEANING, next_test=NEXT)


def _verdicts(ratios: dict[str, float], pure: bool, weak: bool, transfer: bool | None = None,
              custom: bool = False) -> tuple[dict[str, str], dict[str, str]]:
    """A verdict per baseline, and notes on the ones that cannot decide here.

    Zeroed inputs leave every sample the same, so only the label marginal can be learnt: a sound
    baseline, able to fail, when no other per-sample input (a mask, labels among the inputs) is left.
    Random inputs can be memorised, by a large model often as fast as data: they never fail, and
    warn only beside a zeroed baseline that did not pass. They also gauge memorisation: when noise
    is learnt as fast as the data, a batch with shuffled labels is memorised as fast too, and true
    labels no faster than shuffled ones is a warning, not proof; `transfer` (true targets learnt on
    one half of the batch predict the other half clearly better than shuffled ones) settles it in
    favour of the labels. Real data that covers less than half the way to its floor (weak) makes
    every comparison a warning at most, and so does a custom objective: denoising, contrastive and
    reconstruction losses draw their targets from the inputs or from noise of their own, so zeroed or
    random inputs change the task rather than remove its signal (a diffusion model predicts the noise of
    an all-zero input perfectly)."""
    verdicts, notes = {}, {}
    for name, ratio in ratios.items():
        if math.isnan(ratio):
            verdicts[name], notes[name] = PASS, ": the baseline run diverged, no verdict"
            continue
        verdicts[name] = band(ratio, PASS_RATIO, FAIL_RATIO)
    # the gauge clears a shuffled-targets failure only where noise is learnt at most half as fast as data
    capped = {"zeroed inputs": not pure, "random inputs": True,
              "shuffled targets": not ratios.get("random inputs", math.inf) <= GAUGE}
    for name, cap in capped.items():
        if name in verdicts and (cap or weak or custom) and verdicts[name] == FAIL:
            verdicts[name] = WARN
    if transfer and verdicts.get("shuffled targets", PASS) != PASS:
        verdicts["shuffled targets"] = PASS
        notes["shuffled targets"] = ": memorised as fast, but true targets carry over to the held-out half"
    if "random inputs" in verdicts and verdicts["random inputs"] != PASS and verdicts.get("zeroed inputs") == PASS:
        verdicts["random inputs"] = PASS
        notes["random inputs"] = ": noise is memorised about as fast as the data, no verdict"
    return verdicts, notes


def _transfer(s: Session, n: int, factor: float, generator: Any, measured: dict, series: dict) -> bool | None:
    """Do true targets carry over where shuffled ones cannot? Each trained on one half of the batch,
    both scored on the other half (None when the batch is too small to halve)."""
    halves = _halves(s.batch)
    swapped = _shuffled(halves[0][1], generator) if halves else None
    if swapped is None:
        return None
    first_half, second_half = halves
    own, own_before, own_after = fit_then_score(s, first_half, n, factor, second_half)
    other, _, other_after = fit_then_score(s, (_relabelled(first_half[0], first_half[1], swapped), swapped), n,
                                           factor, second_half)
    series["real (first half)"], series["shuffled targets (first half)"] = own, other
    measured["held_out_loss"] = {"before": rounded(own_before), "true_targets": rounded(own_after),
                                 "shuffled_targets": rounded(other_after)}
    # carried over: about as good as before training on the held-out half or better (memorising one
    # half of a batch with arbitrary labels makes the other half far worse), and clearly better than
    # after training on shuffled targets
    return own_after <= (1 + TRANSFER) * own_before and other_after - own_after >= TRANSFER * abs(own_before)


def _ratio(real_tail: float, base_tail: float, floor: float) -> float:
    """real / baseline, both above the floor; NaN when the baseline diverged (no verdict from it)."""
    base = base_tail - floor
    if not math.isfinite(base):
        return math.nan
    return (real_tail - floor) / base if base > 0 else math.inf


def _halves(batch: tuple) -> tuple[tuple, tuple] | None:
    """The batch cut in two along dim 0 (four samples at least), for a held-out comparison."""
    import torch

    inputs, targets = batch
    if not isinstance(targets, torch.Tensor) or targets.ndim == 0 or targets.shape[0] < 4:
        return None
    half = targets.shape[0] // 2
    return ((take(inputs, slice(0, half)), targets[:half]), (take(inputs, slice(half, None)), targets[half:]))


def _identical_samples(inputs: Any) -> bool:
    """Every tensor of the inputs is the same for every sample (nothing per-sample left)."""
    return all(t.ndim == 0 or t.shape[0] < 2 or bool((t == t[:1]).all()) for _, t in tensors_in(inputs))


MEANING = ("Zeroed or random inputs, and shuffled targets, can only teach the label marginal; real data must do "
           "clearly better, at a learning rate where it learns at all, or the model is not using its input.")
NEXT = "Print the tensor right before model(x) at each pipeline stage, and decode a few samples with their labels."


def _output_ignores_inputs(s: Session, generator: Any) -> bool:
    """The eval-mode output is bit-identical for the real inputs and for random ones, at initialisation and
    still after one training step (a layer initialised to zero, as word2vec's context embeddings, ReZero or
    a zero-initialised output convolution are, silences the input only until the first update)."""
    import torch

    model = s.fresh_model(train=False)
    noise = replace_content(s.batch[0], lambda _, t: _noise_like(t, generator))

    def same() -> bool:
        model.eval()
        with torch.no_grad():
            s.seeded(7)
            real = s.logits(model, s.batch[0])
            s.seeded(7)
            other = s.logits(model, noise)
        return isinstance(real, torch.Tensor) and real.shape == other.shape and bool(torch.equal(real, other))

    if not same():
        return False
    model.train()
    try:
        s.seeded()
        s.step(model, s.batch, s.make_optimizer(model))
    except Exception:  # noqa: BLE001 - a step that raises is overfit_one_batch's to report; the init reading stands
        return True
    return same()


def _key(variant: str) -> str:
    return "real_over_" + variant.replace(" ", "_")


def _tail(curve: list[float]) -> float:
    tail = curve[-TAIL:]
    return sum(tail) / len(tail)


def _noise_like(t: Any, generator: Any) -> Any:
    import torch

    if t.is_floating_point():
        spread = t.float().std() if t.numel() > 1 else torch.tensor(1.0)
        noise = torch.randn(t.shape, generator=generator).to(t.device, t.dtype)
        return noise * spread.to(t.dtype) + t.mean()
    high = int(t.max()) + 1 if t.numel() else 1
    return torch.randint(0, max(high, 1), t.shape, generator=generator).to(t.device, t.dtype)


def _relabelled(inputs: Any, targets: Any, shuffled: Any) -> Any:
    """The inputs with the labels they carry (Hugging Face style) replaced by the shuffled targets.

    Labels are found by name ('labels'); only without one, by equality with the targets, and never
    the first content tensor: that is the data itself (an autoencoder's input equals its target, and
    a causal LM's input_ids equal its labels), which must stay in place."""
    import torch

    fits = [k for k, t in tensors_in(inputs) if t.shape == targets.shape]
    named = [k for k in fits if "label" in k.lower()]
    data = next((k for k, _ in content_tensors(inputs)), None)
    chosen = set(named) if named else {k for k, t in tensors_in(inputs)
                                       if k in fits and k != data and torch.equal(t, targets)}
    return map_tensors(inputs, lambda k, t: shuffled if k in chosen else t)


def _shuffled(targets: Any, generator: Any) -> Any:
    import torch

    if not isinstance(targets, torch.Tensor) or targets.ndim == 0 or targets.shape[0] < 2:
        return None
    order = torch.randperm(targets.shape[0], generator=generator)
    while bool((order == torch.arange(len(order))).all()):
        order = torch.randperm(targets.shape[0], generator=generator)
    shuffled = targets[order.to(targets.device)]
    return None if torch.equal(shuffled, targets) else shuffled
