"""What the files of one run tell each other about value kinds: a model's activation reported in its own file when
another file's logit loss takes its output (fed:<Model>, a parameter named after the class, a trainer's default
loss), and at the loss in the loss's file."""

from pathlib import Path

import pytest

from mldebug_mcp.lint.engine import lint_paths

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

EVALUATOR = (
    "class Evaluator(nn.Module):\n"
    "    def __init__(self, n_in, n_out, hidden=None):\n"
    "        super().__init__()\n"
    "        if hidden is None:\n"
    "            self.block = nn.Sequential(nn.Linear(n_in, n_out), nn.Softmax())\n"
    "        else:\n"
    "            self.block = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, n_out),\n"
    "                                       nn.Softmax())\n"
    "    def forward(self, x):\n"
    "        out = self.block(x)\n"
    "        return out\n"
)
CALLBACK = (
    "class OnlineProbe:\n"
    "    def setup(self, module):\n"
    "        from model import Evaluator\n"
    "        module.probe = Evaluator(8, 3)\n"
    "    def on_batch_end(self, module, x, y):\n"
    "        preds = module.probe(x)\n"
    "        return F.cross_entropy(preds, y)\n"
)
CLASSIFIER = (
    "class Classifier(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(8, 3)\n"
    "    def forward(self, x):\n"
    "        x = self.fc(x)\n"
    "        return F.softmax(x, dim=1)\n"
)
HANDED = (
    "def train(encoder, {name}, loader):\n"
    "    criterion = nn.CrossEntropyLoss()\n"
    "    for x, y in loader:\n"
    "        loss = criterion({name}(encoder(x)), y)\n"
    "        loss.backward()\n"
)
SCORER = (
    "class Attention(nn.Module):\n"
    "    def forward(self, q, k):\n"
    "        energy = q @ k\n"
    "        return F.softmax(energy, dim=-1)\n"
    "class Scorer(nn.Module):\n"
    "    def __init__(self, encoder):\n"
    "        super().__init__()\n"
    "        self.encoder = encoder\n"
    "        self.attention = Attention()\n"
    "        self.final = nn.Softmax()\n"
    "    def forward(self, a, b):\n"
    "        scores = self.encoder(a) @ self.encoder(b).T\n"
    "        return self.final(scores)\n"
)
TRAINER = (
    "class Trainer:\n"
    "    def __init__(self, loss_func=nn.CrossEntropyLoss()):\n"
    "        self.loss_func = loss_func\n"
    "    def _batch(self, model, x, y):\n"
    "        loss = self.loss_func(model(x), y)\n"
    "        loss.backward()\n"
    "    def train(self, model, data):\n"
    "        for x, y in data:\n"
    "            self._batch(model, x, y)\n"
)


def _findings(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    for name, body in files.items():
        (tmp_path / name).write_text(HEADER + body)
    found = []
    for jobs in (1, 2):
        result = lint_paths([tmp_path], jobs=jobs)
        found.append([(Path(f.path).name, f.line) for f in result.findings if f.code == "MLD001"])
    assert found[0] == found[1]
    return found[0]


def test_a_head_of_another_file_is_reported_at_its_softmax_and_at_the_loss(tmp_path):
    found = _findings(tmp_path, {"model.py": EVALUATOR, "probe.py": CALLBACK})
    assert found == [("model.py", 8), ("model.py", 11), ("probe.py", 10)]


@pytest.mark.parametrize(("name", "expected"), [("classifier", [("model.py", 10)]), ("net", [])])
def test_a_model_handed_in_under_its_class_name(tmp_path, name, expected):
    assert _findings(tmp_path, {"model.py": CLASSIFIER, "train.py": HANDED.format(name=name)}) == expected


def test_a_trainer_default_loss_meets_the_models_of_the_run_but_not_their_blocks(tmp_path):
    found = _findings(tmp_path, {"networks.py": SCORER, "trainer.py": TRAINER})
    assert found == [("networks.py", 16)]  # Scorer's final softmax; Attention is a block built inside Scorer


def test_no_trainer_no_finding(tmp_path):
    assert _findings(tmp_path, {"networks.py": SCORER, "model.py": CLASSIFIER}) == []


SEQ2SEQ = (
    "class Decoder(nn.Module):\n"
    "    def __init__(self, hidden, vocab):\n"
    "        super().__init__()\n"
    "        self.out = nn.Linear(hidden, vocab)\n"
    "    def forward(self, x, state):\n"
    "        out = F.log_softmax(self.out(x), dim=1)\n"
    "        return out, state\n"
    "class Seq2Seq(nn.Module):\n"
    "    def __init__(self, encoder, decoder):\n"
    "        super().__init__()\n"
    "        self.encoder, self.decoder = encoder, decoder\n"
    "        self.decoder = decoder\n"
    "    def forward(self, src, steps):\n"
    "        outputs = torch.zeros(steps, src.size(1), 10).cuda()\n"
    "        state = self.encoder(src)\n"
    "        for t in range(steps):\n"
    "            out, state = self.decoder(src[t], state)\n"
    "            outputs[t] = out\n"
    "        return outputs\n"
)
SEQ2SEQ_TRAIN = (
    "from model import Decoder, Seq2Seq\n"
    "def train(model, batches):\n"
    "    for src, trg in batches:\n"
    "        output = model(src, trg.size(0))\n"
    "        loss = F.cross_entropy(output[1:].view(-1, 10), trg[1:].view(-1))\n"
    "        loss.backward()\n"
    "def main(encoder, batches):\n"
    "    model = Seq2Seq(encoder, Decoder(32, 10)).cuda()\n"
    "    train(model, batches)\n"
)


def test_a_model_returns_what_the_module_handed_to_its_constructor_returns(tmp_path):
    # Seq2Seq's output is the decoder's first output slot by slot: the facts say which argument, train.py reads it
    assert _findings(tmp_path, {"model.py": SEQ2SEQ, "train.py": SEQ2SEQ_TRAIN}) == [("train.py", 8)]
    (tmp_path / "train.py").write_text(HEADER + SEQ2SEQ_TRAIN.replace("F.cross_entropy", "F.nll_loss"))
    assert [f for f in lint_paths([tmp_path]).findings if f.code < "MLD004"] == []


DDP_TRAINER = (
    "from torch.nn.parallel import DistributedDataParallel\n"
    "from utils import reseed\n"
    "class Trainer:\n"
    "    def __init__(self, model, train_loader):\n"
    "        self.model = DistributedDataParallel(model)\n"
    "        self.train_loader = train_loader\n"
    "    def run(self, epochs, step):\n"
    "        for epoch in range(epochs):\n"
    "            {reseed}\n"
    "            for batch in self.train_loader:\n"
    "                step(self.model, batch)\n"
)
RESEED = "def reseed(loader, epoch):\n    loader.sampler.set_epoch(epoch)\n"


@pytest.mark.parametrize(("reseed", "expected"), [("pass", [("trainer.py", 12)]),  # before the loader runs
                                                  ("reseed(self.train_loader, epoch)", [])])
def test_ddp_epochs_over_a_loader_built_elsewhere_unless_a_helper_sets_the_epoch(tmp_path, reseed, expected):
    (tmp_path / "trainer.py").write_text(HEADER + DDP_TRAINER.replace("{reseed}", reseed))
    (tmp_path / "utils.py").write_text(HEADER + RESEED)
    for jobs in (1, 2):
        result = lint_paths([tmp_path], jobs=jobs)
        assert [(Path(f.path).name, f.line) for f in result.findings if f.code == "MLD054"] == expected


def test_ddp_epochs_quiet_when_a_per_epoch_function_calls_the_epoch_helper(tmp_path):
    # the epoch loop calls a per-epoch method of its own, which reseeds through the helper of another file
    trainer = DDP_TRAINER.replace("{reseed}", "self.one_epoch(epoch)").replace(
        "    def run(self, epochs, step):\n",
        "    def one_epoch(self, epoch):\n        reseed(self.train_loader, epoch)\n    def run(self, epochs, step):\n")
    (tmp_path / "trainer.py").write_text(HEADER + trainer)
    (tmp_path / "utils.py").write_text(HEADER + RESEED)
    assert [f for f in lint_paths([tmp_path]).findings if f.code == "MLD054"] == []


GESTURE_MODEL = (
    "class GestureNet(nn.Module):\n"
    "    def __init__(self, n_in, n_out):\n"
    "        super().__init__()\n"
    "        self.head = nn.Sequential(nn.Flatten(), nn.Linear(n_in, n_out), nn.Softmax(dim=-1))\n"
    "    def forward(self, x):\n"
    "        return self.head(x)\n"
    "def build_model(cfg):\n"
    "    return GestureNet(cfg.n_in, cfg.n_out)\n"
)
CRITERION_BUILDER = (
    "def build_criterion(cfg):\n"
    "    return nn.{loss}(label_smoothing=cfg.label_smoothing)\n"
)
BUILT_CRITERION_LOOP = (
    "from losses import build_criterion\n"
    "from model import build_model\n"
    "def train(cfg, loader):\n"
    "    model = build_model(cfg)\n"
    "    criterion = build_criterion(cfg)\n"
    "    opt = torch.optim.AdamW(model.parameters())\n"
    "    for x, y in loader:\n"
    "        opt.zero_grad()\n"
    "        loss = criterion(model(x), y)\n"
    "        loss.backward()\n"
    "        opt.step()\n"
)


@pytest.mark.parametrize(("loss", "expected"), [("CrossEntropyLoss", [("model.py", 7)]), ("NLLLoss", [])])
def test_a_criterion_from_a_builder_in_a_third_file(tmp_path, loss, expected):
    """The A/B benchmark's t07 shape: the model ends in a Softmax inside nn.Sequential (model.py), the loss comes from
    `build_criterion(cfg)` of losses.py, and train.py joins them: reported at the Softmax when the builder always
    returns a loss that expects logits."""
    files = {"model.py": GESTURE_MODEL, "losses.py": CRITERION_BUILDER.format(loss=loss),
             "train.py": BUILT_CRITERION_LOOP}
    assert _findings(tmp_path, files) == expected
