"""MLD001 across files (issue 17, blind split 6): a classifier of one file ending in a sigmoid, wrapped by a
combining model of a second file whose forward returns what the classifier (a constructor argument) returns,
and a third file feeding the combined model's output to a with-logits loss, directly or through a local
`criterion(logits, labels)` helper. Flagged at the sigmoid, where the fix goes; a wrapper returning the other
argument's output, and a classifier returning raw scores, stay quiet there."""

from pathlib import Path

from .families import both_ways

HEAD = (
    "import torch.nn as nn\n"
    "class ScoreHead(nn.Module):\n"
    "    def __init__(self, d):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(d, 1)\n"
    "        self.act = nn.Sigmoid()\n"
    "    def forward(self, x):\n"
    "        return self.act(self.fc(x)).squeeze(-1)\n"
)
PAIR = (
    "import torch\n"
    "class Pair(torch.nn.Module):\n"
    "    def __init__(self, encoder, head):\n"
    "        super().__init__()\n"
    "        self.encoder = encoder\n"
    "        self.head = head\n"
    "    def forward(self, x):\n"
    "        z = self.encoder(x)\n"
    "        return self.head(z)\n"
)
DIRECT = (
    "import torch.nn.functional as F\n"
    "from head import ScoreHead\n"
    "from pair import Pair\n"
    "def fit(encoder, loader, opt):\n"
    "    model = Pair(encoder, ScoreHead(16))\n"
    "    for x, y in loader:\n"
    "        loss = F.binary_cross_entropy_with_logits(model(x), y)\n"
    "        opt.zero_grad()\n"
    "        loss.backward()\n"
    "        opt.step()\n"
)
LOCAL_HELPER = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "from head import ScoreHead\n"
    "from pair import Pair\n"
    "def main(encoder, loader, opt):\n"
    "    def criterion(logits, labels):\n"
    "        return torch.mean(F.binary_cross_entropy_with_logits(logits, labels, reduction='none'))\n"
    "    head = ScoreHead(16)\n"
    "    model = Pair(encoder, head).cuda()\n"
    "    for x, y in loader:\n"
    "        logits = model(x)\n"
    "        loss = criterion(logits, y)\n"
    "        opt.zero_grad()\n"
    "        loss.backward()\n"
    "        opt.step()\n"
)


def _mld001(tmp_path: Path, name: str) -> list[int]:
    return sorted(line for file, line in both_ways(tmp_path, "MLD001") if file == name)


def _write(tmp_path: Path, pair: str, train: str, head: str = HEAD) -> None:
    (tmp_path / "head.py").write_text(head)
    (tmp_path / "pair.py").write_text(pair)
    (tmp_path / "train.py").write_text(train)


def test_sigmoid_head_through_wrapper_into_logit_loss(tmp_path):
    _write(tmp_path, PAIR, DIRECT)
    assert _mld001(tmp_path, "head.py") == [8]


def test_through_a_local_criterion_helper(tmp_path):
    _write(tmp_path, PAIR, LOCAL_HELPER)
    assert _mld001(tmp_path, "head.py") == [8]


def test_wrapper_returning_the_other_argument_is_quiet(tmp_path):
    _write(tmp_path, PAIR.replace("return self.head(z)", "return self.encoder(z)"), DIRECT)
    assert _mld001(tmp_path, "head.py") == []


def test_raw_scores_are_quiet(tmp_path):
    _write(tmp_path, PAIR, LOCAL_HELPER, HEAD.replace("self.act(self.fc(x))", "self.fc(x)"))
    assert _mld001(tmp_path, "head.py") == []
    assert _mld001(tmp_path, "train.py") == []
