"""Does one part of the output depend on one part of the input? By gradient or by perturbation."""

from __future__ import annotations

from typing import Any, Callable

from .tensors import content_tensors, map_tensors


def depends(logits_of: Callable[[Any], Any], inputs: Any, out_index: Any, in_mask_of: Callable[[Any], Any],
            generator: Any) -> float:
    """Relative size of the change in logits[out_index] caused by the masked part of the inputs.

    Float inputs: gradient of sum(logits[out_index]) with respect to the masked input elements,
    relative to the gradient on the whole input (exactly 0 when independent). Integer inputs
    (token ids): redraw the masked tokens and compare the selected outputs.
    """
    import torch

    keys = {k for k, _ in content_tensors(inputs)}
    floats = all(t.is_floating_point() for _, t in content_tensors(inputs))
    if floats:
        leaves: dict[str, Any] = {}

        def leaf(k: str, t: Any) -> Any:
            if k not in keys:
                return t
            leaves[k] = t.detach().clone().requires_grad_(True)
            return leaves[k]

        probe = map_tensors(inputs, leaf)
        # cuDNN's recurrent layers refuse a backward in eval mode (the checks read eval-mode gradients);
        # the native kernels give the same values
        with torch.backends.cudnn.flags(enabled=False):
            selected = logits_of(probe)[out_index]
            grads = torch.autograd.grad(selected.sum(), list(leaves.values()), allow_unused=True)
        total = masked = 0.0
        for (k, t), g in zip(leaves.items(), grads):
            if g is None:
                continue
            total += float(g.abs().sum())
            masked += float((g.abs() * in_mask_of(t)).sum())
        return masked / total if total > 0 else 0.0
    with torch.no_grad():
        base = logits_of(inputs)[out_index]

        def redraw(k: str, t: Any) -> Any:
            if k not in keys:
                return t
            high = max(int(t.max()) + 1, 2)
            fresh = torch.randint(0, high, t.shape, generator=generator).to(t.device, t.dtype)
            mask = in_mask_of(t).bool()
            return torch.where(mask, (fresh + (fresh == t).to(t.dtype)) % high, t)

        changed = logits_of(map_tensors(inputs, redraw))[out_index]
        scale = float(base.abs().mean()) or 1.0
        return float((changed - base).abs().max()) / scale
