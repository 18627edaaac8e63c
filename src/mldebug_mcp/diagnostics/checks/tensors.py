"""Walk the nested inputs a model takes (a tensor, a tuple of tensors or a dict) uniformly."""

from __future__ import annotations

from typing import Any, Callable, Iterator


def call_model(model: Any, inputs: Any) -> Any:
    """Call the model the way the spec's inputs say: positional tuple, keywords, or one tensor."""
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, (tuple, list)):
        return model(*inputs)
    return model(inputs)


def primary(output: Any, classes: int | None = None) -> Any:
    """The logits tensor of a model's output: itself, the first item, or `.logits`/`['logits']`.

    With `classes` (a classifier's class count), a tuple whose first item has no axis of that size but a
    later item has one (`(features, logits)`, as center-loss and metric-learning code return) gives that item."""
    import torch

    if classes is not None and isinstance(output, (tuple, list)) and output and not _has_classes(output[0], classes):
        later = [item for item in output[1:] if _has_classes(item, classes)]
        if later:
            return later[0]

    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, dict):  # Hugging Face's ModelOutput is a dict too
        if "logits" in output:
            return output["logits"]
        rest = [v for k, v in output.items() if k != "loss"]
        if rest:
            return primary(rest[0])
    elif hasattr(output, "logits"):
        return output.logits
    elif isinstance(output, (tuple, list)) and output:
        # return_dict=False with labels puts the scalar loss first: the logits come next
        scalar_first = isinstance(output[0], torch.Tensor) and output[0].ndim == 0 and len(output) > 1
        return primary(output[1] if scalar_first else output[0])
    raise TypeError(
        f"the model returned {type(output).__name__}; diagnose needs a tensor, a tuple whose first "
        "item is the logits tensor, or an object/dict with 'logits'"
    )


def _has_classes(value: Any, classes: int) -> bool:
    import torch

    return isinstance(value, torch.Tensor) and value.ndim >= 2 and classes in (value.shape[1], value.shape[-1])


def tensors_in(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """Every tensor inside a nested value, with a dotted path naming where it sits."""
    import torch

    if isinstance(value, torch.Tensor):
        yield key or "tensor", value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from tensors_in(v, f"{key}.{k}" if key else str(k))
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from tensors_in(v, f"{key}[{i}]")


def map_tensors(value: Any, fn: Callable[[str, Any], Any], key: str = "") -> Any:
    """Rebuild a nested value with fn(path, tensor) applied to every tensor in it."""
    import torch

    if isinstance(value, torch.Tensor):
        return fn(key or "tensor", value)
    if isinstance(value, dict):
        return {k: map_tensors(v, fn, f"{key}.{k}" if key else str(k)) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(map_tensors(v, fn, f"{key}[{i}]") for i, v in enumerate(value))
    return value


def batch_size(value: Any) -> int:
    """Size of dim 0 of the first tensor inside value."""
    for _, tensor in tensors_in(value):
        if tensor.ndim:
            return int(tensor.shape[0])
    raise ValueError("no tensor with a batch dimension found in the batch")


def take(value: Any, index: Any) -> Any:
    """Index every batched tensor along dim 0 (a slice or an index tensor)."""
    return map_tensors(value, lambda _, t: t[index] if t.ndim else t)


def to_device(value: Any, device: Any) -> Any:
    return map_tensors(value, lambda _, t: t.to(device))


def is_mask_like(path: str) -> bool:
    """Masks, position ids and labels passed as inputs (Hugging Face style) are not the data:
    zeroing or noising them breaks models or hands them the answer."""
    lowered = path.lower()
    return any(word in lowered for word in ("mask", "position", "type_ids", "label"))


def content_tensors(inputs: Any) -> list[tuple[str, Any]]:
    """The tensors that carry the data: float tensors, else the integer ones that are not masks."""
    found = [(k, t) for k, t in tensors_in(inputs) if not is_mask_like(k)]
    floats = [(k, t) for k, t in found if t.is_floating_point()]
    if floats:
        return floats
    import torch

    return [(k, t) for k, t in found if t.dtype != torch.bool]


def replace_content(inputs: Any, fn: Callable[[str, Any], Any]) -> Any:
    """Apply fn to the content tensors only, leaving masks and ids untouched."""
    keys = {k for k, _ in content_tensors(inputs)}
    return map_tensors(inputs, lambda k, t: fn(k, t) if k in keys else t)
