"""The value-kind analysis (lint/helpers/kinds.py): what an expression is, and the cross-file facts."""

import ast
from pathlib import Path

import pytest

from mldebug_mcp.lint.context import build_context
from mldebug_mcp.lint.engine import lint_paths
from mldebug_mcp.lint.helpers.kinds import kind_of

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def _kind(body: str):
    source = HEADER + body
    ctx = build_context("m.py", source, ast.parse(source))
    return kind_of(ctx.bindings[ctx.tree]["result"][-1], ctx)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("result = F.softmax(z, 1).view(-1).float()\n", "softmax"),
        ("lp = F.log_softmax(z, 1)\nresult = torch.exp(lp)\n", "softmax"),
        ("lp = z.log_softmax(1)\nresult = lp.exp()[:, 0]\n", "softmax"),
        ("result = F.log_softmax(z, 1).to('cuda')\n", "log_softmax"),
        ("a, b = z, torch.sigmoid(z)\nresult = b\n", "sigmoid"),
        ("result = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Dropout())(z)\n", "relu"),
        ("act = nn.Sigmoid()\nresult = act(z).squeeze(1)\n", "sigmoid"),
        ("result = nn.Linear(2, 2)(z)\n", "logits"),
        ("result = torch.log(F.softmax(z, 1))\n", None),
        ("result = z\n", None),
        ("y = F.softmax(z, 1)\ny = y.log()\nresult = y\n", None),
    ],
)
def test_kind_of_expressions(body, expected):
    assert _kind(body) == expected


def test_kind_through_attributes_tuples_and_a_wrapped_sequential():
    body = (
        "class Wrap(nn.Module):\n"
        "    def __init__(self, inner):\n"
        "        super().__init__()\n"
        "        self.inner = inner\n"
        "    def forward(self, x):\n"
        "        out = self.inner(x)\n"
        "        return out, out.argmax(1)\n"
        "model = Wrap(nn.Sequential(nn.Linear(2, 2), nn.Softmax(dim=1))).to('cpu')\n"
        "probs, labels = model(z)\n"
        "result = probs\n"
    )
    assert _kind(body) == "softmax"


def test_returns_must_agree():
    body = (
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        if self.training:\n"
        "            return x\n"
        "        return F.softmax(x, 1)\n"
        "result = Net()(z)\n"
    )
    assert _kind(body) is None


@pytest.mark.parametrize(
    ("model", "train", "expected"),
    [
        (("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
          "        self.act = nn.Sigmoid()\n    def forward(self, x):\n        return self.act(x)\n"),
         "criterion = nn.BCEWithLogitsLoss()\ndef step(x, y):\n    return criterion(Net()(x), y)\n",
         [("model.py", 9, "MLD001"), ("train.py", 6, "MLD001")]),
        ("class Net(nn.Module):\n    def forward(self, x):\n        return F.relu(x)\n",
         "def step(x, y):\n    return F.cross_entropy(Net()(x), y)\n",
         [("model.py", 6, "MLD001"), ("train.py", 5, "MLD001")]),
        (("class Net(nn.Module):\n    def forward(self, x):\n        return x\n"
          "    def predict(self, x):\n        return F.softmax(x, 1)\n"),
         "def step(x, y):\n    return F.cross_entropy(Net()(x), y)\n",
         []),
        ("class Net(nn.Module):\n    def forward(self, x):\n        return F.softmax(x, 1)\n",
         "from skorch import NeuralNetClassifier\nnet = NeuralNetClassifier(Net, max_epochs=3)\n",
         []),
        ("class Net(nn.Module):\n    def forward(self, x):\n        return F.softmax(x, 1)\n",
         "from skorch import NeuralNetClassifier\nnet = NeuralNetClassifier(Net, criterion=nn.CrossEntropyLoss)\n",
         [("model.py", 6, "MLD001"), ("train.py", 5, "MLD001")]),  # at the loss, and in its file at the softmax
    ],
    ids=["sigmoid-bce-with-logits", "relu-cross-entropy", "softmax-in-predict-only", "skorch-nll-default",
         "skorch-cross-entropy"],
)
def test_kinds_cross_files(tmp_path, model, train, expected):
    (tmp_path / "model.py").write_text(HEADER + model)
    (tmp_path / "train.py").write_text(HEADER.replace("import torch\n", "") + "from model import Net\n" + train)
    for jobs in (1, 2):
        result = lint_paths([tmp_path], jobs=jobs)
        assert [(Path(f.path).name, f.line, f.code) for f in result.findings if f.code < "MLD004"] == expected
