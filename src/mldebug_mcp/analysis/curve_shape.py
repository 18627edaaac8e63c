"""Detectors of levels on the training loss alone: NaN, zero, flat from the start, plateaus.

Each takes the finite `Trace` (or the raw points, for NaN) and returns a CurveFinding or None.
Levels are medians of windows, so one bad batch never decides a verdict (spikes have their own
module); relative thresholds make the verdicts independent of the loss's units.
"""

from __future__ import annotations

import math

from ..models.curves import CurveFinding
from .curve_stats import MEDIAN_SE, NOISE_MADS, Trace, chunk_medians, median, scale

ZERO_ABS = 1e-12  # no real loss converges this low; an exact zero is a bug, not convergence
ZERO_TAIL_POINTS = 3  # one zero can be a logging artefact; three in a row at the end are not
ZERO_MOST = 0.5  # ...or zero for more than half of the run
FLAT_REL_CHANGE = 0.05  # a loss that never moves 5% from where it started has not learned
FLAT_CHUNKS = 5  # the run is cut into fifths whose medians must all stay near the start
PLATEAU_TAIL = 0.3  # a plateau is judged on the last 30% of the run
PLATEAU_TAIL_DROP = 0.03  # less than 3% progress over that 30%: another run as long gains ~10%
PLATEAU_PACE = 0.2  # ...and under a fifth of the pace before it: the descent has stopped, not slowed
PLATEAU_MIN_LEVEL = 0.3  # stalled above 30% of its start: learnable tasks usually end far lower
CHANCE_TOLERANCE_GIVEN = 0.05  # k known: label smoothing or imbalance move a guesser's loss a few % off ln k
CHANCE_TOLERANCE_GUESSED = 0.01  # k guessed among 13: a wider window would match ordinary plateaus by luck
CHANCE_CLASSES = (2, 3, 4, 5, 10, 100, 1000, 32000, 32768, 50257, 50304, 128256, 151936)


def find_nan(steps, values) -> CurveFinding | None:
    """`nan`: the first step whose training loss is NaN or Inf, and how many are."""
    finite = list(map(math.isfinite, values))
    if all(finite):
        return None
    first = finite.index(False)
    count = len(values) - sum(finite)
    stays = count == len(values) - first
    step, value = steps[first], values[first]
    values_out = {"first_step": step, "non_finite": count, "points": len(values)}
    before = ""
    if first:
        values_out |= {"last_finite_step": steps[first - 1], "last_finite": values[first - 1]}
        before = f"; the last finite value was {values[first - 1]:.4g} at step {steps[first - 1]}"
    spelled = "NaN" if math.isnan(value) else ("Inf" if value > 0 else "-Inf")
    return CurveFinding(
        observation="nan",
        step=step,
        summary=f"the training loss is {spelled} at step {step} "
        f"({count} of {len(values)} points are NaN or Inf{', every one from there on' if stays else ''}){before}.",
        meaning="Something overflowed, divided by zero or took a log of zero at or just before that step, "
        "and once a weight is NaN every later update is too.",
        values=values_out,
    )


def find_zero(trace: Trace) -> CurveFinding | None:
    """`loss_zero`: |loss| <= 1e-12 for the last 3+ points, or for more than half of the run."""
    zero = [abs(v) <= ZERO_ABS for v in trace.values]
    tail = next((i for i, z in enumerate(reversed(zero)) if not z), len(zero))
    if sum(zero) > ZERO_MOST * trace.n:
        onset = zero.index(True)
    elif tail >= ZERO_TAIL_POINTS:
        onset = trace.n - tail
    else:
        return None
    return CurveFinding(
        observation="loss_zero",
        step=trace.steps[onset],
        summary=f"the training loss is exactly zero from step {trace.steps[onset]} "
        f"({sum(zero)} of {trace.n} points).",
        meaning="A loss of exactly zero means it is not measuring the task: every target is ignored or masked, "
        "the labels leak into the inputs, or the loss is multiplied by zero.",
        values={"first_zero_step": trace.steps[onset], "zero_points": sum(zero), "fraction": sum(zero) / trace.n},
    )


def find_flat(trace: Trace) -> CurveFinding | None:
    """`flat_from_start`: the medians of the five fifths of the run all stay within 5% of the start
    level (or within 3 standard errors of the noise, when that is wider)."""
    chunks = max(2, min(FLAT_CHUNKS, trace.n // 5))
    medians = chunk_medians(trace.values, chunks)
    noise = NOISE_MADS * MEDIAN_SE * trace.sigma * math.sqrt(2 * chunks / trace.n)  # a difference of two medians
    moved = max(abs(m - trace.start) for m in medians)
    if moved > max(FLAT_REL_CHANGE * abs(trace.start), noise):
        return None
    return CurveFinding(
        observation="flat_from_start",
        step=trace.steps[0],
        summary=f"the training loss stays at {trace.start:.4g} from step {trace.steps[0]} to {trace.steps[-1]} "
        f"(it never moves more than {moved / scale(trace.start):.1%}).",
        meaning="The weights are not learning: check that the optimizer holds the model's parameters, that "
        "gradients reach them (nothing detached or frozen) and that the learning rate is not zero.",
        values={"start": trace.start, "end": trace.end, "max_change": moved / scale(trace.start)},
    )


def tail_plateau(trace: Trace) -> tuple[bool, float, int | float]:
    """(flat, level, onset step) of the last 30% of the run; the onset is where the smoothed loss
    first comes within 5% (or 3 standard errors) of that level. Its progress is the drop between the
    medians of its first and last thirds. Flat when that progress is under 3% of the tail's level
    or under 3 standard errors of the noise, AND under a fifth of what the pace of the run before
    the tail would have given over the same steps (or under 3% of the level): a slow but steady
    descent is not a plateau, however noisy."""
    size = max(6, round(PLATEAU_TAIL * trace.n))
    tail, third = trace.values[-size:], size // 3
    first, last, level = median(tail[:third]), median(tail[-third:]), median(tail)
    small = PLATEAU_TAIL_DROP * abs(level)
    noise = NOISE_MADS * MEDIAN_SE * trace.sigma * math.sqrt(2 / third)
    steps = trace.steps[-size:]
    first_at, last_at = steps[third // 2], steps[-1 - third // 2]
    pace = (trace.start - first) / max(first_at - trace.steps[0], 1e-12) * (last_at - first_at)
    flat = abs(first - last) <= max(small, noise) and first - last <= max(PLATEAU_PACE * pace, small)
    band = max(FLAT_REL_CHANGE * abs(level), NOISE_MADS * trace.smooth_sigma())
    onset = next(i for i, v in enumerate(trace.smooth) if abs(v - level) <= band or i == trace.n - 1)
    return flat, level, trace.steps[onset]  # where the smoothed loss first reaches the plateau


def find_chance(trace: Trace, num_classes: int | None) -> CurveFinding | None:
    """`plateau_at_chance`: a flat tail (see tail_plateau) within 5% of ln(num_classes); without
    num_classes, within 1% of ln k for a common class count or tokenizer vocabulary size k."""
    flat, level, onset = tail_plateau(trace)
    if not flat or level <= 0:
        return None
    candidates = (num_classes,) if num_classes else CHANCE_CLASSES
    k = min(candidates, key=lambda c: abs(level - math.log(c)) / math.log(c))
    off = abs(level - math.log(k)) / math.log(k)
    if off > (CHANCE_TOLERANCE_GIVEN if num_classes else CHANCE_TOLERANCE_GUESSED):
        return None
    guess = "" if num_classes else " (k guessed from the level: pass num_classes to confirm)"
    return CurveFinding(
        observation="plateau_at_chance",
        step=onset,
        summary=f"the training loss settles at {level:.4g} from step {onset} on, {off:.1%} from "
        f"ln({k}) = {math.log(k):.4g}, the loss of a uniform guess over {k} classes{guess}.",
        meaning="The model predicts the same distribution whatever the input: labels may be shuffled or "
        "misaligned with inputs, the inputs may not reach the model, or the output layer is dead.",
        values={"level": level, "k": k, "ln_k": math.log(k), "relative_distance": off},
    )


def find_plateau(trace: Trace) -> CurveFinding | None:
    """`plateau`: the loss fell at least 5% from its start level, then its last 30% is flat (see
    tail_plateau) at a level still above 30% of the start. Positive losses only."""
    flat, level, onset = tail_plateau(trace)
    if not flat or level <= 0 or trace.start <= 0:
        return None
    fell = (trace.start - level) / trace.start
    if fell < FLAT_REL_CHANGE or level < PLATEAU_MIN_LEVEL * trace.start:
        return None
    return CurveFinding(
        observation="plateau",
        step=onset,
        summary=f"the training loss fell from {trace.start:.4g} to {level:.4g} ({fell:.0%} lower), then stalled "
        f"from step {onset} on at {level / trace.start:.0%} of where it started.",
        meaning="Learning stopped early (learning rate too low or decayed too soon, model too small, units "
        "saturated or dead), unless this is the floor of the task, as when fine-tuning a pretrained model.",
        values={"start": trace.start, "level": level, "level_fraction": level / trace.start},
    )
