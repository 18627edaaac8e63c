"""Training on one batch, shared by overfit_one_batch, input_dependence and first_nonfinite, and the
learning-rate search behind them.

A healthy model at a cautious rate (Adam at 3e-4 on a small net) learns one batch slowly, and a
practitioner raises the rate for a one-batch test before calling the setup broken. So when the
spec's own optimizer does not get there, the same optimizer is retried on fresh copies with its
learning rates multiplied by a few log-spaced factors, in short runs: up when the loss falls too
slowly, down when it rises or diverges. At most three short runs: a bounded share of the budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .contract import contract_of
from .session import Session

TARGET_FRACTION = 0.05  # our threshold: the loss covers 95% of the way from its first value to its floor
LEARNS_FRACTION = 0.5   # a short run that covers half the way learns well enough to compare against baselines
UNSTABLE_RISE = 1.05    # a run that ends 5% above its first loss went the wrong way
UP, DOWN = 10.0, 0.1
MAX_RUNS = 3            # at most three short runs in the search
ON_TRACK_FRACTION = 0.5  # a first stretch that covers half the way falls fast enough to reach the target


@dataclass(frozen=True)
class Run:
    """One training run on the real batch at `factor` times the spec's learning rate."""

    factor: float
    curve: list[float]
    floor: float

    @property
    def first(self) -> float:
        return self.curve[0]

    @property
    def last(self) -> float:
        return self.curve[-1]

    def fraction(self, at: int | None = None) -> float:
        """How much of the way from the first loss to the floor is left after `at` steps (1 = none covered)."""
        value = self.curve[:at][-1] if at else self.last
        span = self.first - self.floor
        return (value - self.floor) / span if span > 0 and math.isfinite(value) else math.inf

    @property
    def reached(self) -> bool:
        return self.fraction() <= TARGET_FRACTION

    @property
    def unstable(self) -> bool:
        return not math.isfinite(self.last) or self.last > self.first * UNSTABLE_RISE


def run_key(factor: float) -> str:
    """The session's key for the real-batch run at this factor (see Session.train_curve)."""
    return f"real@{factor:g}"


RUN_KEY = run_key(1.0)


def floor(s: Session) -> float:
    return contract_of(s).floor


def _train(s: Session, factor: float, steps: int) -> Run:
    curve = s.train_curve("real", s.batch, steps, stop_below=TARGET_FRACTION, floor=floor(s), lr_factor=factor,
                          resumable=factor == 1.0)
    return Run(factor, curve, floor(s))


def user_run(s: Session) -> Run:
    """The spec's own optimizer on the real batch, as far as the verdict needs. Its first short stretch
    first: a run on track there (half the way covered; a steady fall then gets to the target within
    the budget) or one that rises continues to the full step budget, stopping at the target. A run
    off track is the practitioner's cue to try other rates: the search runs from there, and the
    spec's run continues only when no rate did better, which leaves the rest of its budget unspent."""
    if "user_run" in s.memo:
        return s.memo["user_run"]
    head = _train(s, 1.0, short_steps(s))
    off_track = (not head.reached and not head.unstable and head.fraction() > ON_TRACK_FRACTION
                 and len(head.curve) < s.steps)
    if not (off_track and _did_better(search(s, head), head)):
        head = _train(s, 1.0, s.steps)  # continues the same run
    s.memo["user_run"] = head
    return head


def _did_better(runs: list[Run], head: Run) -> bool:
    return any(r.reached or (not r.unstable and r.fraction() < head.fraction()) for r in runs)


def real_curve(s: Session) -> list[float]:
    return user_run(s).curve


def short_steps(s: Session) -> int:
    return s.baseline_steps


def search(s: Session, user: Run | None = None) -> list[Run]:
    """Short runs at other rates, in the order tried (cached per direction): higher when the spec's run
    falls too slowly, lower when it rises or diverges; empty when the optimizer has no rate to scale."""
    user = user or user_run(s)
    down = user.unstable
    key = "search down" if down else "search up"
    if key in s.memo:
        return s.memo[key]
    runs: list[Run] = []
    if s.memo.get("base_lr") is not None and math.isfinite(user.first) and user.first > user.floor:
        def at(factor: float) -> Run:
            runs.append(_train(s, factor, short_steps(s)))
            return runs[-1]

        if down:  # 0.1x, then 0.01x
            if not at(DOWN).reached:
                at(DOWN * DOWN)
        else:  # 10x, 100x, 1000x while they fall short; between the last two once one overshoots
            # a spec's run that used its whole budget leaves room for one short run less
            limit = MAX_RUNS if len(user.curve) <= short_steps(s) else MAX_RUNS - 1
            factor = 1.0
            while len(runs) < limit:
                factor *= UP
                r = at(factor)
                if r.reached:
                    break
                if r.unstable:
                    if len(runs) < limit:
                        at(factor / UP ** 0.5)
                    break
    s.memo[key] = runs
    return runs


def learning_run(s: Session) -> Run:
    """The run to compare baselines against: the spec's rate when it learns well within the short
    budget, else the slowest searched rate that does, else the searched rate that got furthest."""
    user, n = user_run(s), short_steps(s)
    if user.fraction(n) <= LEARNS_FRACTION and not user.unstable:
        return Run(1.0, user.curve[:n], user.floor)
    candidates = [Run(1.0, user.curve[:n], user.floor)] + [r for r in search(s) if not r.unstable]
    good = sorted((r for r in candidates if r.fraction() <= LEARNS_FRACTION), key=lambda r: r.factor)
    if good:
        return good[0]
    return min(candidates, key=lambda r: r.fraction())


def lr_text(s: Session, factor: float) -> str:
    base = s.memo.get("base_lr")
    if base is None:
        return "the given rate"
    return f"lr {base * factor:.2g}" + ("" if factor == 1.0 else f" ({times(factor)} the given {base:.2g})")


def times(factor: float) -> str:
    """10x, 316x, 3.16x, 0.1x: a factor without exponent notation."""
    return f"{factor:.0f}x" if factor >= 100 else f"{factor:.3g}x"


def fit_then_score(s: Session, train: tuple, steps: int, factor: float, held_out: tuple) -> tuple[list[float], float, float]:
    """Train a fresh copy on `train` for `steps` steps at `factor` times the spec's rate; return its
    curve and its eval-mode loss on `held_out` before and after (NaN when a step or the score raises)."""
    import torch

    s.seeded()
    model = s.fresh_model(train=True)
    optimizer = s.make_optimizer(model, factor)

    def score() -> float:
        model.eval()
        try:
            with torch.no_grad():
                return float(s.loss(model, held_out))
        except Exception:  # a model or loss that cannot score this half: no held-out evidence
            return math.nan
        finally:
            model.train()

    before, curve = score(), []
    for _ in range(steps):
        try:
            curve.append(s.step(model, train, optimizer))
        except Exception:  # a step that raises ends the run like a divergence (see Session.train_curve)
            curve.append(math.nan)
        if not math.isfinite(curve[-1]):
            break
    return curve, before, score()

