"""Rule changes learnt on blind split 16 (thirteenth session): each shape that fires and the real correct twin
that stays quiet."""

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source


def _codes(source: str, *codes: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(source, "snippet.py", LintSettings(select=codes))]


# s3prl's runner: a CUDA out-of-memory during backward clears the gradients and skips to the next batch
OOM_SKIP = """\
def train(model, opt, loader, loss_fn):
    for x, y in loader:
        try:
            loss = loss_fn(model(x), y)
            loss.backward()
        except RuntimeError as e:
            if 'out of memory' in str(e):
                opt.zero_grad()
                continue
            raise
        opt.step()
        opt.zero_grad()
"""


def test_a_zero_grad_that_skips_the_rest_of_its_iteration_is_not_between_backward_and_step():
    assert _codes(OOM_SKIP, "MLD011") == []


def test_the_same_handler_without_the_skip_clears_the_gradients_the_step_reads():
    source = OOM_SKIP.replace("                continue\n            raise\n", "")
    assert _codes(source, "MLD011") == [(8, "MLD011")]


def test_a_break_that_leaves_only_an_inner_loop_still_reaches_the_step():
    source = (
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        loss_fn(model(x), y).backward()\n"
        "        for _ in range(3):\n"
        "            opt.zero_grad()\n"
        "            break\n"
        "        opt.step()\n"
    )
    assert _codes(source, "MLD011") == [(5, "MLD011")]


# s3prl's runner: DDP training counted in steps, the train loader fetched from a task object for the 'train' split
STEP_COUNTED_DDP = """\
from torch.nn.parallel import DistributedDataParallel as DDP

def train(self, total_steps):
    step = 0
    dataloader = self.downstream.get_dataloader('train')
    while step < total_steps:
        for batch in dataloader:
            self.step(batch)
            step += 1
"""


def test_a_step_counted_loop_over_a_train_split_loader_under_ddp_needs_set_epoch():
    assert _codes(STEP_COUNTED_DDP, "MLD054") == [(7, "MLD054")]


def test_the_same_loop_that_sets_the_epoch_is_quiet():
    source = STEP_COUNTED_DDP.replace("    while step < total_steps:\n",
                                      "    while step < total_steps:\n        dataloader.sampler.set_epoch(step)\n")
    assert _codes(source, "MLD054") == []


def test_a_loader_fetched_for_evaluation_is_not_the_train_loader():
    assert _codes(STEP_COUNTED_DDP.replace("'train'", "'dev'"), "MLD054") == []


# dreamer-pytorch: three optimizers built side by side; the value optimizer copied the world model's parameters
THREE_OPTIMIZERS = """\
import torch

class Dreamer:
    def optim_initialize(self, model):
        self.model_modules = [model.encoder, model.decoder, model.transition]
        self.actor_modules = [model.action_decoder]
        self.value_modules = [model.value_model]
        self.model_optimizer = torch.optim.Adam(get_parameters(self.model_modules), lr=self.model_lr)
        self.actor_optimizer = torch.optim.Adam(get_parameters(self.actor_modules), lr=self.actor_lr)
        self.value_optimizer = torch.optim.Adam(get_parameters(self.model_modules), lr=self.value_lr)
"""


def test_a_second_optimizer_built_over_the_first_ones_parameters_leaves_a_module_untrained():
    found = lint_source(THREE_OPTIMIZERS, "snippet.py", LintSettings(select=("MLD015",)))
    assert [(f.line, f.code) for f in found] == [(10, "MLD015")]
    assert "self.model_optimizer (line 8)" in found[0].message


def test_each_optimizer_over_its_own_modules_is_quiet():
    source = THREE_OPTIMIZERS.replace("Adam(get_parameters(self.model_modules), lr=self.value_lr)",
                                      "Adam(get_parameters(self.value_modules), lr=self.value_lr)")
    assert _codes(source, "MLD015") == []


def test_optimizers_in_exclusive_branches_or_local_phases_are_quiet():
    branches = (
        "import torch\n"
        "class Agent:\n"
        "    def build(self, probe):\n"
        "        if probe:\n"
        "            self.opt_wm = torch.optim.AdamW(self.wm.parameters())\n"
        "        else:\n"
        "            self.opt_wmprobe = torch.optim.AdamW(self.wm.parameters())\n"
    )
    phases = (
        "import torch\n"
        "def run(model, loader):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    poison_optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n"
    )
    assert _codes(branches, "MLD015") == [] and _codes(phases, "MLD015") == []


def test_a_return_after_the_step_does_not_hide_a_zero_grad_before_it():
    source = (
        "def fit_batch(self, batch):\n"
        "    loss = self.compute(batch)\n"
        "    loss.backward()\n"
        "    if self.should_step:\n"
        "        self.optimizer.zero_grad()\n"
        "    self.optimizer.step()\n"
        "    return loss.detach()\n"
    )
    assert _codes(source, "MLD011") == [(5, "MLD011")]


# Argo's two-tower trainer: training squeezes the (B, 1) prediction before MSELoss, evaluation does not
TRAIN_SQUEEZES_EVAL_DOES_NOT = """\
import torch
import torch.nn as nn

class Trainer:
    def __init__(self, model):
        self.model = model
        self.loss = nn.MSELoss()

    def train(self, loader):
        for users, items, ratings in loader:
            predictions = self.model(users, items).squeeze(1)
            self.loss(predictions, ratings).backward()

    def eval(self, loader):
        with torch.no_grad():
            for users, items, ratings in loader:
                predictions = self.model(users, items)
                total = self.loss(predictions, ratings).item()
"""


def test_a_model_output_flattened_before_the_loss_in_one_place_and_not_in_another_is_flagged():
    found = lint_source(TRAIN_SQUEEZES_EVAL_DOES_NOT, "snippet.py", LintSettings(select=("MLD005",)))
    assert [(f.line, f.code) for f in found] == [(17, "MLD005")]
    assert "line 12 flattens" in found[0].message


def test_both_places_flattened_alike_are_quiet():
    source = TRAIN_SQUEEZES_EVAL_DOES_NOT.replace("predictions = self.model(users, items)\n",
                                                  "predictions = self.model(users, items).squeeze(1)\n")
    assert _codes(source, "MLD005") == []


def test_another_models_output_is_not_compared_with_this_ones():
    source = TRAIN_SQUEEZES_EVAL_DOES_NOT.replace("predictions = self.model(users, items)\n",
                                                  "predictions = self.ema_model(users, items)\n")
    assert _codes(source, "MLD005") == []


def test_transformers_regression_head_that_squeezes_both_sides_for_one_label_is_quiet():
    source = (
        "from torch.nn import MSELoss\n"
        "def head_loss(self, sequence_output, labels):\n"
        "    logits = self.classifier(sequence_output)\n"
        "    loss_fct = MSELoss()\n"
        "    if self.num_labels == 1:\n"
        "        loss = loss_fct(logits.squeeze(), labels.squeeze())\n"
        "    else:\n"
        "        loss = loss_fct(logits, labels)\n"
        "    return loss\n"
    )
    assert _codes(source, "MLD005") == []


# matsciml: the base task builds schedules by name; a subclass turns automatic optimisation off and never steps them
INHERITED_SCHEDULE = """\
import lightning.pytorch as pl
from torch.optim import AdamW, lr_scheduler

class BaseTask(pl.LightningModule):
    def configure_optimizers(self):
        opt = AdamW(self.parameters())
        schedulers = []
        for name, params in self.hparams.scheduler_kwargs.items():
            scheduler_class = getattr(lr_scheduler, name, None)
            scheduler = scheduler_class(opt, **params)
            schedulers.append(scheduler)
        return [opt], schedulers

class ForceTask(BaseTask):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        opt.zero_grad()
        loss = self.loss(batch)
        self.manual_backward(loss)
        opt.step()
        return loss
"""


def test_a_schedule_inherited_by_a_subclass_that_optimises_by_hand_is_never_stepped():
    found = lint_source(INHERITED_SCHEDULE, "snippet.py", LintSettings(select=("MLD076",)))
    assert [(f.line, f.code) for f in found] == [(10, "MLD076")]
    assert "inherited by ForceTask" in found[0].message


def test_the_subclass_that_steps_its_schedules_is_quiet():
    source = INHERITED_SCHEDULE.replace(
        "        opt.step()\n",
        "        opt.step()\n        for scheduler in self.lr_schedulers():\n            scheduler.step()\n")
    assert _codes(source, "MLD076") == []


def test_the_base_class_alone_under_automatic_optimisation_is_quiet():
    base_only = INHERITED_SCHEDULE.split("class ForceTask")[0]
    assert _codes(base_only, "MLD076") == []


# Graph-WaveNet (a clean case of blind split 17): the adaptive adjacency's vectors are made on the device first, or
# come from an input already there, so the outer .to(device) returns the Parameter itself
ADAPTIVE_ADJACENCY = """\
import torch
import torch.nn as nn

class GWNet(nn.Module):
    def __init__(self, device, num_nodes, aptinit=None):
        super().__init__()
        if aptinit is None:
            self.nodevec1 = nn.Parameter(torch.randn(num_nodes, 10).to(device), requires_grad=True).to(device)
        else:
            m, p, n = torch.svd(aptinit)
            initemb1 = torch.mm(m[:, :10], torch.diag(p[:10] ** 0.5))
            self.nodevec1 = nn.Parameter(initemb1, requires_grad=True).to(device)
"""


def test_a_parameter_made_on_the_device_or_from_an_input_is_not_flagged_for_its_outer_move():
    assert _codes(ADAPTIVE_ADJACENCY, "MLD015") == []


def test_a_parameter_made_on_the_cpu_and_moved_after_wrapping_is_still_flagged():
    source = ADAPTIVE_ADJACENCY.replace("torch.randn(num_nodes, 10).to(device)", "torch.randn(num_nodes, 10)")
    assert _codes(source, "MLD015") == [(8, "MLD015")]


# VideoMAE's fine-tuning loop (a clean case of blind split 17): a DeepSpeed engine backwards and steps itself, and its
# step clears the gradients; the optimiser of the other branch is cleared after its accumulated step
DEEPSPEED_OR_SCALER = """\
def train_one_epoch(model, loader, optimizer, loss_scaler, criterion, update_freq):
    if loss_scaler is None:
        model.zero_grad()
    else:
        optimizer.zero_grad()
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / update_freq
        if loss_scaler is None:
            model.backward(loss)
            model.step()
        else:
            loss.backward()
            if (i + 1) % update_freq == 0:
                optimizer.step()
                optimizer.zero_grad()
"""


def test_a_deepspeed_engine_that_backwards_and_steps_itself_is_not_an_uncleared_optimizer():
    assert _codes(DEEPSPEED_OR_SCALER, "MLD017") == []


def test_an_engine_without_its_own_backward_is_still_an_uncleared_stepper():
    source = DEEPSPEED_OR_SCALER.replace("model.backward(loss)", "loss.backward()")
    assert _codes(source, "MLD017") != []


def test_a_test_loaders_dropped_batch_is_a_warning_and_a_validation_loaders_is_info():
    source = (
        "from torch.utils.data import DataLoader\n"
        "def make(test_set, valid_set, b):\n"
        "    test_loader = DataLoader(test_set, batch_size=b, drop_last=True)\n"
        "    valid_loader = DataLoader(valid_set, batch_size=b, drop_last=True)\n"
        "    return test_loader, valid_loader\n"
    )
    found = lint_source(source, "snippet.py", LintSettings(select=("MLD055",)))
    assert [(f.line, f.severity) for f in found] == [(3, "warning"), (4, "info")]


def test_claim_drop_last_leaves_the_last_partial_batch_out_of_an_evaluation_pass():
    torch = __import__("pytest").importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.arange(10.0))
    seen = [x for (batch,) in DataLoader(data, batch_size=4, drop_last=True) for x in batch.tolist()]
    assert seen == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]  # samples 8 and 9 are never evaluated
    assert len([x for (batch,) in DataLoader(data, batch_size=4) for x in batch]) == 10


# OneTrainer: the update-step test guards both the zero_grad before the backward and the step after it
UPDATE_STEP_WINDOW = """\
def train(self, loader, optimizer, scaler, progress):
    for batch in loader:
        loss = self.loss(batch)
        if self.is_update_step(progress):
            optimizer.zero_grad()
        scaler.scale(loss).backward()
        if self.is_update_step(progress):
            scaler.step(optimizer)
            scaler.update()
        progress.next_step()
"""


def test_a_zero_grad_under_the_update_step_test_before_the_backward_clears_the_window():
    assert _codes(UPDATE_STEP_WINDOW, "MLD018") == [(5, "MLD018")]


def test_zeroing_after_the_step_under_the_update_step_test_is_quiet():
    source = UPDATE_STEP_WINDOW.replace("        if self.is_update_step(progress):\n            optimizer.zero_grad()\n", "")
    source = source.replace("            scaler.update()\n", "            scaler.update()\n            optimizer.zero_grad()\n")
    assert _codes(source, "MLD018") == []


# ai-toolkit: each micro-batch of the list is zeroed before its backward (run by a helper), and the step after the
# loop runs only at the end of an accumulation window
MICRO_BATCH_HELPER = """\
class Trainer:
    def train_single_accumulation(self, batch):
        loss = self.loss(batch)
        loss.backward()
        return loss.detach()

    def hook_train_loop(self, batch_list):
        for batch in batch_list:
            self.optimizer.zero_grad(set_to_none=True)
            self.train_single_accumulation(batch)
        if not self.is_grad_accumulation_step:
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
"""


def test_a_micro_batch_loop_zeroing_before_a_helpers_backward_loses_the_accumulated_gradients():
    assert _codes(MICRO_BATCH_HELPER, "MLD018") == [(9, "MLD018")]


def test_the_micro_batch_loop_without_its_zero_grad_is_quiet():
    source = MICRO_BATCH_HELPER.replace("            self.optimizer.zero_grad(set_to_none=True)\n            self.train", "            self.train")
    assert _codes(source, "MLD018") == []


# XenonPy's Scaler: transform() ran each step's fit_transform on the data it was handed
REFITTING_TRANSFORM = """\
class Scaler:
    def __init__(self):
        self._scalers = []

    def fit(self, x):
        for s in self._scalers:
            x = s.fit_transform(x)
        return self

    def transform(self, x):
        x_ = x
        for s in self._scalers:
            x_ = s.fit_transform(x_)
        return x_
"""


def test_a_transform_method_that_refits_on_its_input_is_flagged():
    assert _codes(REFITTING_TRANSFORM, "MLD052") == [(13, "MLD052")]


def test_a_transform_method_that_only_transforms_is_quiet():
    source = REFITTING_TRANSFORM.replace("            x_ = s.fit_transform(x_)\n        return x_",
                                         "            x_ = s.transform(x_)\n        return x_")
    assert _codes(source, "MLD052") == []


def test_a_transform_fitting_an_encoder_on_its_own_table_is_not_this_shape():
    source = REFITTING_TRANSFORM.replace("            x_ = s.fit_transform(x_)\n        return x_",
                                         "            s.fit(self.df['col'])\n        return x_")
    assert _codes(source, "MLD052") == []


def test_claim_a_random_split_loads_its_validation_rows_through_the_datasets_random_transform():
    torch = __import__("pytest").importorskip("torch")
    from torch.utils.data import Dataset, random_split

    class Noisy(Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return float(i) + torch.rand(()).item()  # a random augmentation

    _, val_part = random_split(Noisy(), [8, 2], generator=torch.Generator().manual_seed(0))
    assert val_part[0] != val_part[0]  # the same validation row differs each time it is read


def test_a_random_sampler_is_not_taken_for_random_augmentation():
    source = (
        "from torch.utils.data import DataLoader, RandomSampler, SubsetRandomSampler\n"
        "def loaders(train_set, indices, b):\n"
        "    train_loader = DataLoader(train_set, batch_size=b, sampler=RandomSampler(train_set))\n"
        "    valid_loader = DataLoader(train_set, batch_size=b, sampler=SubsetRandomSampler(indices))\n"
        "    return train_loader, valid_loader\n"
    )
    assert _codes(source, "MLD056") == []
    augmenting = "import torchvision.transforms as T\nFLIP = T.RandomHorizontalFlip()\n" + source
    assert _codes(augmenting, "MLD056") == [(6, "MLD056")]


# tsts (a clean case of blind split 19): the trainer's own step() trains then validates, and its training half calls
# torch's `self.optimizer.step()`, which is not that step() method
TRAINER_STEP = """\
import torch
from tqdm import tqdm


class Trainer:
    def on_train(self):
        raise NotImplementedError

    def on_val(self):
        raise NotImplementedError

    def step(self):
        losses = self.on_train()
        scores = self.on_val()
        return losses, scores


class SupervisedTrainer(Trainer):
    def on_train(self):
        self.model.train()
        self.local_scaler.train()
        with tqdm(total=len(self.train_dataloader)) as pbar:
            for x, y in self.train_dataloader:
                self.optimizer.zero_grad()
                z = self.model(x) + self.local_scaler(x)
                self.loss(z, y).backward()
                self.optimizer.step()
                pbar.update(1)

    def on_val(self):
        self.model.eval()
        self.local_scaler.eval()
        with tqdm(total=len(self.valid_dataloader)) as pbar:
            for x, y in self.valid_dataloader:
                with torch.no_grad():
                    z = self.model(x) + self.local_scaler(x)
                self.metric(z, y)
                pbar.update(1)
"""


def test_torchs_optimizer_step_is_not_taken_for_the_trainers_own_step_method():
    assert _codes(TRAINER_STEP, "MLD021") == []


def test_a_trainers_own_step_method_that_leaves_eval_mode_is_still_followed():
    source = TRAINER_STEP.replace("                self.optimizer.step()\n", "                self.optimizer.step()\n                self.step()\n")
    source = source.replace("        self.model.train()\n        self.local_scaler.train()\n", "")
    assert _codes(source, "MLD021") != []


# mace (a clean case of blind split 20): the SWA scheduler steps at the top of each epoch after the first, in a
# `while epoch < max_epochs:` loop that starts at start_epoch
EPOCH_AFTER_START = """\
def fit(model, loader, optimizer, scheduler, start_epoch, max_epochs):
    epoch = start_epoch
    while epoch < max_epochs:
        if epoch > start_epoch:
            scheduler.step()
        for x, y in loader:
            optimizer.zero_grad()
            model(x).backward()
            optimizer.step()
        epoch += 1
"""


def test_a_scheduler_stepped_only_after_the_first_epoch_of_a_while_loop_is_quiet():
    assert _codes(EPOCH_AFTER_START, "MLD013") == []


def test_the_same_step_on_the_first_epoch_too_is_flagged():
    assert _codes(EPOCH_AFTER_START.replace("epoch > start_epoch", "epoch >= start_epoch"), "MLD013") == [(5, "MLD013")]
