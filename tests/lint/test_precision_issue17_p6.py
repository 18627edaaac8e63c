"""Issue 17 (held-out precision sample), task P6: families of false alarms on real code that a fixture under
tests/lint/fixtures/ cannot show: those that depend on the file being a test module (by its own name), on
facts another file of the project tells (datasets of random draws, datasets that shuffle themselves, augmentation
functions), or on the whole file (no step anywhere); with the value-told scaler of MLD063 beside them."""

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source


def _lines(source: str, code: str, path: str) -> list[int]:
    return [f.line for f in lint_source(source, path, LintSettings(select=(code,))) if f.code == code]


RELATIVE_ERROR = '''
import torch


def relative_error(actual, expected):
    return ((actual - expected).norm() / (actual + expected).norm()).item()


def test_advantages_match(trainer, rewards):
    adv = (rewards - rewards.mean()) / rewards.std()
    assert torch.allclose(trainer.advantages(rewards), adv)
'''

TRAINING_TEST = RELATIVE_ERROR + '''

def test_ppo_step(model, opt, rewards):
    adv = (rewards - rewards.mean()) / rewards.std()
    (model(adv) ** 2).mean().backward()
    opt.step()
'''


def test_mld062_quiet_in_a_test_module_that_trains_nothing():
    assert _lines(RELATIVE_ERROR, "MLD062", "tests/test_kernels.py") == []
    assert _lines(RELATIVE_ERROR, "MLD062", "ppo/check_test.py") == []
    assert _lines(RELATIVE_ERROR, "MLD062", "ppo/advantages.py") == [10]


def test_mld062_fires_in_a_test_module_that_steps_an_optimiser():
    assert _lines(TRAINING_TEST, "MLD062", "tests/test_ppo.py") == [10, 15]


KERNEL_TEST = '''
import torch
import torch.nn.functional as F


class TestFusedConv:
    def test_matches_reference(self):
        with torch.autocast("cuda", dtype=torch.float16):
            out = fused_conv_relu(self.x, self.weight)
            loss = (out.float() ** 2).mean()
        loss.backward()
        with torch.cuda.amp.autocast():
            ref = F.relu(self.conv(self.x_ref))
        (ref ** 2).mean().backward()
        torch.testing.assert_close(out, ref)


def check_grad(layer, x):
    with torch.amp.autocast("cuda", dtype=torch.half):
        y = layer(x)
    y.sum().backward()
    return x.grad
'''

TRAINING_KERNEL_TEST = KERNEL_TEST + '''

def test_few_steps(model, opt, x):
    for _ in range(3):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(x).mean()
        loss.backward()
        opt.step()
'''


def test_mld063_quiet_in_a_test_module_that_trains_nothing():
    assert _lines(KERNEL_TEST, "MLD063", "tests/test_fused_conv.py") == []
    assert _lines(KERNEL_TEST, "MLD063", "kernels/fused_conv.py") == [8, 12, 19]


def test_mld063_fires_in_a_test_module_that_steps_an_optimiser():
    assert _lines(TRAINING_KERNEL_TEST, "MLD063", "tests/test_fused_conv.py") == [8, 12, 19, 27]


RANDOM_DATASETS = '''
import torch
from torch.utils.data import Dataset, IterableDataset


class NoiseImages(Dataset):
    def __init__(self, n=64, shape=(3, 8, 8)):
        self.n, self.shape = n, shape
        self.images = None
        self.labels = None

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.images is None:
            self.images = torch.randn(self.n, *self.shape)
            self.labels = torch.randint(0, 10, (self.n,))
        return self.images[i], self.labels[i]


class NoiseImagesOnDevice(NoiseImages):
    pass


class EndlessTokens(IterableDataset):
    def __iter__(self):
        while True:
            yield torch.randint(0, 100, (16,))


class FileImages(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __getitem__(self, i):
        x = torch.load(self.paths[i])
        return x + 0.01 * torch.randn_like(x), 0
'''

SMOKE_TESTS = '''
from torch.utils.data import DataLoader
from common.datasets import EndlessTokens, FileImages, NoiseImages, NoiseImagesOnDevice


def test_fit(trainer_cls, model):
    train_loader = DataLoader(NoiseImages(n=8), batch_size=4)
    train_dl = DataLoader(dataset=NoiseImagesOnDevice())
    stream_train = DataLoader(EndlessTokens(), batch_size=2)
    trainer_cls(model=model, train_dataloader=train_loader).fit()
    trainer_cls(model=model, train_dataloader=train_dl).fit()
    trainer_cls(model=model, train_dataloader=stream_train).fit()


def test_fit_files(trainer_cls, model, paths):
    train_loader = DataLoader(FileImages(paths), batch_size=4)
    trainer_cls(model=model, train_dataloader=train_loader).fit()
'''


def test_mld050_quiet_on_datasets_of_random_draws_defined_in_another_file(tmp_path):
    from .families import project_findings

    files = {"common/datasets.py": RANDOM_DATASETS, "common/__init__.py": "", "tests/test_fit.py": SMOKE_TESTS}
    assert project_findings(tmp_path, files, "MLD050") == [("test_fit.py", 16)]


SELF_SHUFFLING = '''
import numpy as np
from torch.utils.data import Dataset


class GroupedTrainSet(Dataset):
    def __init__(self, records):
        self.records = records
        self.shuffled = False

    def __getitem__(self, i):
        if not self.shuffled:
            np.random.shuffle(self.records)
            self.shuffled = True
        return self.records[i]
'''

GROUPED_TRAIN = '''
import torch
from data.grouped import GroupedTrainSet


def main(records, model, opt):
    train_set = GroupedTrainSet(records)
    loader_train = torch.utils.data.DataLoader(train_set, batch_size=2, shuffle=False)
    for batch in loader_train:
        opt.zero_grad()
        model(batch).mean().backward()
        opt.step()
'''


def test_mld050_quiet_on_a_dataset_that_shuffles_its_own_samples_in_another_file(tmp_path):
    from .families import project_findings

    files = {"data/grouped.py": SELF_SHUFFLING, "data/__init__.py": "", "train.py": GROUPED_TRAIN}
    assert project_findings(tmp_path, files, "MLD050") == []
    files["data/grouped.py"] = SELF_SHUFFLING.replace("np.random.shuffle(self.records)", "self.records.sort()")
    assert project_findings(tmp_path / "b", files, "MLD050") == [("train.py", 8)]


REFERENCE_ENTROPY = '''
import torch


def test_entropy_matches(entropy_from_logits):
    logits = torch.randn(4, 16)
    p = logits.softmax(-1)
    expected = -torch.sum(p * p.log(), dim=-1)
    torch.testing.assert_close(entropy_from_logits(logits), expected)
'''


def test_mld061_quiet_on_a_test_modules_reference_value():
    assert _lines(REFERENCE_ENTROPY, "MLD061", "tests/test_entropy.py") == []
    assert _lines(REFERENCE_ENTROPY, "MLD061", "metrics/entropy.py") == [8]


AUGMENT = '''
import numpy as np


def random_flip(img):
    return img[:, ::-1] if np.random.rand() < 0.5 else img
'''

LIBRARY_LOADERS = '''
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from common.datasets import NoiseImages


def loaders(root, custom_train_set):
    plain = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    train_set = datasets.MNIST(root, train=True, download=True, transform=plain)
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)
    noise_train_loader = DataLoader(NoiseImages(), batch_size=64, shuffle=True, num_workers=4)
    flipped = datasets.MNIST(root, train=True, transform=lambda x: x[:, ::-1])
    flip_train_loader = DataLoader(flipped, batch_size=64, shuffle=True, num_workers=4)
    custom_train_loader = DataLoader(custom_train_set, batch_size=64, shuffle=True, num_workers=4)
    return train_loader, noise_train_loader, flip_train_loader, custom_train_loader
'''


def test_mld053_augmentation_draws_do_not_reach_library_datasets_or_random_samples(tmp_path):
    from .families import project_findings

    files = {"common/datasets.py": RANDOM_DATASETS, "common/__init__.py": "", "common/augment.py": AUGMENT,
             "train.py": LIBRARY_LOADERS}
    assert project_findings(tmp_path, files, "MLD053") == [("train.py", 13), ("train.py", 14)]


PROFILER = '''
import time


def profile_ops(x, ops, n=10):
    results = []
    for m in ops:
        try:
            t0 = time.time()
            y = m(x)
            y.sum().backward()
            results.append(time.time() - t0)
        except Exception:
            results.append(float("nan"))
    return results


class GradProbe:
    def backward_ok(self, module, x):
        try:
            module(x).mean().backward()
            return True
        except Exception:
            return False
'''

TRAINER = PROFILER + '''

def train(model, opt, loader):
    for x, y in loader:
        try:
            model(x).sub(y).pow(2).mean().backward()
        except Exception:
            continue
        opt.step()
'''


def test_mld071_quiet_on_backward_in_a_file_that_never_steps():
    assert _lines(PROFILER, "MLD071", "utils/profiling.py") == []
    assert _lines(TRAINER, "MLD071", "train.py") == [13, 23, 31]


HANDED_SCALER = '''
import torch


def fit(net, o, dl, fn, s):
    for a, b in dl:
        o.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            r = fn(net(a), b)
        {backward}
        o.step()
'''


def test_mld063_a_scaler_handed_in_under_any_name_is_one():
    """Issue 17: `s.scale(r).backward()` scales the loss whatever the scaler is called; a bare backward does not."""
    assert _lines(HANDED_SCALER.format(backward="s.scale(r).backward()"), "MLD063", "train.py") == []
    assert _lines(HANDED_SCALER.format(backward="r.backward()"), "MLD063", "train.py") == [8]
