"""MLD053 across files (blind split 5's family): a dataset whose sampling method draws from np.random through a
module function of its file, and a training loader of another file, a project's own DataLoader class, with
workers and no worker_init_fn. The finding lands on that loader, where the worker_init_fn goes."""

import textwrap

from .families import project_findings

DATASET = """
    import numpy as np
    from torch.utils.data import IterableDataset


    def crop_at_random(sample, size):
        top = np.random.randint(0, sample.shape[0] - size)
        return sample[top:top + size]


    class TileDataset(IterableDataset):
        def __init__(self, images, size):
            self.images, self.size = images, size

        def __iter__(self):
            for image in self.images:
                yield crop_at_random(image, self.size)
"""

TRAINER = """
    from tiles.data_loader import DataLoader
    from tiles.dataset import TileDataset


    def make_loaders(images, workers):
        train_set = TileDataset(images, 256)
        train_loader = DataLoader(
            dataset=train_set,
            batch_size=8,
            num_workers=workers,
        )
        return train_loader
"""


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path / "tiles", files, "MLD053")


def test_project_loader_without_worker_seed_for_a_dataset_drawing_in_a_helper(tmp_path):
    assert ("trainer.py", 8) in _run(tmp_path, {"dataset.py": DATASET, "trainer.py": TRAINER})


def test_relative_import_of_the_project_loader(tmp_path):
    relative = TRAINER.replace("from tiles.data_loader import DataLoader", "from .data_loader import DataLoader")
    assert ("trainer.py", 8) in _run(tmp_path, {"dataset.py": DATASET, "trainer.py": relative})


def test_library_loader_that_seeds_its_workers_is_quiet(tmp_path):
    monai = TRAINER.replace("from tiles.data_loader import DataLoader", "from monai.data import DataLoader")
    assert _run(tmp_path, {"dataset.py": DATASET, "trainer.py": monai}) == []


def test_worker_init_fn_or_torch_draws_are_quiet(tmp_path):
    seeded = TRAINER.replace("num_workers=workers,", "num_workers=workers, worker_init_fn=seed_worker,")
    assert _run(tmp_path, {"dataset.py": DATASET, "trainer.py": seeded}) == []
    torch_draws = DATASET.replace("np.random.randint(0, sample.shape[0] - size)",
                                  "int(torch.randint(0, sample.shape[0] - size, ()))")
    assert _run(tmp_path, {"dataset.py": "import torch\n" + textwrap.dedent(torch_draws), "trainer.py": TRAINER}) == []
