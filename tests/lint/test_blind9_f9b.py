"""Issue 17, blind split 9: MLD053 weighs draws from NumPy's global RNG by the torch a project runs.

Since PyTorch 1.9 every DataLoader worker reseeds NumPy's global generator from its own base seed, so a Dataset
drawing from `np.random.*` with workers and no worker_init_fn gets different draws in each worker: on the torch
this tool supports (>= 2.2) that is reproducibility hygiene (info), a warning only where the linted project pins
torch below 1.9. A generator object built once on the dataset is copied into every worker and never reseeded:
that stays a warning. The first two tests pin both claims on CPU with torch itself."""

import multiprocessing
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_paths


class GlobalDraws:
    """A map-style dataset drawing from np.random's global state (defined at module level: spawn can pickle it)."""

    def __len__(self):
        return 4

    def __getitem__(self, index):
        return np.random.randint(0, 10**9)


class OwnGenerator(GlobalDraws):
    """The same draws from a generator object made once in __init__ and copied into every worker."""

    def __init__(self):
        self.rng = np.random.RandomState(0)

    def __getitem__(self, index):
        return self.rng.randint(0, 10**9)


def _draws(dataset) -> list[int]:
    torch = pytest.importorskip("torch")
    context = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    loader = torch.utils.data.DataLoader(dataset, batch_size=1, num_workers=2, multiprocessing_context=context)
    return [int(batch[0]) for batch in loader]  # in order: worker 0, worker 1, worker 0, worker 1


def test_torch_reseeds_numpys_global_rng_in_each_worker():
    draws = _draws(GlobalDraws())
    assert len(set(draws)) == 4


def test_torch_does_not_reseed_a_generator_object_copied_into_workers():
    draws = _draws(OwnGenerator())
    assert draws[0] == draws[1] and draws[2] == draws[3]  # each worker repeats the other's sequence


DATASET = """
    import numpy as np
    from torch.utils.data import DataLoader, Dataset

    class Jitter(Dataset):
        def __init__(self, items):
            self.items = items
        def __len__(self):
            return len(self.items)
        def __getitem__(self, i):
            shift = np.random.randint(-4, 5)
            return self.items[i] + shift

    loader = DataLoader(Jitter(list(range(64))), batch_size=8, shuffle=True, num_workers=4)
"""

OWN_GENERATOR = """
    import numpy as np
    from torch.utils.data import DataLoader, Dataset

    class Jitter(Dataset):
        def __init__(self, items, seed=0):
            self.items = items
            self.rng = np.random.default_rng(seed)
        def __len__(self):
            return len(self.items)
        def __getitem__(self, i):
            return self.items[i] + self.rng.integers(-4, 5)

    loader = DataLoader(Jitter(list(range(64))), batch_size=8, shuffle=True, num_workers=4)
"""

# a second file's dataset draws from np.random; the loader is in the training script
AUGMENT = """
    import numpy as np
    from torch.utils.data import Dataset

    class Flips(Dataset):
        def __init__(self, images):
            self.images = images
        def __len__(self):
            return len(self.images)
        def __getitem__(self, i):
            if np.random.rand() < 0.5:
                return self.images[i][:, ::-1]
            return self.images[i]
"""
TRAIN = """
    import torch
    from augment import Flips

    train_set = Flips(load_images("data/train"))
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=32, shuffle=True, num_workers=8)
"""

PINS = {
    "requirements.txt": "numpy\ntorch==1.8.1\ntorchvision==0.9.1\n",
    "requirements-dev.txt": "pytest\ntorch>=1.4,<1.9\n",
    "setup.py": "from setuptools import setup\nsetup(name='x', install_requires=['torch==1.7.0', 'numpy'])\n",
    "environment.yml": "dependencies:\n  - python=3.8\n  - pytorch=1.6.0\n  - numpy\n",
    "pyproject.toml": "[project]\nname = 'x'\ndependencies = ['torch<1.9', 'numpy']\n",
}
# specs that allow torch >= 1.9: the global draws stay info
NO_PIN = {
    "requirements.txt": "torch>=2.2\ntorchvision==0.8.1\npytorch-lightning==1.2.0\n",
    "setup.cfg": "[options]\ninstall_requires =\n    torch<1.10\n",
    "environment.yml": "dependencies:\n  - pytorch=2.1\n",
}


def _lint(folder: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for name, body in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body))
    report = lint_paths([folder], LintSettings(select=("MLD053",)))
    return sorted((Path(f.path).name, f.line, f.severity) for f in report.findings if f.code == "MLD053")


def test_global_draws_in_a_dataset_are_info_on_current_torch(tmp_path):
    assert _lint(tmp_path, {"data.py": DATASET}) == [("data.py", 11, "info")]


def test_global_draws_of_another_file_are_info_at_the_loader(tmp_path):
    assert _lint(tmp_path, {"augment.py": AUGMENT, "train.py": TRAIN}) == [("train.py", 6, "info")]


def test_a_generator_object_on_the_dataset_stays_a_warning(tmp_path):
    assert _lint(tmp_path, {"data.py": OWN_GENERATOR}) == [("data.py", 12, "warning")]


@pytest.mark.parametrize("spec_file", sorted(PINS))
def test_a_project_pinning_torch_below_1_9_keeps_the_warning(tmp_path, spec_file):
    found = _lint(tmp_path, {spec_file: PINS[spec_file], "pkg/data.py": DATASET})
    assert found == [("data.py", 11, "warning")]
    report = lint_paths([tmp_path], LintSettings(select=("MLD053",)))
    assert "below 1.9" in report.findings[0].message


@pytest.mark.parametrize("spec_file", sorted(NO_PIN))
def test_specs_that_allow_new_torch_leave_it_info(tmp_path, spec_file):
    assert _lint(tmp_path, {spec_file: NO_PIN[spec_file], "data.py": DATASET}) == [("data.py", 11, "info")]


def test_a_pin_reaches_the_loader_of_another_file(tmp_path):
    files = {"augment.py": AUGMENT, "train.py": TRAIN, "requirements.txt": "torch==1.8.0\n"}
    assert _lint(tmp_path, files) == [("train.py", 6, "warning")]


# MLD020: a class a star import brings (`ModelCheckpoint(...)`, `EarlyStopping(...)` of `from callbacks import *`)
# is built by the call, not a model run in training mode
STAR_CALLBACKS = {
    "keyword_only": """
        import torch
        from trainer.callbacks import *
        from trainer.core import fit
        model = build_encoder().cuda()
        callbacks = [ModelCheckpoint(filepath="best.pth", monitor="val_acc"), CSVLogger("log.csv")]
        fit(model, torch.optim.Adam(model.parameters()), epochs=10, callbacks=callbacks)
    """,
    "positional_in_a_function": """
        import torch
        from .hooks import *

        def train(model, loader, val_loader):
            hooks = [BestModelSaver(model, "ckpt/best.pt"), ValidationLogger(val_loader, every=1)]
            for x, y in loader:
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
            for hook in hooks:
                hook.after_epoch()
    """,
    "evaluator_object": """
        import torch
        from evaluation.tools import *

        model = torch.load("model.pt")
        model.eval()
        tester = ModelTester(model, test_loader=make_loader("test"))
        print(tester.run())
    """,
    # the cases above were quiet before the star-import rule too; these two are what it mends
    "handed_val_data": """
        import torch
        from trainer.callbacks import *
        model = build().cuda()
        checkpoint = ModelCheckpoint(val_loader, "best.pth")
    """,
    "built_under_no_grad": """
        import torch
        from evaluation.tools import *

        def evaluate(val_loader):
            with torch.no_grad():
                for x, y in val_loader:
                    print(ModelScorer(x))
    """,
}


@pytest.mark.parametrize("case", sorted(STAR_CALLBACKS))
def test_a_star_imported_class_is_built_not_run(tmp_path, case):
    from .families import project_findings

    assert project_findings(tmp_path, {"train.py": STAR_CALLBACKS[case]}, "MLD020") == []
