"""MLD053: generators owned by objects that run in DataLoader workers (a mask function's RandomState, a
dataset's generator inherited from a seeding base class, a transform's random.Random built in a setup method)
are copied into every worker; the loader without a worker_init_fn is flagged. Fresh per-call generators,
objects that never run in workers and reseeded loaders stay quiet."""

from pathlib import Path

from mldebug_mcp.lint.engine import lint_paths

LOADER = (
    "import torch\n"
    "def make_loader(dataset, cfg):\n"
    "    return torch.utils.data.DataLoader(dataset=dataset, batch_size=cfg.batch, num_workers=cfg.workers{extra})\n"
)
PLAIN_LOADER = LOADER.replace("{extra}", "")  # workers, no worker_init_fn
MASKS = (
    "import numpy as np\n"
    "class LineMask:\n"
    "    def __init__(self, fraction):\n"
    "        self.fraction = fraction\n"
    "        self.state = np.random.RandomState()\n"
    "    def __call__(self, shape):\n"
    "        return self.state.uniform(size=shape[-1]) < self.fraction\n"
)


def _lines(tmp_path: Path) -> list[tuple[str, int]]:
    result = lint_paths([tmp_path], jobs=1)
    return [(Path(f.path).name, f.line) for f in result.findings if f.code == "MLD053"]


def test_mask_function_owning_a_random_state(tmp_path):
    (tmp_path / "masks.py").write_text(MASKS)
    (tmp_path / "data.py").write_text(PLAIN_LOADER)
    assert _lines(tmp_path) == [("data.py", 3)]
    (tmp_path / "data.py").write_text(LOADER.replace("{extra}", ", worker_init_fn=reseed_masks"))
    assert _lines(tmp_path) == []


def test_dataset_drawing_from_an_inherited_generator(tmp_path):
    (tmp_path / "seeding.py").write_text(
        "import numpy as np\n"
        "class Seeded:\n"
        "    def __init__(self, seed=0):\n"
        "        self.reseed(seed)\n"
        "    def reseed(self, seed):\n"
        "        self.np_rng = np.random.default_rng(seed)\n")
    (tmp_path / "signals.py").write_text(
        "from torch.utils.data import Dataset\n"
        "from seeding import Seeded\n"
        "class NoisySignals(Dataset, Seeded):\n"
        "    def __init__(self, n, **kw):\n"
        "        Seeded.__init__(self, **kw)\n"
        "        self.n = n\n"
        "    def __len__(self):\n"
        "        return self.n\n"
        "    def __getitem__(self, i):\n"
        "        return self.np_rng.normal(size=128)\n")
    (tmp_path / "data.py").write_text(PLAIN_LOADER)
    assert _lines(tmp_path) == [("data.py", 3)]


def test_transform_building_its_generator_in_a_setup_method(tmp_path):
    (tmp_path / "augment.py").write_text(
        "import random\n"
        "class Jitter:\n"
        "    def __init__(self, seed):\n"
        "        self.reset(seed)\n"
        "    def reset(self, seed):\n"
        "        self.draws = random.Random(seed)\n"
        "    def __call__(self, x):\n"
        "        return x * self.draws.uniform(0.9, 1.1)\n"
        "def build(dataset, cfg):\n"
        "    import torch\n"
        "    return torch.utils.data.DataLoader(dataset, batch_size=8, num_workers=cfg.workers)\n")
    assert _lines(tmp_path) == [("augment.py", 11)]  # the same file's transform: flagged at its loader


def test_fresh_generators_and_objects_outside_workers_are_quiet(tmp_path):
    (tmp_path / "masks.py").write_text(
        "import numpy as np\n"
        "class LineMask:\n"
        "    def __call__(self, shape, seed=None):\n"
        "        state = np.random.RandomState(seed)\n"
        "        return state.uniform(size=shape[-1]) < 0.25\n"
        "class Trainer:\n"
        "    def __init__(self):\n"
        "        self.rng = np.random.default_rng(0)\n"
        "    def pick_batch(self, n):\n"
        "        return self.rng.integers(0, n)\n")
    (tmp_path / "data.py").write_text(PLAIN_LOADER)
    assert _lines(tmp_path) == []


def test_module_level_generator_drawn_by_a_transform(tmp_path):
    (tmp_path / "augment.py").write_text(
        "import numpy as np\n"
        "NOISE = np.random.default_rng(1234)\n"
        "class AddNoise:\n"
        "    def __call__(self, x):\n"
        "        return x + NOISE.normal(0.0, 0.05, size=x.shape)\n")
    (tmp_path / "data.py").write_text(PLAIN_LOADER)
    assert _lines(tmp_path) == [("data.py", 3)]
    (tmp_path / "augment.py").write_text(
        "import numpy as np\n"
        "NOISE = np.random.default_rng(1234)\n"
        "def sample_noise_table(n):\n"
        "    return NOISE.normal(0.0, 0.05, size=n)\n")
    assert _lines(tmp_path) == []  # drawn once, by a function no worker runs per sample


def test_one_off_draws_made_for_the_constructor_are_quiet(tmp_path):
    (tmp_path / "folds.py").write_text(
        "import numpy as np\n"
        "from torch.utils.data import Dataset\n"
        "class Folds(Dataset):\n"
        "    def __init__(self, items, seed=0):\n"
        "        self.rng = np.random.default_rng(seed)\n"
        "        self.items = items\n"
        "        self.order = self._shuffled()\n"
        "    def _shuffled(self):\n"
        "        return self.rng.permutation(len(self.items))\n"
        "    def __len__(self):\n"
        "        return len(self.items)\n"
        "    def __getitem__(self, i):\n"
        "        return self.items[self.order[i]]\n")
    (tmp_path / "data.py").write_text(PLAIN_LOADER)
    assert _lines(tmp_path) == []


def test_generator_built_by_a_base_class_drawn_in_a_subclass(tmp_path):
    (tmp_path / "masks.py").write_text(
        "import numpy as np\n"
        "class BaseMask:\n"
        "    def __init__(self, fraction):\n"
        "        self.fraction = fraction\n"
        "        self.state = np.random.RandomState()\n"
        "    def __call__(self, shape):\n"
        "        raise NotImplementedError\n"
        "class ColumnMask(BaseMask):\n"
        "    def __call__(self, shape):\n"
        "        return self.state.uniform(size=shape[-1]) < self.fraction\n")
    (tmp_path / "data.py").write_text(PLAIN_LOADER)
    assert _lines(tmp_path) == [("data.py", 3)]
