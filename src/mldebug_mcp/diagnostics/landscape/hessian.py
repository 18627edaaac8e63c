"""Hessian-vector products by double backward, and power iteration for the extreme eigenvalues.

Hv = d/dtheta (g . v) with g = dL/dtheta built with create_graph=True (Pearlmutter's trick), so H is
never formed: each product costs about two backward passes. Power iteration converges to the eigenvalue
of largest magnitude; a second run on H - lambda_1 I finds the one at the other end of the spectrum, which
is how Li et al. (2018, section 7) get the smallest eigenvalue for their |lambda_min / lambda_max| maps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .directions import dot, norm

RESIDUAL = 1e-2  # |Hv - lambda v| / |lambda| of the unit vector v that counts as converged


class Hessian:
    """Products with the Hessian of the loss at the point's current parameters."""

    def __init__(self, loss: Any, params: list[Any]) -> None:
        import torch

        self.torch = torch
        self.params = params
        grads = torch.autograd.grad(loss, params, create_graph=True, allow_unused=True)
        self.used = [i for i, g in enumerate(grads) if g is not None and g.requires_grad]
        self._grads = [grads[i] for i in self.used]
        self.gradient = [(g.detach() if g is not None else torch.zeros_like(p)) for g, p in zip(grads, params)]
        self.products = 0

    def product(self, v: list[Any]) -> list[Any]:
        """H v, zeros for parameters the gradient does not depend on."""
        out = [self.torch.zeros_like(p) for p in self.params]
        if not self.used:
            return out
        hv = self.torch.autograd.grad(self._grads, [self.params[i] for i in self.used],
                                      grad_outputs=[v[i] for i in self.used], retain_graph=True, allow_unused=True)
        for i, h in zip(self.used, hv):
            if h is not None:
                out[i] = h.detach()
        self.products += 1
        return out


def power_iteration(hessian: Hessian, start: list[Any], iterations: int, shift: float = 0.0,
                    deadline: float | None = None) -> tuple[float, bool]:
    """The eigenvalue of H - shift*I of largest magnitude, plus shift; and whether it converged: the
    residual |Av - lambda v| of the unit vector fell below RESIDUAL of |lambda|, which bounds the error of
    lambda by that much (and in practice by its square over the gap to the next eigenvalue)."""
    v = _unit(start)
    estimate, converged = 0.0, False
    for _ in range(iterations):
        av = hessian.product(v)
        if shift:
            av = [h - shift * x for h, x in zip(av, v)]
        estimate = dot(v, av)
        size = norm(av)
        if not size > 0:
            return shift, True  # v is in the null space of H - shift*I
        residual = norm([a - estimate * x for a, x in zip(av, v)])
        converged = residual <= RESIDUAL * abs(estimate)
        if converged or (deadline is not None and time.perf_counter() > deadline):
            break
        v = [a / size for a in av]
    return estimate + shift, converged


def _unit(v: list[Any]) -> list[Any]:
    size = norm(v) or 1.0
    return [x / size for x in v]


def eigen_range(hessian: Hessian, random: Callable[[], list[Any]], iterations: int,
                deadline: float | None = None) -> tuple[float, float, bool]:
    """(lambda_max, lambda_min, converged) from two power iterations."""
    first, ok_first = power_iteration(hessian, random(), iterations, deadline=deadline)
    other, ok_other = power_iteration(hessian, random(), iterations, shift=first, deadline=deadline)
    return max(first, other), min(first, other), ok_first and ok_other
