"""A Hugging Face Trainer callback: cheap checks on the first batch, the loss curve from the log history.

    from mldebug_mcp.integrations.hf import MldebugCallback
    trainer = Trainer(model=model, args=args, train_dataset=ds, data_collator=collator,
                      callbacks=[MldebugCallback(task="lm")])

on_train_begin takes one batch from the trainer's train dataloader (a collator's dict, labels
included), and runs the cheap checks (common.CHEAP_CHECKS) with the model's own loss (loss_fn="model")
and the trainer's optimizer class and settings, on copies of the model; on_train_end (and every
`curve_every`-th on_log) reads `state.log_history` with the curve reader. Each prints a few lines
(`log=`); a failure inside is a warning, never an exception in training.

transformers is imported only when MldebugCallback is first used; `HFHooks` holds the logic and is
what tests drive with stand-ins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .common import (
    CHEAP_CHECKS,
    Log,
    check_first_batch,
    install_hint,
    never_raises,
    read_curve,
)

__all__ = ["HFHooks", "MldebugCallback", "hf_spec"]  # noqa: F822 - MldebugCallback: built by __getattr__


def hf_spec(model: Any, batch: dict[str, Any], task: str = "custom", **fields: Any) -> dict[str, Any]:
    """The debug spec of a Hugging Face model and one collated batch: the model computes its own loss.

    For task 'lm' vocab_size, and for 'classification' num_classes, default to the model's config."""
    config = getattr(model, "config", None)
    if task == "lm":
        fields.setdefault("vocab_size", getattr(config, "vocab_size", None))
    if task == "classification":
        fields.setdefault("num_classes", getattr(config, "num_labels", None))
    return {"model": model, "batch": batch, "loss_fn": "model", "task": task, **fields}


class HFHooks:
    """The TrainerCallback methods, without the base class (see MldebugCallback)."""

    def __init__(self, task: str = "custom", checks: Sequence[str] = CHEAP_CHECKS, curve_every: int = 0,
                 num_classes: int | None = None, seed: int = 0, log: Log = print, **spec_fields: Any) -> None:
        self.task, self.checks, self.curve_every = task, tuple(checks), curve_every
        self.num_classes, self.seed, self.write, self.spec_fields = num_classes, seed, log, spec_fields
        self.report: Any = None  # the DiagnosticReport of the first batch
        self.curve: Any = None   # the latest CurveReport
        self._logs = 0

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, train_dataloader: Any = None,
                       optimizer: Any = None, **kwargs: Any) -> None:
        if not self.checks or model is None or train_dataloader is None:
            return
        with never_raises("the checks on the first batch"):
            import torch

            with torch.random.fork_rng(devices=[]):  # the extra iterator must not move the sampler's seed
                batch = next(iter(train_dataloader))
            fields = dict(self.spec_fields)
            if self.num_classes is not None:
                fields.setdefault("num_classes", self.num_classes)
            plain = _plain_optimizer(optimizer)
            if plain is not None:  # its class and settings, rebuilt over each copy of the model
                fields.setdefault("optimizer", plain)
            self.report = check_first_batch(hf_spec(model, dict(batch), self.task, **fields), self.checks,
                                            self.seed, self.write)

    def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kwargs: Any) -> None:
        self._logs += 1
        if self.curve_every and self._logs % self.curve_every == 0:
            self._read_curve(state)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._read_curve(state)

    def _read_curve(self, state: Any) -> None:
        with never_raises("reading the loss curve"):
            history = list(getattr(state, "log_history", None) or [])
            self.curve = read_curve(history, "trainer.state.log_history", self.num_classes, self.write)


def _plain_optimizer(optimizer: Any) -> Any:
    """The torch optimizer inside accelerate's wrapper (AcceleratedOptimizer.optimizer), or None."""
    import torch

    while optimizer is not None and not type(optimizer).__module__.startswith("torch."):
        inner = getattr(optimizer, "optimizer", None)
        if inner is None or inner is optimizer:
            break
        optimizer = inner
    return optimizer if isinstance(optimizer, torch.optim.Optimizer) and hasattr(optimizer, "defaults") else None


def _callback_class() -> type:
    try:
        from transformers import TrainerCallback
    except ImportError as exc:
        raise install_hint("hf", "transformers") from exc

    class MldebugCallback(HFHooks, TrainerCallback):
        """mldebug-mcp's checks and curve reader inside a Hugging Face Trainer (see the module docstring)."""

    return MldebugCallback


def __getattr__(name: str) -> Any:
    if name == "MldebugCallback":  # built on first use: transformers is imported only then
        cls = _callback_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
