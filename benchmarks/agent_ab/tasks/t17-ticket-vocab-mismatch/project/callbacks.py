"""Training callbacks: history, early stopping, checkpointing.

Each callback gets the trainer's state dict (``step``, ``epoch``, ``metrics``)
at the hooks below; a callback may set ``state["stop"] = True``.
"""
import json
import math
import os

import torch


class Callback:
    def on_train_begin(self, state):
        pass

    def on_step_end(self, state):
        pass

    def on_eval_end(self, state):
        pass

    def on_train_end(self, state):
        pass


class CallbackList(Callback):
    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])

    def append(self, cb):
        self.callbacks.append(cb)

    def _call(self, hook, state):
        for cb in self.callbacks:
            getattr(cb, hook)(state)

    def on_train_begin(self, state):
        self._call("on_train_begin", state)

    def on_step_end(self, state):
        self._call("on_step_end", state)

    def on_eval_end(self, state):
        self._call("on_eval_end", state)

    def on_train_end(self, state):
        self._call("on_train_end", state)


class History(Callback):
    """Keeps every evaluation's metrics; optionally writes them as JSON lines."""

    def __init__(self, path=None):
        self.records = []
        self.path = path

    def on_eval_end(self, state):
        rec = {"step": state["step"], "epoch": state.get("epoch", 0)}
        rec.update({k: float(v) for k, v in state["metrics"].items()})
        self.records.append(rec)
        if self.path:
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            with open(self.path, "a") as f:
                f.write(json.dumps(rec) + "\n")


class EarlyStopping(Callback):
    def __init__(self, monitor="val_loss", mode="min", patience=5, min_delta=0.0):
        self.monitor, self.mode = monitor, mode
        self.patience, self.min_delta = patience, min_delta
        self.best = math.inf if mode == "min" else -math.inf
        self.bad = 0

    def on_eval_end(self, state):
        value = state["metrics"].get(self.monitor)
        if value is None:
            return
        better = (value < self.best - self.min_delta) if self.mode == "min" else (value > self.best + self.min_delta)
        if better:
            self.best, self.bad = value, 0
        else:
            self.bad += 1
            if self.patience and self.bad >= self.patience:
                state["stop"] = True


class NonFiniteGuard(Callback):
    """Stops training when the step loss is NaN/inf."""

    def on_step_end(self, state):
        loss = state.get("loss")
        if loss is not None and not math.isfinite(loss):
            state["stop"] = True
            state["stop_reason"] = f"non-finite loss at step {state['step']}"


class Checkpoint(Callback):
    def __init__(self, model, path, monitor="val_loss", mode="min"):
        self.model, self.path = model, path
        self.monitor, self.mode = monitor, mode
        self.best = math.inf if mode == "min" else -math.inf

    def on_eval_end(self, state):
        value = state["metrics"].get(self.monitor)
        if value is None:
            return
        if (value < self.best) if self.mode == "min" else (value > self.best):
            self.best = value
            os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
            torch.save(self.model.state_dict(), self.path)
