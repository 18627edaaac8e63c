"""The loss landscape around a model's current parameters, on one batch: slices, sharpness and a verdict."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .base import Model
from .curves import _KEEP_NON_FINITE, LogValue

Verdict = Literal["minimum", "slope", "plateau", "saddle", "unclear"]
Direction = Literal["random_1", "random_2", "gradient"]


class _LandscapeModel(Model):
    # a loss that blows up far from the point is a finding: JSON spells it "Infinity"/"NaN", not null
    __pydantic_config__ = _KEEP_NON_FINITE


@dataclass(kw_only=True)
class LandscapeLine(_LandscapeModel):
    """The loss along one direction through the current point: L(theta + alpha * d)."""

    direction: Direction
    """random_1/random_2: Gaussian directions normalised per filter (Li et al. 2018); gradient: the batch
    gradient, scaled to the same overall norm."""
    norm: float
    """Norm of the direction d; alpha = 1 moves the parameters by this much (about the norm of the weights)."""
    alphas: list[float]
    """Step sizes probed, in units of d."""
    losses: list[LogValue]
    """Loss at each step size (NaN or Infinity where the loss is not finite)."""
    slope: LogValue
    """dL/dalpha at alpha = 0, from a quadratic fit to the points nearest 0."""
    curvature: LogValue
    """d2L/dalpha2 at alpha = 0 from the same fit (scale-free: per squared filter-normalised step)."""
    curvature_hvp: LogValue | None = None
    """The same curvature computed exactly, d.H.d with one Hessian-vector product; null when unavailable."""
    rayleigh: LogValue | None = None
    """curvature_hvp / |d|^2: the curvature in parameter units, comparable with lambda_max (never above it)."""
    vertex: float | None = None
    """Where the fitted parabola is lowest (-slope / curvature); null when it curves down or is flat."""
    loss_range: LogValue
    """Largest |L(alpha) - L(0)| over the finite losses of the line."""


@dataclass(kw_only=True)
class LandscapeSurface(_LandscapeModel):
    """The loss on a grid of the plane spanned by two directions: L(theta + a * d_x + b * d_y)."""

    x: Direction
    y: Direction
    alphas: list[float]
    """Steps along x (the grid's columns)."""
    betas: list[float]
    """Steps along y (the grid's rows)."""
    losses: list[list[LogValue]]
    """losses[i][j] at betas[i], alphas[j]; NaN where the time budget ran out before the point was evaluated."""
    requested: int
    """Grid side asked for."""
    size: int
    """Grid side evaluated: smaller than requested when the budget could not pay for the full grid."""


@dataclass(kw_only=True)
class Sharpness(_LandscapeModel):
    """Extreme Hessian eigenvalues by power iteration on Hessian-vector products (double backward)."""

    lambda_max: LogValue | None = None
    """Largest eigenvalue of the Hessian of the batch loss with respect to the parameters."""
    lambda_min: LogValue | None = None
    """Smallest eigenvalue (from a second power iteration, on H - lambda_max I; converged means within about 1%
    of lambda_max - lambda_min); negative means a direction curving down."""
    iterations: int = 0
    """Hessian-vector products spent, both iterations together."""
    converged: bool = False
    """Both iterations ended with a residual |Hv - lambda v| under 1% of |lambda| (of the shifted one's, for
    lambda_min); false when the iterations or the budget ran out first."""
    error: str | None = None
    """Why there are no eigenvalues (a model without double backward, the budget), else null."""


@dataclass(kw_only=True)
class LandscapeReport(_LandscapeModel):
    """What the landscape probe returns."""

    target: str
    """FILE.py:FUNCTION or module:FUNCTION that built the debug spec."""
    checkpoint: str | None = None
    """The state dict loaded into the model before probing, or null (the model as the spec built it)."""
    verdict: Verdict
    """minimum, slope, plateau, saddle or unclear; `reason` gives the figures and the threshold that decided."""
    reason: str
    """The verdict in words, with the numbers behind it."""
    loss: LogValue
    """Loss on the batch at the current point."""
    gradient_norm: LogValue
    """Norm of the batch gradient at the current point."""
    parameters: int
    """Trainable parameters (scalars) probed."""
    perturbed: int
    """Of those, the ones the random directions move: filter normalisation leaves 1-D tensors (biases, norm
    scales) where they are, as Li et al.'s published plots do."""
    mode: Literal["train", "eval"]
    """Module mode during the probe; in train mode every evaluation replays the same dropout masks."""
    lines: list[LandscapeLine]
    """One-dimensional slices: the random directions, then the gradient."""
    surface: LandscapeSurface | None = None
    """The 2-D grid over the two random directions; null with one direction or no time left."""
    sharpness: Sharpness
    thresholds: dict[str, float]
    """The thresholds of the verdict (see `reason` and the tool's description)."""
    budget_s: float
    """Time budget of the probe (the grid is shrunk to fit it)."""
    seconds: float
    """Time the probe took, model building excluded."""
    device: str
    seed: int
    notes: list[str] = field(default_factory=list)
    """What limits the figures: a shrunk grid, no second derivative, a zero gradient."""
    reference: str = ("Li, Xu, Taylor, Studer, Goldstein, 'Visualizing the Loss Landscape of Neural Nets', NeurIPS "
                      "2018 (arXiv:1712.09913): filter-normalised directions, Hessian eigenvalue ratio")
    """Where the method comes from."""
    environment: dict[str, str] = field(default_factory=dict)
    """torch and python versions, the interpreter used."""
    plots: list[str] = field(default_factory=list)
    """PNG files written (1-D curves, 2-D contour), or 'attached'."""
