"""The same paths against the real libraries, when installed (neither is a dependency of mldebug-mcp)."""

from __future__ import annotations

import importlib.util
import warnings

import pytest

torch = pytest.importorskip("torch")

from torch import nn
from torch.nn import functional as F

from mldebug_mcp.diagnostics.checks import run_checks

from ..diagnostics import builders as b


def tiny_gpt2():
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=100, n_positions=32,
                                     bos_token_id=0, eos_token_id=0)
    return transformers.GPT2LMHeadModel(config)


def lm_batch(n: int = 32, length: int = 16) -> dict:
    g = torch.Generator().manual_seed(0)
    ids = (torch.randint(0, 100, (n, 1), generator=g) + torch.arange(length)) % 100
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": ids.clone()}


def test_a_tiny_gpt2_with_a_collated_batch_is_diagnosed_without_false_failures():
    from mldebug_mcp.integrations.hf import hf_spec

    spec = hf_spec(tiny_gpt2(), lm_batch(), task="lm", optimizer=lambda p: torch.optim.Adam(p, lr=3e-3))
    report = run_checks(spec, steps=10, only=["batch_sanity", "loss_at_init", "gradient_flow", "parameter_updates",
                                              "first_nonfinite", "batch_independence", "causality", "odd_shapes",
                                              "train_eval_modes"])
    bad = {c["id"]: c["summary"] for c in report["checks"] if c["status"] in ("warn", "fail")}
    assert bad == {}


def test_the_hf_callback_runs_inside_a_real_trainer(tmp_path):
    transformers = pytest.importorskip("transformers")
    if importlib.util.find_spec("accelerate") is None:
        pytest.skip("transformers.Trainer needs accelerate")
    from mldebug_mcp.integrations.hf import MldebugCallback

    lines = []
    callback = MldebugCallback(task="lm", log=lines.append)
    assert isinstance(callback, transformers.TrainerCallback)
    rows = [{k: v[i] for k, v in lm_batch().items()} for i in range(32)]
    args = transformers.TrainingArguments(output_dir=str(tmp_path), max_steps=12, logging_steps=1,
                                          per_device_train_batch_size=8, report_to=[], save_strategy="no",
                                          use_cpu=True, disable_tqdm=True)
    trainer = transformers.Trainer(model=tiny_gpt2(), args=args, train_dataset=rows, callbacks=[callback])
    trainer.train()
    assert callback.report is not None and callback.report.status in ("pass", "warn"), lines
    assert callback.curve is not None and callback.curve.loss_series == "loss", lines




def test_the_lightning_callback_runs_inside_a_real_trainer():
    pl = pytest.importorskip("lightning.pytorch")
    from torch.utils.data import DataLoader, TensorDataset

    from mldebug_mcp.integrations.lightning import MldebugCallback

    class Lit(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))

        def forward(self, x):
            return self.net(x)

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = F.cross_entropy(self(x), y)
            self.log("train_loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=1e-2)

    lines = []
    callback = MldebugCallback(loss_fn=F.cross_entropy, task="classification", num_classes=4, log=lines.append)
    x, y = b.clusters(n=128)
    trainer = pl.Trainer(max_epochs=3, callbacks=[callback], logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, accelerator="cpu")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="lightning")
        trainer.fit(Lit(), DataLoader(TensorDataset(x, y), batch_size=8))
    assert callback.report is not None and callback.report.status == "pass", lines
    assert callback.curve is not None and len(callback.history) == 48, lines
