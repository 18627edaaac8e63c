"""False-alarm families of the sixteenth session's stratified precision sample (benchmarks/lint_precision/
stratified_2026-11-28.yaml): each quiet shape beside a twin that still fires."""

from __future__ import annotations

from pathlib import Path

from .families import project_findings, snippet_lines

LHOTSE_LOADER = (
    "from lhotse.dataset import CutMix, PerturbSpeed, SpecAugment, K2SpeechRecognitionDataset\n"
    "from torch.utils.data import DataLoader\n"
    "def train_dataloader(cuts, sampler, args, rng):\n"
    "    transforms = [{transform}]\n"
    "    train = K2SpeechRecognitionDataset(cut_transforms=transforms)\n"
    "    return DataLoader(train, sampler=sampler, batch_size=None, num_workers=args.num_workers)\n"
)


def test_lhotse_augmentations_drawing_from_the_global_generators_do_not_repeat_across_workers(tmp_path: Path):
    """icefall's asr_datamodule.py (S026, S080, S093, S129): SpecAugment and PerturbSpeed without a generator of
    their own draw from random/np.random/torch, which torch reseeds in every worker."""
    for transform in ("SpecAugment(time_warp_factor=80)", "PerturbSpeed(factors=[0.9, 1.1], p=2 / 3)"):
        quiet = {"datamodule.py": LHOTSE_LOADER.format(transform=transform)}
        assert project_findings(tmp_path / transform[:5], quiet, "MLD053") == []


def test_lhotse_augmentations_with_a_generator_of_their_own_still_repeat(tmp_path: Path):
    """icefall's tedlium3 datamodule (S035): CutMix mixes with its own seed; PerturbSpeed handed one Random."""
    for transform in ("CutMix(cuts=args.musan, p=0.5)", "PerturbSpeed(factors=[0.9, 1.1], p=0.5, randgen=rng)"):
        loud = {"datamodule.py": LHOTSE_LOADER.format(transform=transform)}
        assert project_findings(tmp_path / transform[:5], loud, "MLD053") == [("datamodule.py", 6)]


ACCUMULATION_WITH_FLUSH = """
def train(model, optimizer, batches, k):
    count = 0
    for i, (x, y) in enumerate(batches):
        loss = model(x, y) / k
        loss.backward()
        count += 1
        if count == k:
            optimizer.step()
            {zero_after_step}
            count = 0
    if count > 0:
        optimizer.step()
        optimizer.zero_grad()
"""


def test_a_zero_grad_right_after_the_step_is_quiet_though_a_flush_step_follows():
    """Diffusion-Planner's GRPO trainers (S075, S108): step, zero_grad, then a flush step after the loop."""
    assert snippet_lines(ACCUMULATION_WITH_FLUSH.format(zero_after_step="optimizer.zero_grad()"), "MLD011") == []


def test_a_zero_grad_between_the_backward_and_the_step_still_fires():
    source = ACCUMULATION_WITH_FLUSH.replace("            optimizer.step()\n            {zero_after_step}",
                                             "            optimizer.zero_grad()\n            optimizer.step()")
    assert snippet_lines(source, "MLD011") == [9]


def test_exclusive_branches_that_each_step_then_zero_are_quiet():
    """robustdg's erm_match.py (S105): a DP branch steps every tenth batch, the other branch every batch."""
    source = (
        "def epoch(opt, model, batches, dp):\n"
        "    for batch_idx, (x, y) in enumerate(batches):\n"
        "        loss = model(x, y)\n"
        "        loss.backward()\n"
        "        if dp:\n"
        "            if batch_idx % 10 == 9:\n"
        "                opt.step()\n"
        "                opt.zero_grad()\n"
        "            else:\n"
        "                opt.virtual_step()\n"
        "        else:\n"
        "            opt.step()\n"
        "            opt.zero_grad()\n")
    assert snippet_lines(source, "MLD011") == []


ZEROED_UNDER_A_FLAG = """
class SimpleTrainer:
    def run_step(self):
        data = next(self._data_loader_iter)
        if self.zero_grad_before_forward:
            self.optimizer.zero_grad()
        losses = self.model(data)
        if {second_test}:
            self.optimizer.zero_grad()
        losses.backward()
        self.optimizer.step()

    def train(self, max_iter):
        for self.iter in range(max_iter):
            self.run_step()
"""


def test_an_optimizer_zeroed_under_a_flag_and_under_its_negation_is_always_zeroed():
    """detectron2's SimpleTrainer.run_step (S119): zero_grad before or after the forward, by a flag."""
    quiet = ZEROED_UNDER_A_FLAG.format(second_test="not self.zero_grad_before_forward")
    assert snippet_lines(quiet, "MLD017") == []


def test_an_optimizer_zeroed_under_two_unrelated_flags_still_fires():
    loud = ZEROED_UNDER_A_FLAG.format(second_test="self.log_every")
    assert snippet_lines(loud, "MLD017") != []


WRAPPED_OPTIMIZER = """
import torch

def train(model, batches, loss_fn):
    optimizer = torch.optim.Adam(model.parameters())
    {wrapper}
    for x, y in batches:
        {zero}
        loss_fn(model(x), y).backward()
        wrapper.step()
        other.zero_grad()
        other.step()
"""


def test_a_wrapper_stepped_after_its_inner_optimizer_is_zeroed_is_quiet():
    """MTN's NoamOpt (S051: `self.opt.optimizer.zero_grad()`, `self.opt.step()`) and AReaL's per-layer wrapper (S062)."""
    for wrapper, zero in (("opt_w = NoamOpt(512, 1, 4000, optimizer)", "opt_w.optimizer.zero_grad()"),
                          ("opt_w = PerLayerOptimWrapper(model, optimizer)", "optimizer.zero_grad()")):
        source = WRAPPED_OPTIMIZER.format(wrapper=wrapper, zero=zero).replace("wrapper.step()", "opt_w.step()")
        assert snippet_lines(source, "MLD017") == [], wrapper


def test_a_wrapper_built_from_another_optimizer_than_the_zeroed_one_still_fires():
    source = WRAPPED_OPTIMIZER.format(wrapper="wrapper = torch.optim.SGD(head.parameters())",
                                      zero="optimizer.zero_grad()")
    assert snippet_lines(source, "MLD017") != []


MARGINAL_LIKELIHOOD = """
import torch
from gpytorch.mlls import ExactMarginalLogLikelihood
from project.models import VAE

def fit(model, train_x, train_y, steps):
    {built}
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = -mll(model(train_x), train_y)
        loss.backward()
        optimizer.step()
"""


def test_a_module_built_around_the_whole_optimised_model_adds_no_parameters():
    """gflownet's botorch playground (S028): the GP's marginal likelihood holds model.likelihood and model."""
    source = MARGINAL_LIKELIHOOD.format(built="mll = ExactMarginalLogLikelihood(model.likelihood, model)")
    assert snippet_lines(source, "MLD015") == []


def test_a_project_module_built_from_pieces_of_the_model_still_fires():
    source = MARGINAL_LIKELIHOOD.format(built="mll = VAE(model.encoder, model.decoder)")
    assert snippet_lines(source, "MLD015") == [8]


VALIDATION_SPLIT = """
from itertools import cycle
from torch.utils.data import DataLoader, random_split
from torchvision import transforms as T
from torchvision.datasets import ImageFolder

class Trainer:
    def __init__(self, folder, valid_frac):
        self.ds = ImageFolder(folder, transform=T.Compose([T.RandomHorizontalFlip(), T.ToTensor()]))
        valid_size = int(valid_frac * len(self.ds))
        self.ds, self.valid_ds = random_split(self.ds, [len(self.ds) - valid_size, valid_size])
        print(f'validating with {{len(self.valid_ds)}} samples')
        self.dl = cycle(DataLoader(self.ds, batch_size=8, shuffle=True))
        self.valid_dl = cycle(DataLoader(self.valid_ds, batch_size=8, shuffle=True))

    def train_step(self, model, optimizer):
        images, _ = next(self.dl)
        loss = model(images)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        {validation}
"""


def test_a_validation_split_whose_loader_nothing_reads_is_quiet():
    """parti-pytorch's and DALLE2-pytorch's VQGAN trainers (S102): self.valid_dl is built and never read."""
    assert snippet_lines(VALIDATION_SPLIT.format(validation="return loss"), "MLD056") == []


def test_a_validation_split_whose_loader_is_read_still_fires():
    """muse-maskgit-pytorch's trainer reads next(self.valid_dl)."""
    source = VALIDATION_SPLIT.format(validation="valid_images, _ = next(self.valid_dl)\n        return model(valid_images)")
    assert snippet_lines(source, "MLD056") == [11]


EXPERIMENT = """
from torch.utils.data import DataLoader, DistributedSampler

class ConfigExperiment:
    def get_loaders(self, stage):
        loaders = {}
        for name, dataset in self.get_datasets(stage).items():
            params = {"dataset": dataset, "batch_size": 32}
            if self.distributed:
                params["sampler"] = DistributedSampler(dataset=dataset)
            loaders[name] = DataLoader(**params)
        return loaders
"""
RUNNER = """
class Runner:
    def __init__(self, experiment, model):
        self.experiment, self.model = experiment, model

    def _run_epoch(self, loaders):
        for name in loaders:
            for batch in loaders[name]:
                self.model.step(batch)

    def run_stage(self, stage, epochs):
        loaders = self.experiment.get_loaders(stage)
        for epoch in range(epochs):
            self._run_epoch(loaders)
"""


def test_a_loader_from_a_handed_in_object_whose_method_builds_a_distributed_sampler_fires(tmp_path: Path):
    """catalyst's runner (blind2-MLD054-001): `self.experiment.get_loaders(stage)`, built in experiment.py."""
    files = {"experiment.py": EXPERIMENT, "core.py": RUNNER}
    assert project_findings(tmp_path / "catalyst", files, "MLD054") == [("core.py", 14)]


def test_the_same_loader_without_a_distributed_sampler_is_quiet(tmp_path: Path):
    files = {"experiment.py": EXPERIMENT.replace('params["sampler"] = DistributedSampler(dataset=dataset)',
                                                  'params["shuffle"] = True'), "core.py": RUNNER}
    assert project_findings(tmp_path / "plain", files, "MLD054") == []


BUILDER = """
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

def build_dataloader(dataset, batch_size, rank, world_size):
    sampler = DistributedSampler(dataset, world_size, rank, shuffle=True)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
"""
EPOCH_RUNNER = """
class EpochBasedRunner:
    def __init__(self, model, optimizer, max_epochs):
        self.model, self.optimizer, self.max_epochs = model, optimizer, max_epochs

    def train(self, data_loader):
        for batch in data_loader:
            loss = self.model(**batch)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def run(self, train_loader):
        for epoch in range(self.max_epochs):
            self.train(train_loader)
"""
ENTRY = """
from builder import build_dataloader
from runner import EpochBasedRunner

def main(model, optimizer, train_set, rank, world_size):
    train_loader = build_dataloader(train_set, 8, rank, world_size)
    runner = EpochBasedRunner(model, optimizer, max_epochs=12)
    runner.run(train_loader)
"""


def test_a_loader_handed_to_a_runner_method_of_another_file_is_tied_to_its_factory(tmp_path: Path):
    """Blind-written variant V2-014 (mmcv-like): `runner.run(train_loader)`, the sampler made in builder.py."""
    files = {"builder.py": BUILDER, "runner.py": EPOCH_RUNNER, "train.py": ENTRY}
    assert project_findings(tmp_path / "mmcv", files, "MLD054") == [("runner.py", 15)]


def test_a_loader_handed_to_a_runner_method_from_a_factory_without_a_distributed_sampler_is_quiet(tmp_path: Path):
    plain = BUILDER.replace("sampler = DistributedSampler(dataset, world_size, rank, shuffle=True)", "sampler = None")
    files = {"builder.py": plain, "runner.py": EPOCH_RUNNER, "train.py": ENTRY}
    assert project_findings(tmp_path / "plain", files, "MLD054") == []


KNN_EVAL = """
from torch.utils.data import DataLoader

def knn_eval(model, train_dataset, val_dataset, trainer_cls, batch_size):
    train_dataloader = DataLoader(train_dataset, batch_size=batch_size, shuffle=False)
    val_dataloader = DataLoader(val_dataset, batch_size=batch_size, shuffle=False)
    trainer = trainer_cls(max_epochs=1)
    trainer.{method}(model, dataloaders=[train_dataloader, val_dataloader])
"""


def test_a_train_split_loader_handed_in_a_list_to_validate_is_a_feature_bank():
    """lightly's knn_eval.py (held-out sample R01, R28, R47): the training split fills a kNN memory bank."""
    assert snippet_lines(KNN_EVAL.format(method="validate"), "MLD050") == []


def test_the_same_list_handed_to_fit_still_trains():
    assert snippet_lines(KNN_EVAL.format(method="fit"), "MLD050") == [5]
