"""Directions to probe along: random ones normalised per filter (Li et al. 2018, section 4), and the gradient.

A direction is a list of tensors, one per parameter. Filter normalisation rescales each filter of a random
Gaussian direction (a slice along dim 0: a conv filter, a row of a linear layer, i.e. one output unit) to
the norm of the same filter of the weights, d_ij <- d_ij / |d_ij| * |theta_ij|, so that a step alpha
moves every filter by the same fraction of its own size and plots of differently scaled networks compare.
1-D tensors (biases, norm scales) get a zero direction, as in the authors' published figures
("ignore biasbn" in their code).
"""

from __future__ import annotations

from typing import Any


def filter_normalised(params: list[Any], generator: Any) -> list[Any]:
    """A random direction with each filter scaled to the norm of the matching filter of `params`."""
    import torch

    direction = []
    for p in params:
        if p.dim() <= 1:
            direction.append(torch.zeros_like(p))
            continue
        d = torch.randn(p.shape, generator=generator, dtype=torch.float32).to(device=p.device, dtype=p.dtype)
        w_norms = p.detach().reshape(p.shape[0], -1).norm(dim=1)
        d_norms = d.reshape(p.shape[0], -1).norm(dim=1)
        scale = w_norms / (d_norms + 1e-10)
        direction.append(d * scale.reshape(-1, *([1] * (p.dim() - 1))))
    return direction


def gradient_direction(grads: list[Any], scale: float) -> list[Any] | None:
    """The gradient rescaled to norm `scale` (the random directions' norm, so alphas compare); None when it is zero."""
    total = norm(grads)
    if not total > 0:
        return None
    return [g * (scale / total) for g in grads]


def norm(tensors: list[Any]) -> float:
    return float(sum(float(t.detach().double().pow(2).sum()) for t in tensors) ** 0.5)


def dot(a: list[Any], b: list[Any]) -> float:
    return float(sum(float((x.detach().double() * y.detach().double()).sum()) for x, y in zip(a, b)))
