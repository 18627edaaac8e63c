"""A script that would train when imported is refused before any process starts; a spec file passes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from mldebug_mcp.diagnostics.import_guard import first_side_effect
from mldebug_mcp.errors import UsageError
from mldebug_mcp.services import diagnose as service

SPEC_FILE = '''
"""A normal spec file: imports, constants, set-up calls, definitions and a main block."""
import argparse
import logging
import os
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import AutoConfig, set_seed

sys.path.insert(0, str(Path(__file__).resolve().parent))
torch.manual_seed(0)
np.random.seed(0)
set_seed(0)
logging.basicConfig(level=logging.INFO)
log = logging.getLogger(__name__)
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
VOCAB, CLASSES = 100, 4
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = Path(HERE) / "data"
NAMES = [f"class_{i}" for i in range(CLASSES)]
MEAN = torch.tensor([0.5, 0.5, 0.5])
CONFIG = AutoConfig.from_pretrained("gpt2")
parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, default=1e-3)
try:
    import wandb
except ImportError:
    wandb = None
if os.environ.get("FAST"):
    STEPS = 10


class Net(nn.Module):
    criterion = nn.CrossEntropyLoss()

    def forward(self, x):
        return x


@torch.no_grad()
def evaluate(model=Net()):
    return model


def debug_spec():
    model = Net()
    return dict(model=model, batch=(torch.randn(8, 4), torch.arange(8) % 4), loss_fn=F.cross_entropy)


def main():
    args = parser.parse_args()
    for step in range(100):
        train(args)


if __name__ == "__main__":
    main()
'''


def test_a_normal_spec_file_has_no_side_effect():
    assert first_side_effect(SPEC_FILE) is None


@pytest.mark.parametrize("tail, line, call", [
    ("main()", 1, "main"),
    ("for step in range(10):\n    opt.step()", 2, "opt.step"),
    ("trainer = Trainer(model)\ntrainer.fit(model)", 2, "trainer.fit"),
    ("history = train(model, epochs=3)", 1, "train"),
    ("args = parser.parse_args()", 1, "parser.parse_args"),
    ("torch.save(model.state_dict(), 'model.pt')", 1, "torch.save"),
    ("with open('log.txt', 'w') as f:\n    f.write('x')", 1, "open"),
    ("if __name__ == '__main__':\n    main()\nelse:\n    run()", 4, "run"),
    ("if torch.cuda.is_available():\n    warm_up()", 2, "warm_up"),
    ("trainer.train()", 1, "trainer.train"),  # HF Trainer: `train` is not a harmless method
])
def test_module_level_work_is_named_with_its_line(tail, line, call):
    source = "import torch\nmodel = torch.nn.Linear(2, 2)\n" + tail
    effect = first_side_effect(source)
    assert effect is not None and (effect.line, effect.call) == (line + 2, call)


def test_a_file_that_does_not_parse_is_left_to_the_import():
    assert first_side_effect("def broken(:\n") is None


TRAINS_ON_IMPORT = """
import torch

def debug_spec():
    return {}

open("marker.txt", "w").write("trained")  # stands for a training loop that writes checkpoints
for step in range(3):
    print(step)
"""


@pytest.fixture()
def never_launched(monkeypatch):
    """Fails the test if a child process would start; records the calls when `allow` is set."""
    launched = []

    async def fake_run(target, options, limits, cwd, on_progress=None):
        launched.append(target)
        return {"status": "pass", "checks": []}

    monkeypatch.setattr(service, "run_in_subprocess", fake_run)
    return launched


def test_a_script_that_trains_on_import_is_refused_before_any_process_starts(tmp_path, never_launched):
    script = tmp_path / "train.py"
    script.write_text(TRAINS_ON_IMPORT)
    with pytest.raises(UsageError) as caught:
        anyio.run(lambda: service.diagnose_target(f"{script}:debug_spec", cwd=tmp_path))
    message = str(caught.value)
    assert f"{script}:7 calls open()" in message
    assert 'if __name__ == "__main__":' in message and "--allow-import-side-effects" in message
    assert never_launched == [] and not (tmp_path / "marker.txt").exists()
    # a module target names the same file in the working folder
    with pytest.raises(UsageError, match="train.py:7 calls open"):
        anyio.run(lambda: service.diagnose_target("train:debug_spec", cwd=tmp_path))


def test_the_override_and_a_guarded_script_reach_the_child(tmp_path, never_launched):
    script = tmp_path / "train.py"
    script.write_text(TRAINS_ON_IMPORT)
    anyio.run(lambda: service.diagnose_target(f"{script}:debug_spec", cwd=tmp_path, allow_import_side_effects=True))
    guarded = tmp_path / "guarded.py"
    guarded.write_text(SPEC_FILE)
    anyio.run(lambda: service.diagnose_target(f"{guarded}:debug_spec", cwd=tmp_path))
    assert never_launched == [f"{script}:debug_spec", f"{guarded}:debug_spec"]


@pytest.mark.slow
def test_the_cli_refuses_with_exit_2_and_runs_with_the_flag(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAINS_ON_IMPORT))

    def cli(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mldebug_mcp", "diagnose", "train.py:debug_spec",
                               "--python", sys.executable, *extra],
                              cwd=tmp_path, capture_output=True, text=True, timeout=180, check=False)

    refused = cli()
    assert refused.returncode == 2 and "calls open() at import" in refused.stderr, refused.stderr
    assert not (tmp_path / "marker.txt").exists()
    allowed = cli("--allow-import-side-effects")
    assert (tmp_path / "marker.txt").exists()  # imported: the module-level code ran
    assert "lacks ['model', 'batch']" in allowed.stderr + allowed.stdout
    assert Path(tmp_path / "marker.txt").read_text() == "trained"
