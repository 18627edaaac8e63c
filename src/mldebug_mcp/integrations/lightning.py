"""Lightning: a debug spec built from a LightningModule, and a callback that checks the first batch and
reads the loss curve.

    from mldebug_mcp.integrations.lightning import MldebugCallback, lightning_spec

    def debug_spec():                      # for `mldebug-mcp diagnose train.py:debug_spec`
        module = LitClassifier()
        batch = next(iter(MyDataModule().train_dataloader()))
        return lightning_spec(module, batch, loss_fn=F.cross_entropy, task="classification", num_classes=10)

    trainer = L.Trainer(callbacks=[MldebugCallback(loss_fn=F.cross_entropy, task="classification", num_classes=10)])

lightning_spec trains through the module's own training_step (its loss, or its {"loss": ...}) with
the first optimizer of configure_optimizers (its class and settings, over each copy of the module);
the checks that read logits call the module's forward and score it with loss_fn, so loss_fn is the
criterion training_step applies to forward's output ("model" when forward returns an object with
.loss). Automatic optimisation only: a training_step that calls self.optimizers() needs a Trainer.
Batches: (inputs, targets) pairs, or dicts with a 'labels' key.

MldebugCallback.on_train_start runs the cheap checks on the first batch of trainer.train_dataloader;
it records the loss of every training step (and the validation metrics named like a loss) and, on
on_train_end, reads that curve. lightning (or pytorch_lightning) is imported only when the callback
class is first used; `LightningHooks` holds the logic and is what tests drive with stand-ins.
"""

from __future__ import annotations

import warnings
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

__all__ = ["LightningHooks", "MldebugCallback", "lightning_spec"]  # noqa: F822 - MldebugCallback: built by __getattr__


def lightning_spec(module: Any, batch: Any, loss_fn: Any = "model", task: str = "custom",
                   **fields: Any) -> dict[str, Any]:
    """The debug spec of a LightningModule and one batch (see the module docstring)."""
    optimizer = first_optimizer(module.configure_optimizers())
    spec = {"model": module, "batch": batch, "loss_fn": loss_fn, "task": task, "train_step": training_step,
            **fields}
    if optimizer is not None:
        spec.setdefault("optimizer", optimizer)
    return spec


def training_step(module: Any, batch: Any, optimizer: Any) -> Any:
    """One automatic-optimisation step through the module's own training_step."""
    optimizer.zero_grad()
    with warnings.catch_warnings():  # self.log outside a fit loop warns once per call; nothing is lost
        warnings.filterwarnings("ignore", message=r".*self\.log\(\)")
        out = module.training_step(batch, 0)
    loss = out["loss"] if isinstance(out, dict) else out
    if loss is None:
        raise ValueError("training_step returned None: return the loss (or {'loss': loss}) for diagnose to train on")
    loss.backward()
    optimizer.step()
    return loss


def first_optimizer(configured: Any) -> Any:
    """The first optimizer in what configure_optimizers returns: an optimizer, a list or tuple (optimizers, or
    (optimizers, schedulers)), or a dict {"optimizer": ...}; None when there is none."""
    if isinstance(configured, dict):
        return first_optimizer(configured.get("optimizer"))
    if isinstance(configured, (list, tuple)):
        return next((o for o in map(first_optimizer, configured) if o is not None), None)
    return configured if hasattr(configured, "param_groups") else None


class LightningHooks:
    """The Callback methods, without the base class (see MldebugCallback)."""

    def __init__(self, loss_fn: Any = "model", task: str = "custom", checks: Sequence[str] = CHEAP_CHECKS,
                 num_classes: int | None = None, seed: int = 0, log: Log = print, **spec_fields: Any) -> None:
        # `write`, not `log`: Lightning's Trainer sets callback.log to the module's self.log
        self.loss_fn, self.task, self.checks, self.seed, self.write = loss_fn, task, tuple(checks), seed, log
        self.num_classes, self.spec_fields = num_classes, spec_fields
        self.history: list[dict[str, Any]] = []  # {"step": global_step, "loss": ...} and validation records
        self.report: Any = None
        self.curve: Any = None

    def on_train_start(self, trainer: Any, pl_module: Any) -> None:
        if not self.checks:
            return
        with never_raises("the checks on the first batch"):
            import torch

            with torch.random.fork_rng(devices=[]):  # the extra iterator must not move the sampler's seed
                batch = next(iter(trainer.train_dataloader))
            fields = dict(self.spec_fields)
            if self.num_classes is not None:
                fields.setdefault("num_classes", self.num_classes)
            spec = lightning_spec(pl_module, batch, self.loss_fn, self.task, **fields)
            self.report = check_first_batch(spec, self.checks, self.seed, self.write)

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int) -> None:
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        if loss is not None and hasattr(loss, "item"):
            self.history.append({"step": int(trainer.global_step), "loss": float(loss.detach().float().item())})

    def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        metrics = {k: float(v) for k, v in dict(getattr(trainer, "callback_metrics", {}) or {}).items()
                   if "loss" in k.lower() and any(w in k.lower() for w in ("val", "valid"))}
        if metrics and not getattr(trainer, "sanity_checking", False):
            self.history.append({"step": int(trainer.global_step), **metrics})

    def on_train_end(self, trainer: Any, pl_module: Any) -> None:
        with never_raises("reading the loss curve"):
            self.curve = read_curve(self.history, "lightning training steps", self.num_classes, self.write)


def _callback_class() -> type:
    try:
        from lightning.pytorch import Callback
    except ImportError:
        try:
            from pytorch_lightning import Callback
        except ImportError as exc:
            raise install_hint("lightning", "lightning") from exc

    class MldebugCallback(LightningHooks, Callback):
        """mldebug-mcp's checks and curve reader inside a Lightning Trainer (see the module docstring)."""

    return MldebugCallback


def __getattr__(name: str) -> Any:
    if name == "MldebugCallback":  # built on first use: lightning is imported only then
        cls = _callback_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
