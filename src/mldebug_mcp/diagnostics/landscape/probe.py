"""Probe the landscape around the point, within a time budget, and put the model back as it was.

Order of work, most telling first: the gradient and the Hessian at the point (exact curvature along each
direction, then the extreme eigenvalues, given at most SHARPNESS_SHARE of the budget), the 1-D slices,
then the 2-D grid, shrunk to what the rest of the budget pays for (timed from the slices). The Hessian
work comes before any move: moving the parameters in place would invalidate its graph.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from . import (
    DEFAULT_BUDGET_S,
    DEFAULT_GRID,
    DEFAULT_POINTS,
    DEFAULT_POWER_ITERATIONS,
    DEFAULT_SPAN,
)
from .directions import dot, filter_normalised, gradient_direction, norm
from .fit import quadratic_fit, vertex
from .hessian import Hessian, eigen_range
from .point import Point
from .verdict import THRESHOLDS, classify

SHARPNESS_SHARE = 0.35
MIN_GRID = 5
Progress = Callable[[int, int, str], None]


def probe(model: Any, loss_of: Callable[[Any], Any], *, seed: int = 0, points: int = DEFAULT_POINTS,
          grid: int = DEFAULT_GRID, span: float = DEFAULT_SPAN, directions: int = 2,
          power_iterations: int = DEFAULT_POWER_ITERATIONS, budget_s: float = DEFAULT_BUDGET_S, train: bool = True,
          progress: Progress | None = None) -> dict[str, Any]:
    """The landscape report's figures (JSON-ready) for `loss_of(model)` around the model's parameters."""
    point = Point(model, loss_of, train=train, seed=seed)
    try:
        return _probe(point, seed=seed, points=_odd(points), grid=_odd(grid), span=span, directions=directions,
                      power_iterations=power_iterations, budget_s=budget_s, train=train,
                      progress=progress or (lambda *_: None))
    finally:
        point.restore()


def _probe(point: Point, *, seed: int, points: int, grid: int, span: float, directions: int, power_iterations: int,
           budget_s: float, train: bool, progress: Progress) -> dict[str, Any]:
    import torch

    started = time.perf_counter()
    deadline = started + budget_s
    stages = 3 + directions
    notes: list[str] = []
    generator = torch.Generator().manual_seed(seed)
    randoms = [filter_normalised(point.params, generator) for _ in range(directions)]
    scale = norm(randoms[0]) if randoms else 0.0
    if randoms and not scale > 0:
        notes.append("the weights with two or more dimensions are all zero (or there are none): filter-normalised "
                     "directions are zero, so only the gradient is probed")
        randoms = []
    named: list[tuple[str, list[Any]]] = [(f"random_{i + 1}", d) for i, d in enumerate(randoms)]

    progress(0, stages, "gradient and Hessian")
    loss, gradient, exact, sharpness = _second_order(point, named, scale, power_iterations, started, budget_s, notes)
    gradient_norm = norm(gradient)
    along_gradient = gradient_direction(gradient, scale or norm(point.base) or 1.0)
    if along_gradient is None:
        notes.append("the gradient at the point is exactly zero: no gradient direction to probe")
    else:
        named.append(("gradient", along_gradient))

    alphas = _axis(span, points)
    lines, evaluations, spent = [], 0, 0.0
    for index, (name, direction) in enumerate(named):
        progress(1 + index, stages, f"slice along {name}")
        t0 = time.perf_counter()
        losses = _slice(point, direction, alphas, deadline)
        spent += time.perf_counter() - t0
        evaluations += len(alphas)
        lines.append(_line(name, direction, alphas, losses, loss, exact.get(name)))
    point.reset()
    if any(math.isnan(v) for line in lines for v in line["losses"]) and time.perf_counter() > deadline:
        notes.append("the time budget ran out during the 1-D slices: their outer points are NaN")

    for line in lines:
        if _disagree(line["curvature"], line["curvature_hvp"]):
            notes.append(f"along {line['direction']} the fitted curvature ({line['curvature']:.3g}) and d.H.d "
                         f"({line['curvature_hvp']:.3g}) differ by more than 2x: the slice is not quadratic at the "
                         "grid's scale (ReLU kinks, a sharp valley); trust d.H.d for the point, the plot for the region")
    surface = None
    if len(randoms) == 2:
        progress(stages - 1, stages, "2-D grid")
        per_eval = spent / max(evaluations, 1)
        surface = _surface(point, named[0][1], named[1][1], span, grid, per_eval, deadline, notes)
        point.reset()
    step = 2 * span / (points - 1)
    verdict, reason = classify(loss, lines, step, sharpness.get("lambda_max"), sharpness.get("lambda_min"))
    progress(stages, stages, "done")
    return {"verdict": verdict, "reason": reason, "loss": loss, "gradient_norm": gradient_norm,
            "parameters": sum(p.numel() for p in point.params),
            "perturbed": sum(p.numel() for p in point.params if p.dim() > 1) if randoms else 0,
            "mode": "train" if train else "eval", "lines": lines, "surface": surface, "sharpness": sharpness,
            "thresholds": dict(THRESHOLDS), "budget_s": budget_s, "seconds": time.perf_counter() - started,
            "seed": seed, "notes": notes}


def _second_order(point: Point, named: list[tuple[str, list[Any]]], scale: float, iterations: int, started: float,
                  budget_s: float, notes: list[str]) -> tuple[float, list[Any], dict[str, float], dict[str, Any]]:
    """The loss, the gradient, d.H.d for each direction, and the eigenvalue estimates."""
    import torch

    sharpness: dict[str, Any] = {"lambda_max": None, "lambda_min": None, "iterations": 0, "converged": False,
                                 "error": None}
    with torch.enable_grad():
        loss_tensor = point.loss_tensor()
        loss = float(loss_tensor.detach())
        if not loss_tensor.requires_grad:
            notes.append("the loss does not depend on any trainable parameter (no autograd graph reaches them)")
            sharpness["error"] = "the loss has no graph to the parameters"
            return loss, [torch.zeros_like(p) for p in point.params], {}, sharpness
        try:
            hessian = Hessian(loss_tensor, point.params)
        except RuntimeError as exc:  # an op without a double backward
            sharpness["error"] = f"no second derivative: {exc}".splitlines()[0][:300]
            notes.append("the curvatures come from the fits alone: " + sharpness["error"])
            grads = torch.autograd.grad(point.loss_tensor(), point.params, allow_unused=True)
            return loss, [g if g is not None else torch.zeros_like(p) for g, p in zip(grads, point.params)], {}, \
                sharpness
        gradient = hessian.gradient
        exact: dict[str, float] = {}
        try:
            for name, direction in named:
                exact[name] = dot(direction, hessian.product(direction))
            along = gradient_direction(gradient, scale or norm(point.base) or 1.0)
            if along is not None:
                exact["gradient"] = dot(along, hessian.product(along))
            generator = torch.Generator().manual_seed(point.seed + 1)

            def random() -> list[Any]:
                return [torch.randn(p.shape, generator=generator, dtype=torch.float32).to(p.device, p.dtype)
                        for p in point.params]

            high, low, converged = eigen_range(hessian, random, iterations,
                                               deadline=started + SHARPNESS_SHARE * budget_s)
            sharpness.update(lambda_max=high, lambda_min=low, converged=converged)
            if not converged:
                notes.append(f"power iteration stopped before converging ({hessian.products} Hessian-vector products); "
                             "raise the budget or the iterations for firmer eigenvalues")
        except RuntimeError as exc:
            sharpness["error"] = f"Hessian-vector product failed: {exc}".splitlines()[0][:300]
            notes.append(sharpness["error"])
        sharpness["iterations"] = hessian.products
    return loss, gradient, exact, sharpness


def _slice(point: Point, direction: list[Any], alphas: list[float], deadline: float) -> list[float]:
    """The loss at each alpha, nearest 0 first (the fit's points), NaN for those the deadline leaves out."""
    losses = [math.nan] * len(alphas)
    for i in sorted(range(len(alphas)), key=lambda i: abs(alphas[i])):
        if abs(alphas[i]) > 0 and time.perf_counter() > deadline and sum(math.isfinite(v) for v in losses) >= 5:
            break
        losses[i] = point.loss_at([(alphas[i], direction)])
    return losses


def _line(name: str, direction: list[Any], alphas: list[float], losses: list[float], loss: float,
          exact: float | None) -> dict[str, Any]:
    _, slope, curvature = quadratic_fit(alphas, losses)
    size = norm(direction)
    finite = [abs(v - loss) for v in losses if math.isfinite(v)]
    return {"direction": name, "norm": size, "alphas": alphas, "losses": losses, "slope": slope,
            "curvature": curvature, "curvature_hvp": exact,
            "rayleigh": exact / size ** 2 if exact is not None and size > 0 else None,
            "vertex": vertex(slope, curvature), "loss_range": max(finite, default=math.inf)}


def _surface(point: Point, dx: list[Any], dy: list[Any], span: float, grid: int, per_eval: float, deadline: float,
             notes: list[str]) -> dict[str, Any] | None:
    """The loss on a grid of side `grid`, or smaller to fit the time left; rows stop at the deadline."""
    left = deadline - time.perf_counter()
    size = grid
    if per_eval > 0 and per_eval * grid * grid > left:
        size = _odd_below(int(math.sqrt(max(left, 0.0) / per_eval)))
        if size < MIN_GRID:
            notes.append(f"no 2-D grid: {left:.1f} s of the budget left pays for fewer than {MIN_GRID}x{MIN_GRID} points")
            return None
        notes.append(f"2-D grid shrunk from {grid}x{grid} to {size}x{size} to fit the time budget")
    axis = _axis(span, size)
    rows: list[list[float]] = []
    for b in axis:
        if time.perf_counter() > deadline:
            rows.append([math.nan] * size)
            continue
        rows.append([point.loss_at([(a, dx), (b, dy)]) for a in axis])
    if any(math.isnan(v) for row in rows for v in row) and time.perf_counter() > deadline:
        notes.append("the time budget ran out during the 2-D grid: its last rows are NaN")
    return {"x": "random_1", "y": "random_2", "alphas": axis, "betas": list(axis), "losses": rows,
            "requested": grid, "size": size}


def _disagree(fitted: float, exact: float | None) -> bool:
    if exact is None or not (math.isfinite(fitted) and math.isfinite(exact)):
        return False
    big, small = max(abs(fitted), abs(exact)), min(abs(fitted), abs(exact))
    return big > 1e-8 and (fitted * exact < 0 or big > 2 * small)


def _axis(span: float, n: int) -> list[float]:
    """n evenly spaced steps over [-span, span] (n odd), the middle one exactly 0."""
    axis = [span * (2 * i / (n - 1) - 1) for i in range(n)]
    axis[n // 2] = 0.0
    return axis


def _odd(n: int) -> int:
    """An odd count (so alpha = 0 is on the grid), at least 5 (the fit's points)."""
    n = max(int(n), 5)
    return n if n % 2 else n + 1


def _odd_below(n: int) -> int:
    return n if n % 2 else n - 1
