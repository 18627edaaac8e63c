"""A loss class of one file built on a logit loss, taking the first element of the tuple a model of a second
file returns, in a training script of a third: the model's activation is reported in its own file."""

from pathlib import Path

from mldebug_mcp.lint.engine import lint_paths

LOSSES = (
    "import torch.nn as nn\n"
    "import torch.nn.functional as F\n"
    "class FocalLoss(nn.Module):\n"
    "    def forward(self, inputs, targets):\n"
    "        return F.{loss}(inputs, targets)\n"
)
MODEL = (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 1)\n"
    "    def forward(self, x):\n"
    "        out = torch.sigmoid(self.fc(x))\n"
    "        return out, x\n"
)
TRAIN = (
    "from losses import FocalLoss\n"
    "from model import Net\n"
    "def train(loader):\n"
    "    model, criterion = Net(), FocalLoss()\n"
    "    for x, y in loader:\n"
    "        {first}, {second} = model(x)\n"
    "        criterion(pred.float(), y).backward()\n"
)


def _mld001(tmp_path: Path, loss: str, first: str = "pred", second: str = "aux") -> list[tuple[str, int]]:
    (tmp_path / "losses.py").write_text(LOSSES.replace("{loss}", loss))
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(TRAIN.replace("{first}", first).replace("{second}", second))
    found = []
    for jobs in (1, 2):
        result = lint_paths([tmp_path], jobs=jobs)
        found.append([(Path(f.path).name, f.line) for f in result.findings if f.code == "MLD001"])
    assert found[0] == found[1]
    return found[0]


def test_sigmoid_output_into_a_focal_loss_built_on_bce_with_logits(tmp_path):
    assert _mld001(tmp_path, "binary_cross_entropy_with_logits") == [("model.py", 8)]


def test_a_focal_loss_built_on_plain_bce_stays_quiet(tmp_path):
    assert _mld001(tmp_path, "binary_cross_entropy") == []


def test_the_other_element_of_the_tuple_stays_quiet(tmp_path):
    assert _mld001(tmp_path, "binary_cross_entropy_with_logits", first="aux", second="pred") == []


BASE = (
    "import torch.nn as nn\n"
    "class Base(nn.Module):\n"
    "    def build(self, kind):\n"
    "        if kind == 'bce':\n"
    "            return nn.BCEWithLogitsLoss()\n"
    "        if kind == 'mse':\n"
    "            return nn.MSELoss()\n"
    "    def fit(self, batches):\n"
    "        self.criterion = self.build(self.kind)\n"
    "        for x, y in batches:\n"
    "            self.criterion(self(x), y).backward()\n"
)
CHILD = (
    "import torch\n"
    "import torch.nn as nn\n"
    "from base import Base\n"
    "class Scorer(Base):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 1)\n"
    "        self.kind = '{kind}'\n"
    "    def forward(self, x):\n"
    "        return torch.sigmoid(self.fc(x))\n"
    "    def step(self, x, y):\n"
    "        return self.criterion(self.forward(x), y)\n"
)


def _inherited(tmp_path: Path, kind: str) -> list[tuple[str, int]]:
    (tmp_path / "base.py").write_text(BASE)
    (tmp_path / "child.py").write_text(CHILD.replace("{kind}", kind))
    result = lint_paths([tmp_path], jobs=1)
    return [(Path(f.path).name, f.line) for f in result.findings if f.code == "MLD001"]


def test_a_base_class_of_another_file_picks_bce_with_logits_by_the_subclass_option(tmp_path):
    assert _inherited(tmp_path, "bce") == [("child.py", 10)]


def test_the_subclass_option_picks_a_loss_that_takes_probabilities(tmp_path):
    assert _inherited(tmp_path, "mse") == []


DICT_MODEL = (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 3)\n"
    "    def forward(self, x):\n"
    "        return {'probs': torch.softmax(self.fc(x), -1), 'logits': self.fc(x)}\n"
)
DICT_TRAIN = (
    "import torch.nn.functional as F\n"
    "from model import Net\n"
    "def train(loader):\n"
    "    model = Net()\n"
    "    for x, y in loader:\n"
    "        F.cross_entropy(model(x)['{key}'], y).backward()\n"
)


def test_an_entry_of_another_files_returned_dict(tmp_path):
    (tmp_path / "model.py").write_text(DICT_MODEL)
    for key, expected in (("probs", [("model.py", 8), ("train.py", 6)]), ("logits", [])):
        (tmp_path / "train.py").write_text(DICT_TRAIN.replace("{key}", key))
        result = lint_paths([tmp_path], jobs=1)
        assert sorted((Path(f.path).name, f.line) for f in result.findings if f.code == "MLD001") == expected


HELPER = (
    "import torch.nn.functional as F\n"
    "def compute_loss(pred, target):\n"
    "    return F.{loss}(pred, target)\n"
)
HELPER_TRAIN = (
    "from losses import compute_loss\n"
    "from model import Net\n"
    "def train(loader):\n"
    "    net = Net()\n"
    "    for x, y in loader:\n"
    "        pred, _ = net(x)\n"
    "        compute_loss(pred, y).backward()\n"
)


def test_a_loss_function_of_another_file_built_on_a_logit_loss(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "train.py").write_text(HELPER_TRAIN)
    for loss, expected in (("binary_cross_entropy_with_logits", [("model.py", 8)]), ("binary_cross_entropy", [])):
        (tmp_path / "losses.py").write_text(HELPER.replace("{loss}", loss))
        result = lint_paths([tmp_path], jobs=1)
        assert [(Path(f.path).name, f.line) for f in result.findings if f.code == "MLD001"] == expected
