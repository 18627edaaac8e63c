"""State a spec keeps beside its model, restored for every run as the model is.

diagnose trains many copies of the model from the same start. A train_step or loss_fn may also carry state
of its own: a center-loss module whose centres the step updates, a loss with learnable parameters, held
in the function's closure or in a module-level name it uses. Left alone, one run's divergence would leave
NaN centres for every later run. The nn.Modules and tensors reachable that way are snapshotted once and
put back before each run, and after the last one.
"""

from __future__ import annotations

import functools
from typing import Any

# beyond this a name is data (a dataset tensor a step reads), not state worth copying before every run
MAX_ELEMENTS = 1_000_000


def _reachable(fn: Any) -> list[Any]:
    """The objects a function reads from its closure and from the module-level names its code uses."""
    found: list[Any] = []
    while isinstance(fn, functools.partial):
        found += [*fn.args, *fn.keywords.values()]
        fn = fn.func
    code = getattr(fn, "__code__", None)
    if code is None:
        return found + ([fn] if hasattr(fn, "state_dict") else [])
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            found.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    names = getattr(fn, "__globals__", {})
    found += [names[n] for n in code.co_names if n in names]
    return found


class SideState:
    """Snapshots of the modules and tensors a spec's functions hold, other than the model's own."""

    def __init__(self, model: Any, *functions: Any) -> None:
        import torch

        own = {id(t) for t in [*model.parameters(), *model.buffers()]} | {id(m) for m in model.modules()}
        self._modules: list[tuple[Any, dict]] = []
        self._tensors: list[tuple[Any, Any]] = []
        seen: set[int] = set()
        for fn in functions:
            for value in _reachable(fn) if fn is not None else ():
                if id(value) in seen or id(value) in own:
                    continue
                seen.add(id(value))
                if isinstance(value, torch.nn.Module):
                    state = value.state_dict()
                    if state and sum(v.numel() for v in state.values()) <= MAX_ELEMENTS:
                        self._modules.append((value, {k: v.detach().clone() for k, v in state.items()}))
                elif isinstance(value, torch.Tensor) and 0 < value.numel() <= MAX_ELEMENTS:
                    self._tensors.append((value, value.detach().clone()))

    def __bool__(self) -> bool:
        return bool(self._modules or self._tensors)

    def restore(self) -> None:
        """Back to the state the spec was built with."""
        self.load(([state for _, state in self._modules], [saved for _, saved in self._tensors]))

    def capture(self) -> tuple[list[dict], list[Any]]:
        """The present values, for a paused run to take back when it resumes."""
        return ([{k: v.detach().clone() for k, v in m.state_dict().items()} for m, _ in self._modules],
                [t.detach().clone() for t, _ in self._tensors])

    def load(self, values: tuple[list[dict], list[Any]]) -> None:
        import torch

        states, tensors = values
        with torch.no_grad():
            for (module, _), state in zip(self._modules, states):
                module.load_state_dict(state)
            for (tensor, _), saved in zip(self._tensors, tensors):
                tensor.copy_(saved)
