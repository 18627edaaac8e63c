"""The Trainer callbacks, driven by stand-ins with the frameworks' duck-typed interfaces (no transformers or
lightning needed): checks on the first batch without disturbing training, the curve read from the history,
failures as warnings, and a clear install hint when the framework is missing."""

from __future__ import annotations

import importlib
import math
import sys
import types

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from mldebug_mcp.diagnostics.checks import run_checks

from ..diagnostics import builders as b
from ..diagnostics.hf_standins import CausalLMForTests, collated_lm_batch


class Lines(list):
    def __call__(self, text: str) -> None:
        self.append(text)


@pytest.fixture()
def fake_framework(monkeypatch):
    """Installs stand-in `transformers` and `lightning.pytorch` modules with the callback base classes."""
    transformers = types.ModuleType("transformers")
    transformers.TrainerCallback = type("TrainerCallback", (), {"on_step_end": lambda self, *a, **k: None})
    lightning = types.ModuleType("lightning")
    pytorch = types.ModuleType("lightning.pytorch")
    pytorch.Callback = type("Callback", (), {})
    lightning.pytorch = pytorch
    for name, module in (("transformers", transformers), ("lightning", lightning), ("lightning.pytorch", pytorch)):
        monkeypatch.setitem(sys.modules, name, module)
    for name in ("hf", "lightning"):  # rebuild the classes over the stand-ins
        monkeypatch.delitem(sys.modules, f"mldebug_mcp.integrations.{name}", raising=False)
    yield transformers, pytorch
    for name in ("hf", "lightning"):
        sys.modules.pop(f"mldebug_mcp.integrations.{name}", None)


# --- Hugging Face ------------------------------------------------------------------------------------

class HFModel(CausalLMForTests):
    config = types.SimpleNamespace(vocab_size=16, num_labels=2)


class AcceleratedOptimizer:
    """accelerate's wrapper: the torch optimizer sits in .optimizer."""

    def __init__(self, optimizer):
        self.optimizer = optimizer


def hf_state(losses):
    return types.SimpleNamespace(log_history=[{"loss": v, "step": 10 * (i + 1), "epoch": i / 10}
                                              for i, v in enumerate(losses)])


def test_hf_callback_checks_the_first_batch_without_disturbing_training(fake_framework):
    transformers, _ = fake_framework
    hf = importlib.import_module("mldebug_mcp.integrations.hf")
    lines = Lines()
    callback = hf.MldebugCallback(task="lm", log=lines)
    assert isinstance(callback, transformers.TrainerCallback)
    torch.manual_seed(0)
    model = HFModel()
    model.eval()
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    optimizer = AcceleratedOptimizer(torch.optim.AdamW(model.parameters(), lr=1e-2))
    rng = torch.get_rng_state()
    callback.on_train_begin(None, hf_state([]), None, model=model, train_dataloader=[collated_lm_batch()],
                            optimizer=optimizer)
    assert callback.report is not None and callback.report.status == "pass", lines
    assert [c.id for c in callback.report.checks] == list(hf.CHEAP_CHECKS)
    assert lines[0].startswith("mldebug-mcp checks on the first batch: PASS")
    assert torch.equal(rng, torch.get_rng_state())  # training's random stream is untouched
    assert not model.training and all(torch.equal(weights[k], v) for k, v in model.state_dict().items())


def test_hf_callback_reads_the_log_history_and_never_raises(fake_framework):
    hf = importlib.import_module("mldebug_mcp.integrations.hf")
    lines = Lines()
    callback = hf.MldebugCallback(curve_every=2, log=lines)
    flat = hf_state([2.3 + 0.001 * (i % 3) for i in range(40)])
    callback.on_log(None, flat, None, logs={})
    assert callback.curve is None  # every second log only
    callback.on_log(None, flat, None, logs={})
    assert "flat_from_start" in callback.curve.observations
    callback.on_train_end(None, hf_state([2.0, 1.5, 1.2, math.nan] + [math.nan] * 10), None)
    assert callback.curve.observations[0] == "nan" and "nan" in lines[-1]

    def broken():
        raise OSError("the dataloader's files are gone")
        yield

    with pytest.warns(RuntimeWarning, match="the checks on the first batch failed .*OSError.*training goes on"):
        callback.on_train_begin(None, hf_state([]), None, model=HFModel(), train_dataloader=broken())


def test_hf_spec_reads_the_vocabulary_from_the_config():
    from mldebug_mcp.integrations.hf import hf_spec

    spec = hf_spec(HFModel(), collated_lm_batch(), task="lm", seq_dim=1)
    assert spec["vocab_size"] == 16 and spec["loss_fn"] == "model"
    report = run_checks(spec, only=["batch_sanity", "loss_at_init", "causality"])
    assert report["status"] == "pass"


def test_a_missing_framework_is_an_import_error_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)
    monkeypatch.setitem(sys.modules, "lightning", None)
    monkeypatch.setitem(sys.modules, "lightning.pytorch", None)
    monkeypatch.setitem(sys.modules, "pytorch_lightning", None)
    for name, package in (("hf", "transformers"), ("lightning", "lightning")):
        sys.modules.pop(f"mldebug_mcp.integrations.{name}", None)
        module = importlib.import_module(f"mldebug_mcp.integrations.{name}")  # importing the module is free
        with pytest.raises(ImportError, match=f"pip install {package} \\(mldebug-mcp itself does not depend on it\\)"):
            module.MldebugCallback  # noqa: B018 - the attribute access is the test
        sys.modules.pop(f"mldebug_mcp.integrations.{name}", None)


# --- Lightning --------------------------------------------------------------------------------------

class LitClassifier(nn.Module):
    """A LightningModule's interface: forward, training_step (logging through self.log), configure_optimizers."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))
        self.logged = []

    def forward(self, x):
        return self.net(x)

    def log(self, name, value):
        self.logged.append(name)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return {"loss": loss}

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-2)
        return [optimizer], [torch.optim.lr_scheduler.StepLR(optimizer, 10)]


def test_lightning_spec_trains_through_training_step_and_passes_every_check():
    from mldebug_mcp.integrations.lightning import lightning_spec

    torch.manual_seed(0)
    module = LitClassifier()
    spec = lightning_spec(module, list(b.clusters()), loss_fn=F.cross_entropy, task="classification", num_classes=4)
    assert isinstance(spec["optimizer"], torch.optim.Adam)
    report = run_checks(spec)
    assert {c["id"]: c["summary"] for c in report["checks"] if c["status"] in ("warn", "fail")} == {}


def test_lightning_callback_checks_the_first_batch_and_reads_the_step_losses(fake_framework):
    _, pytorch = fake_framework
    lightning = importlib.import_module("mldebug_mcp.integrations.lightning")
    lines = Lines()
    callback = lightning.MldebugCallback(loss_fn=F.cross_entropy, task="classification", num_classes=4, log=lines)
    assert isinstance(callback, pytorch.Callback)
    torch.manual_seed(0)
    module = LitClassifier()
    trainer = types.SimpleNamespace(train_dataloader=[list(b.clusters())], global_step=0, callback_metrics={},
                                    sanity_checking=False)
    callback.on_train_start(trainer, module)
    assert callback.report.status == "pass", lines
    for step in range(30):
        trainer.global_step = step + 1
        callback.on_train_batch_end(trainer, module, {"loss": torch.tensor(1.4 * 0.9 ** step)}, None, step)
        if step % 10 == 9:
            trainer.callback_metrics = {"val_loss": torch.tensor(1.5 * 0.95 ** step), "val_acc": torch.tensor(0.5)}
            callback.on_validation_epoch_end(trainer, module)
    callback.on_train_end(trainer, module)
    assert callback.curve.loss_series == "loss" and callback.curve.val_series == "val_loss"
    assert lines[-1].startswith("mldebug-mcp loss curve (loss, validation val_loss)")
