"""Losses chosen among logit losses and kept on an arguments or config object, read in another file of the run
(MLD001, blind split 5): `args.loss_fn = ...` in run.py, `args.loss_fn(torch.sigmoid(out), y)` in traintest.py."""

from pathlib import Path

from .families import project_findings

RUN = (
    "import torch.nn as nn\n"
    "from traintest import validate\n"
    "def main(args, model, loader):\n"
    "    if args.multilabel:\n"
    "        args.criterion = nn.BCEWithLogitsLoss()\n"
    "    else:\n"
    "        args.criterion = nn.CrossEntropyLoss()\n"
    "    return validate(model, loader, args)\n"
)
MIXED = RUN.replace("nn.CrossEntropyLoss()", "nn.BCELoss()")
VALIDATE = (
    "import torch\n"
    "def validate(model, loader, args):\n"
    "    total = 0.0\n"
    "    for x, y in loader:\n"
    "        probs = torch.sigmoid(model(x))\n"
    "        total += args.criterion(probs, y).item()\n"
    "    return total\n"
)


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD001")


def test_loss_stored_on_arguments_by_another_file(tmp_path):
    assert _findings(tmp_path, {"run.py": RUN, "traintest.py": VALIDATE}) == [("traintest.py", 5)]


def test_a_branch_that_is_not_a_logit_loss_stays_quiet(tmp_path):
    assert _findings(tmp_path, {"run.py": MIXED, "traintest.py": VALIDATE}) == []


def test_logits_handed_to_the_stored_loss_stay_quiet(tmp_path):
    quiet = VALIDATE.replace("torch.sigmoid(model(x))", "model(x)")
    assert _findings(tmp_path, {"run.py": RUN, "traintest.py": quiet}) == []


UNET = (
    "import torch.nn as nn\n"
    "import torch.nn.functional as F\n"
    "class SegNet(nn.Module):\n"
    "    def __init__(self, num_classes):\n"
    "        super().__init__()\n"
    "        self.num_classes = num_classes\n"
    "        self.final = nn.Conv2d(16, num_classes, 1)\n"
    "    def forward(self, x):\n"
    "        if self.num_classes > 1:\n"
    "            return F.log_softmax(self.final(x), dim=1)\n"
    "        return self.final(x)\n"
)
TRAIN = (
    "import torch.nn as nn\n"
    "from unet import SegNet\n"
    "def fit(loader):\n"
    "    model = SegNet(5)\n"
    "    criterion = nn.CrossEntropyLoss()\n"
    "    for x, y in loader:\n"
    "        criterion(model(x), y).backward()\n"
)


def test_class_count_branch_of_another_files_model(tmp_path):
    assert _findings(tmp_path, {"unet.py": UNET, "train.py": TRAIN}) == [("unet.py", 10)]


def test_training_branch_of_another_files_model_stays_quiet(tmp_path):
    inference = UNET.replace("self.num_classes > 1", "not self.training")
    assert _findings(tmp_path, {"unet.py": inference, "train.py": TRAIN}) == []
