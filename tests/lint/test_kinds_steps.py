"""What one file tells another about training steps and loaders: a step of another file that returns what it
backwarded (MLD032 in the caller's running sums), and the set_epoch variants of MLD054's endless generator and
wrapped loader that must stay quiet."""

from pathlib import Path

from mldebug_mcp.lint.engine import lint_paths

TRAINER = (
    "class Trainer:\n"
    "    def __init__(self, model, optimizer):\n"
    "        self.model, self.optimizer = model, optimizer\n"
    "    def train_step(self, images, targets):\n"
    "        self.optimizer.zero_grad()\n"
    "        losses = self.model(images, targets)\n"
    "        losses.total.backward()\n"
    "        self.optimizer.step()\n"
    "        return {returned}\n"
)
FIT = (
    "def fit_one_epoch(trainer, loader):\n"
    "    epoch_loss = 0\n"
    "    for images, targets in loader:\n"
    "        cls_part, box_part, total = trainer.train_step(images, targets)\n"
    "        epoch_loss += total\n"
    "    return epoch_loss\n"
)


def _codes(tmp_path: Path, code: str) -> list[tuple[str, int]]:
    lines = []
    for jobs in (1, 2):
        result = lint_paths([tmp_path], jobs=jobs)
        lines.append([(Path(f.path).name, f.line) for f in result.findings if f.code == code])
    assert lines[0] == lines[1]
    return lines[0]


def test_running_sum_of_what_another_files_step_backwarded(tmp_path):
    (tmp_path / "trainer.py").write_text(TRAINER.replace("{returned}", "losses"))
    (tmp_path / "train.py").write_text(FIT)
    assert _codes(tmp_path, "MLD032") == [("train.py", 5)]


def test_a_step_that_returns_numbers_stays_quiet(tmp_path):
    (tmp_path / "trainer.py").write_text(TRAINER.replace("{returned}", "[v.item() for v in losses]"))
    (tmp_path / "train.py").write_text(FIT)
    assert _codes(tmp_path, "MLD032") == []


ENDLESS = (
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "def endless(loader, sampler):\n"
    "    epoch = 0\n"
    "    while True:\n"
    "        sampler.set_epoch(epoch)\n"
    "        for batch in loader:\n"
    "            yield batch\n"
    "        epoch += 1\n"
    "def launch(dataset, step, total):\n"
    "    sampler = DistributedSampler(dataset, shuffle=True)\n"
    "    batches = endless(DataLoader(dataset, sampler=sampler), sampler)\n"
    "    for _ in range(total):\n"
    "        step(next(batches))\n"
)
WRAPPED = (
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "def run(backend, model, dataset, step, epochs):\n"
    "    sampler = DistributedSampler(dataset)\n"
    "    loader = DataLoader(dataset, sampler=sampler)\n"
    "    wrapped_model, wrapped_loader = backend.wrap(model=model, data=loader)\n"
    "    for epoch in range(epochs):\n"
    "        sampler.set_epoch(epoch)\n"
    "        for batch in wrapped_loader:\n"
    "            step(wrapped_model, batch)\n"
)


def test_set_epoch_in_the_endless_generator_or_the_epoch_loop_stays_quiet(tmp_path):
    (tmp_path / "endless.py").write_text(ENDLESS)
    (tmp_path / "wrapped.py").write_text(WRAPPED)
    assert _codes(tmp_path, "MLD054") == []
    (tmp_path / "endless.py").write_text(ENDLESS.replace("        sampler.set_epoch(epoch)\n", ""))
    (tmp_path / "wrapped.py").write_text(WRAPPED.replace("        sampler.set_epoch(epoch)\n", ""))
    assert sorted(_codes(tmp_path, "MLD054")) == [("endless.py", 4), ("wrapped.py", 6)]


LIGHTNING = (
    "import torch.nn.functional as F\n"
    "import pytorch_lightning as pl\n"
    "class Lit(pl.LightningModule):\n"
    "    def __init__(self, net):\n"
    "        super().__init__()\n"
    "        self.net = net\n"
    "        self.step_losses = []\n"
    "    def training_step(self, batch, batch_idx):\n"
    "        x, y = batch\n"
    "        loss = F.cross_entropy(self.net(x), y)\n"
    "        self.step_losses.append({kept})\n"
    "        return loss\n"
)


def test_a_lightning_training_step_keeping_its_loss_on_self(tmp_path):
    (tmp_path / "lit.py").write_text(LIGHTNING.replace("{kept}", "loss"))
    assert _codes(tmp_path, "MLD032") == [("lit.py", 11)]
    (tmp_path / "lit.py").write_text(LIGHTNING.replace("{kept}", "loss.detach()"))
    assert _codes(tmp_path, "MLD032") == []


BUILDER = (
    "from torch.utils.data import DataLoader, DistributedSampler\n"
    "def make_loader(dataset, rank, world, shuffle):\n"
    "    return DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset, world, rank, shuffle={shuffle}))\n"
)
CYCLER = (
    "def cycle(dataloader):\n"
    "    epoch = 0\n"
    "    while True:\n"
    "{reseed}"
    "        yield from dataloader\n"
    "        epoch += 1\n"
)


def test_an_endless_cycler_of_a_loader_another_file_shards(tmp_path):
    (tmp_path / "loaders.py").write_text(BUILDER.replace("{shuffle}", "shuffle"))
    (tmp_path / "utils.py").write_text(CYCLER.replace("{reseed}", ""))
    assert _codes(tmp_path, "MLD054") == [("utils.py", 3)]
    (tmp_path / "utils.py").write_text(CYCLER.replace("{reseed}", "        dataloader.sampler.set_epoch(epoch)\n"))
    assert _codes(tmp_path, "MLD054") == []
    (tmp_path / "utils.py").write_text(CYCLER.replace("{reseed}", ""))
    (tmp_path / "loaders.py").write_text(BUILDER.replace("{shuffle}", "False"))
    assert _codes(tmp_path, "MLD054") == []


SUMMED = (
    "import pytorch_lightning as pl\n"
    "class Lit(pl.LightningModule):\n"
    "    def training_step(self, batch, batch_idx):\n"
    "        loss = 0.0\n"
    "        for view in batch:\n"
    "            loss += self.criterion(self(view), view) / len(batch)\n"
    "        return loss\n"
)


def test_a_lightning_step_summing_the_loss_it_returns_stays_quiet(tmp_path):
    (tmp_path / "lit.py").write_text(SUMMED)
    assert _codes(tmp_path, "MLD032") == []
