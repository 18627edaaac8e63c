"""MLD020: a model built only of layers whose output does not depend on the train/eval mode needs no eval().

The claim for recurrent layers (PyTorch applies an LSTM's dropout= to the outputs of every layer but the
last, so a one-layer LSTM has no dropout in either mode) is checked by running it on CPU: a PyTorch that
behaves otherwise fails here before the rule stays quiet on a real bug.
"""

from __future__ import annotations

import textwrap
import warnings

import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths, lint_source

from .families import project_findings

torch = pytest.importorskip("torch")


def _lines(source: str, path: str = "encoder.py") -> list[int]:
    return sorted(f.line for f in lint_source(textwrap.dedent(source), path) if f.code == "MLD020")


def _encode_top(source: str) -> list[int]:
    """Where self.eval() goes: the first line of encode()."""
    return [n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1) if "embeddings = []" in line]


def _train_and_eval(module, x):
    module.train()
    torch.manual_seed(1)
    trained = module(x)[0]
    module.eval()
    return trained, module(x)[0]


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_one_recurrent_layer_computes_the_same_in_both_modes_whatever_its_dropout(kind):
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns that dropout= does nothing with one layer
        layer = getattr(torch.nn, kind)(4, 8, 1, bidirectional=True, dropout=0.9)
    trained, evaluated = _train_and_eval(layer, torch.randn(5, 3, 4))
    assert torch.equal(trained, evaluated)


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_two_recurrent_layers_drop_between_them_in_training_mode(kind):
    torch.manual_seed(0)
    layer = getattr(torch.nn, kind)(4, 8, 2, dropout=0.9)
    trained, evaluated = _train_and_eval(layer, torch.randn(5, 3, 4))
    assert not torch.allclose(trained, evaluated)


def test_instance_norm_without_running_statistics_computes_the_same_in_both_modes():
    norm = torch.nn.InstanceNorm2d(3)
    x = torch.randn(2, 3, 5, 5)
    norm.train()
    trained = norm(x)
    norm.eval()
    assert torch.equal(trained, norm(x))


ENCODER = """
    import torch
    from torch import nn


    class Encoder(nn.Module):
        def __init__(self, config):
            super().__init__()
            self.bsize = config["bsize"]
            self.dpout = config["dpout_model"]
            self.lstm = nn.LSTM(config["dim"], config["hidden"], 1, bidirectional=True, dropout=self.dpout)

        def forward(self, batch):
            return self.lstm(batch)[0].max(0)[0]

        def get_batch(self, rows):
            return torch.FloatTensor(rows)

        def encode(self, rows):
            embeddings = []
            for start in range(0, len(rows), self.bsize):
                batch = self.get_batch(rows[start:start + self.bsize])
                with torch.no_grad():
                    embeddings.append(self.forward(batch).numpy())
            return embeddings
"""


def test_a_one_layer_lstm_with_dropout_needs_no_eval():
    assert _lines(ENCODER) == []


@pytest.mark.parametrize("change", [
    ('1, bidirectional=True, dropout=self.dpout)', '2, bidirectional=True, dropout=self.dpout)'),
    ('1, bidirectional=True, dropout=self.dpout)', 'config["layers"], dropout=self.dpout)'),
    ('1, bidirectional=True, dropout=self.dpout)', 'num_layers=3, dropout=0.1)'),
    ('self.bsize = config["bsize"]', 'self.bsize = config["bsize"]\n            self.drop = nn.Dropout(0.1)'),
    ('self.bsize = config["bsize"]', 'self.bsize = config["bsize"]\n            self.bn = nn.BatchNorm1d(8)'),
    ('self.bsize = config["bsize"]',
     'self.bsize = config["bsize"]\n            self.norm = nn.InstanceNorm1d(8, track_running_stats=True)'),
    ('self.bsize = config["bsize"]', 'self.bsize = config["bsize"]\n            self.head = Head()'),
])
def test_a_layer_that_follows_the_mode_still_counts(change):
    source = ENCODER.replace(*change)
    if "Head()" in source:
        source += "\n\n    class Head(nn.Module):\n        def __init__(self):\n            super().__init__()\n" \
                  "            self.bn = nn.BatchNorm1d(8)\n"
    assert _lines(source) == _encode_top(source)


def test_layer_norm_instance_norm_and_weight_init_are_mode_free():
    source = ENCODER.replace('self.bsize = config["bsize"]', 'self.bsize = config["bsize"]\n'
                             '            self.norm = nn.LayerNorm(8)\n'
                             '            self.inorm = nn.InstanceNorm1d(8)\n'
                             '            self.proj = nn.Linear(8, 8)\n'
                             '            nn.init.normal_(self.proj.weight)')
    assert _lines(source) == []


def test_a_base_class_from_another_file_may_hold_dropout():
    source = ENCODER.replace("class Encoder(nn.Module):", "class Encoder(BaseModel):").replace(
        "from torch import nn", "from torch import nn\n    from .base import BaseModel")
    assert _lines(source) == _encode_top(source)


def test_a_module_handed_in_may_hold_dropout():
    source = ENCODER.replace('def __init__(self, config):', 'def __init__(self, config, head):').replace(
        'self.bsize = config["bsize"]', 'self.bsize = config["bsize"]\n            self.head = head').replace(
        'return self.lstm(batch)[0].max(0)[0]', 'return self.head(self.lstm(batch)[0].max(0)[0])')
    assert _lines(source) == _encode_top(source)


LAYERS = """
    import torch.nn as nn


    class Glimpse(nn.Module):
        def __init__(self, d, h):
            super().__init__()
            self.fc = nn.Linear(d, h)

        def forward(self, x):
            return self.fc(x).relu()


    class Core(nn.Module):
        def __init__(self, h):
            super().__init__()
            self.rnn = nn.GRU(h, h, dropout=0.2)

        def forward(self, x):
            return self.rnn(x)[0]
"""

MODEL = """
    import torch.nn as nn
    import layers


    class Attention(nn.Module):
        def __init__(self, d, h, classes):
            super().__init__()
            self.sensor = layers.Glimpse(d, h)
            self.core = layers.Core(h)
            self.head = nn.Linear(h, classes)

        def forward(self, x):
            return self.head(self.core(self.sensor(x)))
"""

TRAINER = """
    import torch
    from model import Attention


    class Trainer:
        def __init__(self, loader):
            self.model = Attention(8, 16, 10)
            self.valid_loader = loader

        @torch.no_grad()
        def validate(self):
            correct = 0
            for x, y in self.valid_loader:
                correct += (self.model(x).argmax(1) == y).sum().item()
            return correct
"""


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD020")


def test_a_model_of_another_file_built_of_other_files_mode_free_layers_needs_no_eval(tmp_path):
    assert _run(tmp_path, {"layers.py": LAYERS, "model.py": MODEL, "trainer.py": TRAINER}) == []


def test_a_mode_dependent_layer_two_files_away_still_counts(tmp_path):
    stacked = LAYERS.replace("nn.GRU(h, h, dropout=0.2)", "nn.GRU(h, h, num_layers=2, dropout=0.2)")
    assert _run(tmp_path, {"layers.py": stacked, "model.py": MODEL, "trainer.py": TRAINER}) == [("trainer.py", 13)]


def test_a_model_class_of_a_file_outside_the_run_still_counts(tmp_path):
    assert _run(tmp_path, {"model.py": MODEL, "trainer.py": TRAINER}) == [("trainer.py", 13)]


def test_each_project_of_a_run_has_its_own_model_py(tmp_path):
    """pytorch/examples: many small projects, each with a model.py defining a Net; one is mode-free
    (super_resolution: Conv, ReLU, PixelShuffle), another holds dropout."""
    free = "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n" \
           "        self.conv = nn.Conv2d(1, 4, 3)\n        self.shuffle = nn.PixelShuffle(2)\n"
    dropping = free.replace("        self.shuffle = nn.PixelShuffle(2)", "        self.drop = nn.Dropout(0.5)")
    script = TRAINER.replace("from model import Attention", "from model import Net").replace(
        "Attention(8, 16, 10)", "Net()")
    _run(tmp_path, {"super_resolution/model.py": free, "super_resolution/main.py": script,
                    "zzz_mnist/model.py": dropping, "zzz_mnist/main.py": script})
    report = lint_paths([tmp_path], LintSettings(select=("MLD020",)))
    assert [(f.path.rsplit("/", 2)[-2], f.line) for f in report.findings] == [("zzz_mnist", 13)]


SMOKE = """
    import torch
    from models import Decoder, Encoder

    # check the shapes with small models, never trained nor loaded
    encoder_test = Encoder(100, 8, 2)
    decoder_test = Decoder(8, 100, 2)
    encoder_test.cuda()
    decoder_test.cuda()

    outputs, hidden = encoder_test(torch.zeros(5, 3).long(), [5, 5, 5], None)
    decoder_input = torch.zeros(1, 3).long()
    for t in range(5):
        decoder_output, hidden = decoder_test(decoder_input, hidden, outputs)
        decoder_input = decoder_output.argmax(-1)
    print(decoder_output.size())
"""


def test_a_scripts_shape_check_of_an_untrained_global_is_no_evaluation():
    """practical-pytorch's seq2seq tutorial: encoder_test/decoder_test only check the shapes."""
    assert _lines(SMOKE, "seq2seq.py") == []


def test_a_global_that_is_loaded_or_handed_on_is_not_a_shape_check():
    loaded = SMOKE.replace("    decoder_test.cuda()\n",
                           "    decoder_test.cuda()\n    decoder_test.load_state_dict(torch.load('d.pt'))\n")
    assert _lines(loaded, "seq2seq.py") != []
    handed = SMOKE.replace("    print(decoder_output.size())", "    print(decoder_output.size())\n    fit(decoder_test)")
    assert _lines(handed, "seq2seq.py") != []
