"""The point being probed: the model's parameters moved along directions, and put back exactly.

Every move sets each parameter from its saved value (theta + sum of alpha * d), never by adding to the
current one, so rounding does not accumulate; `restore` loads the saved state dict (parameters and
buffers: batch norm's running statistics move in train mode) and each module's own train/eval flag, so
the model leaves the probe bit for bit as it came.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any


class Point:
    def __init__(self, model: Any, loss_of: Callable[[Any], Any], *, train: bool, seed: int) -> None:
        import torch

        self.torch = torch
        self.model = model
        self._loss_of = loss_of
        self.seed = seed
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.base = [p.detach().clone() for p in self.params]
        self._state = {k: v.detach().clone() if isinstance(v, torch.Tensor) else copy.deepcopy(v)
                       for k, v in model.state_dict().items()}  # a module's extra state may be any object
        self._modes = [(m, m.training) for m in model.modules()]
        model.train(train)

    def loss_tensor(self) -> Any:
        """The batch loss at the parameters' current values, with autograd as the caller set it. The RNG is
        reseeded first: in train mode every evaluation draws the same dropout masks, so the slice is smooth."""
        self.torch.manual_seed(self.seed)
        loss = self._loss_of(self.model)
        if not isinstance(loss, self.torch.Tensor) or loss.numel() != 1:
            shape = tuple(loss.shape) if isinstance(loss, self.torch.Tensor) else type(loss).__name__
            raise TypeError(f"the loss must be a scalar tensor, got {shape}; reduce it (mean or sum) in loss_fn")
        return loss.reshape(())

    def loss(self) -> float:
        with self.torch.no_grad():
            return float(self.loss_tensor())

    def move(self, steps: list[tuple[float, list[Any]]]) -> None:
        """theta <- theta0 + sum(alpha * d) for the (alpha, d) pairs given."""
        with self.torch.no_grad():
            for i, (p, base) in enumerate(zip(self.params, self.base)):
                value = base.clone()
                for alpha, direction in steps:
                    if alpha:
                        value.add_(direction[i], alpha=alpha)
                p.copy_(value)

    def loss_at(self, steps: list[tuple[float, list[Any]]]) -> float:
        self.move(steps)
        return self.loss()

    def reset(self) -> None:
        with self.torch.no_grad():
            for p, base in zip(self.params, self.base):
                p.copy_(base)

    def restore(self) -> None:
        self.model.load_state_dict(self._state)
        self.reset()  # a parameter missing from the state dict (none, normally) is put back too
        for module, training in self._modes:
            module.training = training
