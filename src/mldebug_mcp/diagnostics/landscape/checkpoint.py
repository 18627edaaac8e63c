"""Load a checkpoint into the spec's model: torch.load(weights_only=True), so a checkpoint runs no code.

Accepted: a state dict, or a dict holding one under a usual key (model_state_dict, state_dict, model, net)
as training scripts save them; keys prefixed by DistributedDataParallel ('module.') or torch.compile
('_orig_mod.') are matched to the bare model.
"""

from __future__ import annotations

from typing import Any

NESTED_KEYS = ("model_state_dict", "state_dict", "model", "net", "module")
PREFIXES = ("module.", "_orig_mod.")


class CheckpointError(ValueError):
    """The checkpoint cannot be read or does not fit the model; the message says which and why."""


def load_checkpoint(model: Any, path: str, device: Any) -> None:
    import torch

    try:
        loaded = torch.load(path, map_location=device, weights_only=True)
    except FileNotFoundError as exc:
        raise CheckpointError(f"no such checkpoint: {path}") from exc
    except Exception as exc:  # pickle refusing a non-tensor object, a truncated file
        first = str(exc).strip().splitlines()[0][:400] if str(exc).strip() else type(exc).__name__
        raise CheckpointError(f"torch.load(weights_only=True) cannot read {path}: {first}; save the model's "
                              "state_dict (torch.save(model.state_dict(), path)), not the pickled model") from exc
    state = _state_dict_in(loaded, path)
    state = _matched(state, set(model.state_dict()))
    missing, unexpected = model.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise CheckpointError(f"{path} does not fit the spec's model: missing {_few(missing)}, unexpected "
                              f"{_few(unexpected)}; is it a checkpoint of this architecture?")


def _state_dict_in(loaded: Any, path: str) -> dict[str, Any]:
    import torch

    if isinstance(loaded, dict) and loaded and all(isinstance(v, torch.Tensor) for v in loaded.values()):
        return loaded
    if isinstance(loaded, dict):
        for key in NESTED_KEYS:
            if isinstance(loaded.get(key), dict):
                return _state_dict_in(loaded[key], path)
        keys = ", ".join(map(str, list(loaded)[:8]))
        raise CheckpointError(f"{path} holds a dict without a state dict (keys: {keys}); expected tensors by "
                              f"parameter name, or one under {', '.join(NESTED_KEYS)}")
    raise CheckpointError(f"{path} holds a {type(loaded).__name__}, not a state dict")


def _matched(state: dict[str, Any], wanted: set[str]) -> dict[str, Any]:
    """The state dict with a DDP or torch.compile prefix removed when that is what makes its keys fit."""
    if set(state) & wanted:
        return state
    for prefix in PREFIXES:
        stripped = {k.removeprefix(prefix): v for k, v in state.items()}
        if set(stripped) & wanted:
            return stripped
    return state


def _few(keys: list[str]) -> str:
    return "none" if not keys else ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
