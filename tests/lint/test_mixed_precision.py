"""MLD063 on a real shape: a scaler object handed in and called on the loss (timm's NativeScaler) is a GradScaler."""

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source

SCALER_HANDED_IN = '''
import torch

def train_one_epoch(model, criterion, loader, optimizer, loss_scaler, use_amp):
    for samples, targets in loader:
        if use_amp:
            with torch.cuda.amp.autocast():
                loss = criterion(model(samples), targets)
            loss_scaler(loss, optimizer, parameters=model.parameters())
        else:
            loss = criterion(model(samples), targets)
            loss.backward()
            optimizer.step()
        optimizer.zero_grad()
'''


def _lines(source: str) -> list[int]:
    return [f.line for f in lint_source(source, "engine.py", LintSettings(select=("MLD063",)))]


def test_a_scaler_called_on_the_loss_counts_as_one():
    assert _lines(SCALER_HANDED_IN) == []


def test_without_it_the_fp16_autocast_fires():
    unscaled = SCALER_HANDED_IN.replace("loss_scaler(loss, optimizer, parameters=model.parameters())",
                                        "loss.backward(); optimizer.step()")
    assert _lines(unscaled) == [7]
