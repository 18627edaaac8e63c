"""Data rules across the files of a run (G4, issue 17): a DistributedSampler built in one file whose loader
another file's epoch loop runs (MLD054), and NumPy augmentation draws in one file under a DataLoader of
another file with workers and no worker_init_fn (MLD053); the fixed variants stay quiet."""

from pathlib import Path

from .families import both_ways

LOADERS = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "def make_loaders(train_set, val_set, batch_size):\n"
    "    sampler = torch.utils.data.distributed.DistributedSampler(train_set)\n"
    "    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=sampler)\n"
    "    val_loader = DataLoader(val_set, batch_size=batch_size)\n"
    "    return train_loader, val_loader, sampler\n"
)
# the epoch loop runs the loaders the factory of data.py builds (a loader merely handed in: test_rules_session16_c)
EPOCHS = (
    "from data import make_loaders\n"
    "def run(model, optimizer, train_set, val_set, epochs, step, evaluate):\n"
    "    train_loader, val_loader, sampler = make_loaders(train_set, val_set, 32)\n"
    "    for epoch in range(epochs):\n"
    "        model.train()\n"
    "        step(train_loader, model, optimizer)\n"
    "        evaluate(val_loader, model)\n"
)


def _codes(tmp_path: Path, code: str) -> list[tuple[str, int]]:
    return both_ways(tmp_path, code)


def test_sampler_of_another_file_without_set_epoch(tmp_path):
    (tmp_path / "data.py").write_text(LOADERS)
    (tmp_path / "loop.py").write_text(EPOCHS)
    assert _codes(tmp_path, "MLD054") == [("loop.py", 5)]  # before the statement that runs the loader


def test_set_epoch_in_the_loop_or_anywhere_else_is_quiet(tmp_path):
    (tmp_path / "data.py").write_text(LOADERS)
    (tmp_path / "loop.py").write_text(EPOCHS.replace("        model.train()\n",
                                                     "        model.train()\n        sampler.set_epoch(epoch)\n"))
    assert _codes(tmp_path, "MLD054") == []
    (tmp_path / "loop.py").write_text(EPOCHS)
    (tmp_path / "hooks.py").write_text("def before_epoch(runner):\n    runner.loader.sampler.set_epoch(runner.epoch)\n")
    assert _codes(tmp_path, "MLD054") == []


def test_sampler_that_does_not_shuffle_is_quiet(tmp_path):
    (tmp_path / "data.py").write_text(LOADERS.replace("(train_set)", "(train_set, shuffle=False)"))
    (tmp_path / "loop.py").write_text(EPOCHS)
    assert _codes(tmp_path, "MLD054") == []


def test_per_epoch_method_over_a_dict_of_loaders(tmp_path):
    (tmp_path / "data.py").write_text(LOADERS)
    (tmp_path / "data.py").write_text(LOADERS + (
        "def get_loaders(train_set, val_set):\n"
        "    train, val, _ = make_loaders(train_set, val_set, 32)\n"
        "    return {'train': train, 'valid': val}\n"))
    (tmp_path / "runner.py").write_text(
        "from data import get_loaders\n"
        "class Runner:\n"
        "    def run_epoch(self, loaders):\n"
        "        for name in loaders:\n"
        "            self.model.train(name.startswith('train'))\n"
        "            self.on_loader_start(name)\n"
        "            self.run_loader(loaders[name])\n"
        "    def run(self, epochs):\n"
        "        loaders = get_loaders(self.train_set, self.val_set)\n"
        "        for epoch in range(epochs):\n"
        "            self.run_epoch(loaders)\n"
    )
    assert _codes(tmp_path, "MLD054") == [("runner.py", 6)]


DATASET = (
    "import numpy as np\n"
    "from torch.utils.data import Dataset\n"
    "class Patches(Dataset):\n"
    "    def __init__(self, volumes):\n"
    "        self.volumes = volumes\n"
    "    def __len__(self):\n"
    "        return len(self.volumes)\n"
    "    def __getitem__(self, index):\n"
    "        z = {draw}\n"
    "        return self.volumes[index][z:z + 16]\n"
)
TRAIN = (
    "from torch.utils.data import DataLoader\n"
    "from datasets import Patches\n"
    "def main(args, volumes, val_volumes):\n"
    "    train_loader = DataLoader(Patches(volumes), batch_size=8, shuffle=True, num_workers=args.workers{extra})\n"
    "    val_loader = DataLoader(Patches(val_volumes), batch_size=1, num_workers=2)\n"
    "    return train_loader, val_loader\n"
)


def test_numpy_draws_of_a_dataset_in_another_file(tmp_path):
    (tmp_path / "datasets.py").write_text(DATASET.replace("{draw}", "np.random.randint(0, 16)"))
    (tmp_path / "train.py").write_text(TRAIN.replace("{extra}", ""))
    assert _codes(tmp_path, "MLD053") == [("train.py", 4)]  # the train loader, where worker_init_fn goes


def test_worker_seed_no_workers_or_torch_draws_are_quiet(tmp_path):
    (tmp_path / "datasets.py").write_text(DATASET.replace("{draw}", "np.random.randint(0, 16)"))
    for extra in (", worker_init_fn=seed_worker", ", **loader_kwargs"):
        (tmp_path / "train.py").write_text(TRAIN.replace("{extra}", extra))
        assert _codes(tmp_path, "MLD053") == []
    (tmp_path / "train.py").write_text(TRAIN.replace("{extra}", "").replace("num_workers=args.workers", "num_workers=0"))
    assert _codes(tmp_path, "MLD053") == []
    (tmp_path / "datasets.py").write_text(DATASET.replace("{draw}", "int(torch.randint(0, 16, (), generator=self.g))"))
    (tmp_path / "train.py").write_text(TRAIN.replace("{extra}", ""))
    assert _codes(tmp_path, "MLD053") == []


def test_augmentation_functions_and_library_generators_of_another_file(tmp_path):
    (tmp_path / "transforms.py").write_text(
        "import numpy as np\n"
        "def random_crop(image, size):\n"
        "    top = np.random.randint(0, image.shape[0] - size)\n"
        "    return image[top:top + size]\n")
    (tmp_path / "loaders.py").write_text(
        "import torch\n"
        "def build_loader(dataset, cfg):\n"
        "    return torch.utils.data.DataLoader(dataset, batch_size=cfg.batch, shuffle=True, num_workers=cfg.workers)\n")
    assert _codes(tmp_path, "MLD053") == [("loaders.py", 3)]
    (tmp_path / "transforms.py").write_text(
        "from monai import transforms as mt\n"
        "class Augment:\n"
        "    def __init__(self):\n"
        "        self.flip = mt.RandFlip(prob=0.5, spatial_axis=0)\n"
        "    def __call__(self, image):\n"
        "        return self.flip(image)\n")
    assert _codes(tmp_path, "MLD053") == [("loaders.py", 3)]
    (tmp_path / "transforms.py").write_text(
        "import numpy as np\n"
        "def random_crop(image, size):\n"
        "    top = np.random.randint(0, image.shape[0] - size)\n"
        "    return image[top:top + size]\n"
        "def seed_worker(worker_id):\n"
        "    np.random.seed(torch.initial_seed() % 2 ** 32)\n")
    assert _codes(tmp_path, "MLD053") == []  # the file that draws also seeds NumPy per worker


def test_train_dl_of_another_file(tmp_path):
    (tmp_path / "data.py").write_text(LOADERS)
    (tmp_path / "loop.py").write_text(
        "from data import make_loaders\n"
        "def fit(model, train_set, val_set, epochs, train_one_epoch):\n"
        "    train_dl, _, _ = make_loaders(train_set, val_set, 32)\n"
        "    for epoch in range(epochs):\n"
        "        train_one_epoch(model, train_dl)\n")
    assert _codes(tmp_path, "MLD054") == [("loop.py", 5)]  # the runner comes first: right there


def test_library_augmentations_built_next_to_the_loader(tmp_path):
    module = (
        "from lhotse.dataset import CutMix, K2SpeechRecognitionDataset\n"
        "from torch.utils.data import DataLoader\n"
        "def train_dataloader(cuts, sampler, args):\n"
        "    train = K2SpeechRecognitionDataset(cut_transforms=[CutMix(cuts=args.musan, p=0.5)])\n"
        "    train_dl = DataLoader(train, sampler=sampler, batch_size=None, num_workers=args.num_workers{extra})\n"
        "    valid_dl = DataLoader(K2SpeechRecognitionDataset(), sampler=sampler, num_workers=2)\n"
        "    return train_dl, valid_dl\n"
    )
    (tmp_path / "datamodule.py").write_text(module.replace("{extra}", ""))
    assert _codes(tmp_path, "MLD053") == [("datamodule.py", 5)]
    (tmp_path / "datamodule.py").write_text(module.replace("{extra}", ", worker_init_fn=worker_init_fn"))
    assert _codes(tmp_path, "MLD053") == []


def test_facts_reach_only_the_files_of_their_own_project(tmp_path):
    """Issue 17: a folder holding several projects; one project's draws, DistributedSampler and set_epoch are
    not told to the loaders and epoch loops of another."""
    (tmp_path / "proj_a").mkdir()
    (tmp_path / "proj_b").mkdir()
    (tmp_path / "proj_a" / "datasets.py").write_text(DATASET.replace("{draw}", "np.random.randint(0, 16)"))
    (tmp_path / "proj_a" / "data.py").write_text(LOADERS)
    (tmp_path / "proj_b" / "train.py").write_text(
        "from torch.utils.data import DataLoader\n"
        "from torchvision.datasets import CIFAR10\n"
        "from utils import make_set\n"
        "def main(args):\n"
        "    train_loader = DataLoader(make_set(args), batch_size=8, shuffle=True, num_workers=4)\n"
        "    return train_loader\n")
    (tmp_path / "proj_b" / "loop.py").write_text(EPOCHS)
    assert _codes(tmp_path, "MLD053") == []
    assert _codes(tmp_path, "MLD054") == []
    # the same files inside one project still tell each other
    (tmp_path / "proj_b" / "datasets.py").write_text(DATASET.replace("{draw}", "np.random.randint(0, 16)"))
    (tmp_path / "proj_b" / "data.py").write_text(LOADERS)
    assert _codes(tmp_path, "MLD053") == [("train.py", 5)]
    assert _codes(tmp_path, "MLD054") == [("loop.py", 5)]


def test_a_package_imported_from_a_script_folder_tells_its_draws(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "pkg" / "datasets.py").write_text(DATASET.replace("{draw}", "np.random.randint(0, 16)"))
    (tmp_path / "scripts" / "train.py").write_text(TRAIN.replace("{extra}", "").replace(
        "from datasets import Patches", "from pkg.datasets import Patches"))
    assert _codes(tmp_path, "MLD053") == [("train.py", 4)]


def test_loaders_of_other_dataset_classes_are_quiet(tmp_path):
    """The draw is in Patches' sampling: a loader over torchvision's CIFAR10 (or a split of another class of the
    project) never runs it; one over a split of Patches, or a dataset this file cannot name, may."""
    (tmp_path / "datasets.py").write_text(DATASET.replace("{draw}", "np.random.randint(0, 16)")
                                          + "class Plain(Dataset):\n    def __getitem__(self, i):\n        return i\n")
    train = (
        "from torch.utils.data import DataLoader, random_split\n"
        "from torchvision.datasets import CIFAR10\n"
        "from datasets import Patches, Plain\n"
        "def main(args, volumes, make):\n"
        "    extra, _ = random_split({other}, [10, 20])\n"
        "    train_loader = DataLoader(CIFAR10('data') + extra, batch_size=8, shuffle=True, num_workers=4)\n"
        "    return train_loader\n")
    (tmp_path / "train.py").write_text(train.replace("{other}", "Plain()"))
    assert _codes(tmp_path, "MLD053") == []
    (tmp_path / "train.py").write_text(train.replace("{other}", "Patches(volumes)"))
    assert _codes(tmp_path, "MLD053") == [("train.py", 6)]
    (tmp_path / "train.py").write_text(train.replace("{other}", "make(args)"))
    assert _codes(tmp_path, "MLD053") == [("train.py", 6)]


def test_a_batch_sampler_draws_in_the_main_process(tmp_path):
    """np.random.permutation in a (batch) sampler's __iter__ runs in the main process: workers get indices."""
    (tmp_path / "data.py").write_text(
        "import numpy as np\n"
        "from torch.utils.data.sampler import Sampler\n"
        "def iterate_once(indices):\n"
        "    return np.random.permutation(indices)\n"
        "class TwoStreamBatchSampler(Sampler):\n"
        "    def __iter__(self):\n"
        "        return iter(iterate_once(self.primary))\n")
    (tmp_path / "main.py").write_text(
        "import torch\n"
        "from data import TwoStreamBatchSampler\n"
        "def main(dataset, args):\n"
        "    sampler = TwoStreamBatchSampler()\n"
        "    train_loader = torch.utils.data.DataLoader(dataset, batch_sampler=sampler, num_workers=args.workers)\n"
        "    return train_loader\n")
    assert _codes(tmp_path, "MLD053") == []
