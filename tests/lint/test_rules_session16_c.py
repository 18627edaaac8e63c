"""False-alarm families of the sixteenth session (MLD054, MLD014), judged on a stratified sample of the 500
repositories' findings: each quiet shape beside a twin that still fires."""

from __future__ import annotations

import textwrap

from .families import line_of, project_findings, snippet_lines

# a file of the run that builds a shuffling DistributedSampler for some other loader (a legacy data module)
LEGACY_DATA = """
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    class DataBunch:
        def __init__(self, dataset, batch_size):
            sampler = DistributedSampler(dataset)
            self.train_dl = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
"""

HANDED_IN_LEARNER = """
    class Learner:
        def __init__(self, data, model):
            self.data = data
            self.model = model

        def fit(self, epochs, step):
            train_dataloader = self.data.train_dl
            for epoch in range(epochs):
                for batch in train_dataloader:
                    step(self.model, batch)
"""


def test_a_loader_handed_in_to_a_file_without_ddp_is_not_tied_to_another_files_sampler(tmp_path):
    """fast-bert's learner_cls.py: `self.data.train_dl` of a data bunch handed in; only a legacy data.py builds one."""
    files = {"data.py": LEGACY_DATA, "learner.py": HANDED_IN_LEARNER}
    assert project_findings(tmp_path, files, "MLD054") == []


def test_a_loader_of_a_data_bunch_this_file_builds_from_the_sampling_class_still_fires(tmp_path):
    learner = HANDED_IN_LEARNER.replace(
        "    class Learner:\n", "    from data import DataBunch\n\n    class Learner:\n").replace(
        "self.data = data\n", "self.data = DataBunch(data, 32)\n")
    files = {"data.py": LEGACY_DATA, "learner.py": learner}
    assert project_findings(tmp_path, files, "MLD054") == [("learner.py", line_of(learner, "for batch in"))]


NEIGHBOR_LOADER = """
    from torch_geometric.loader import NeighborLoader

    def main(data, epochs, step{param}):
        train_loader = NeighborLoader(data, num_neighbors=[25, 10], shuffle=True, batch_size=1024{sampler})
        for epoch in range(epochs):
            for batch in train_loader:
                step(batch)
"""
DDP_EXAMPLE = """
    from torch.utils.data import DataLoader, DistributedSampler

    def loaders(dataset, rank, world_size):
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
        return DataLoader(dataset, batch_size=64, sampler=sampler)
"""


def test_a_library_loader_on_its_own_shuffling_sampler_is_quiet(tmp_path):
    """pytorch_geometric's examples/reddit.py: `NeighborLoader(data, shuffle=True)`; a multi-GPU example beside it
    builds a DistributedSampler for its own loader."""
    files = {"reddit.py": NEIGHBOR_LOADER.format(param="", sampler=""), "multi_gpu.py": DDP_EXAMPLE}
    assert project_findings(tmp_path, files, "MLD054") == []


def test_a_library_loader_handed_a_sampler_this_file_does_not_build_still_fires(tmp_path):
    source = NEIGHBOR_LOADER.format(param=", sampler", sampler=", sampler=sampler")
    files = {"reddit.py": source, "multi_gpu.py": DDP_EXAMPLE}
    assert project_findings(tmp_path, files, "MLD054") == [("reddit.py", line_of(source, "for batch in"))]


AUGMENTER_TRAINER = """
    from batchgenerators.dataloading.nondet_multi_threaded_augmenter import NonDetMultiThreadedAugmenter
    from torch.nn.parallel import DistributedDataParallel as DDP

    class Trainer:
        def __init__(self, network, {handed}):
            self.network = DDP(network)
            {kept}

        def get_dataloaders(self):
            mt_gen_train = NonDetMultiThreadedAugmenter(data_loader=self.dl_tr, transform=None, num_processes=4)
            mt_gen_val = NonDetMultiThreadedAugmenter(data_loader=self.dl_val, transform=None, num_processes=2)
            return mt_gen_train, mt_gen_val

        def run_training(self):
            for epoch in range(self.num_epochs):
                outputs = []
                for batch_id in range(self.num_iterations_per_epoch):
                    outputs.append(self.train_step(next(self.dataloader_train)))
"""


def test_a_ddp_trainer_over_its_own_augmenter_is_quiet():
    """nnUNet's nnUNetTrainer.py: `self.dataloader_train` is the nnUNetDataLoader's augmenter, no torch sampler."""
    source = textwrap.dedent(AUGMENTER_TRAINER.format(
        handed="dl_tr", kept="self.dataloader_train, self.dataloader_val = self.get_dataloaders()"))
    assert snippet_lines(source, "MLD054") == []


def test_a_ddp_trainer_over_a_loader_handed_in_still_fires():
    source = textwrap.dedent(AUGMENTER_TRAINER.format(handed="train_loader",
                                                      kept="self.dataloader_train = train_loader"))
    assert snippet_lines(source, "MLD054") == [line_of(source, "outputs = []")]


THREAD_LOADER_DDP = """
    from torch.nn.parallel import DistributedDataParallel
    {imports}

    def main(args, train_ds, model, optimizer):
        model = DistributedDataParallel(model)
        train_loader = {loader}
        for epoch in range(args.epochs):
            train(train_loader, model, optimizer)

    def train(train_loader, model, optimizer):
        model.train()
        for batch_data in train_loader:
            optimizer.zero_grad()
            model(batch_data).sum().backward()
            optimizer.step()
"""


def test_a_ddp_script_over_a_library_loader_it_builds_is_quiet(tmp_path):
    """MONAI GenerativeModels' ddpm_training_ddp.py: `ThreadDataLoader(train_ds, shuffle=True)` over a partition."""
    source = THREAD_LOADER_DDP.format(imports="from monai.data import ThreadDataLoader",
                                      loader="ThreadDataLoader(train_ds, num_workers=0, batch_size=8, shuffle=True)")
    assert project_findings(tmp_path, {"ddp.py": source, "dist_data.py": DDP_EXAMPLE}, "MLD054") == []


def test_a_ddp_script_over_a_factory_that_builds_a_distributed_sampler_still_fires(tmp_path):
    """pytorch_image_classification's train.py: `create_dataloader(config)` of its datasets package builds one."""
    source = THREAD_LOADER_DDP.format(imports="from dist_data import loaders", loader="loaders(train_ds, 0, 2)")
    assert project_findings(tmp_path, {"ddp.py": source, "dist_data.py": DDP_EXAMPLE}, "MLD054") == [
        ("ddp.py", line_of(source, "train(train_loader, model, optimizer)"))]  # set_epoch before the call


HANDED_LOOP = """
    def fit(model, train_loader, epochs):
        for epoch in range(epochs):
            for batch in train_loader:
                model(batch).sum().backward()
"""
RUN = """
    from torch.utils.data import DataLoader
    from dist_data import loaders
    from loop import fit

    def main(ds, model):
        train_loader = {loader}
        fit(model, train_loader, 10)
"""


def test_a_loader_another_file_hands_in_from_a_plain_loader_is_quiet(tmp_path):
    """HydraGNN's train_validate_test.py, its loader built by the caller without a DistributedSampler."""
    files = {"loop.py": HANDED_LOOP, "run.py": RUN.format(loader="DataLoader(ds, batch_size=32, shuffle=True)"),
             "dist_data.py": DDP_EXAMPLE}
    assert project_findings(tmp_path, files, "MLD054") == []


def test_a_loader_another_file_hands_in_from_a_sampling_factory_still_fires(tmp_path):
    """HydraGNN's train_validate_test.py (corpus g4-epoch-001): run_training.py hands it load_data's loader."""
    files = {"loop.py": HANDED_LOOP, "run.py": RUN.format(loader="loaders(ds, 0, 2)"), "dist_data.py": DDP_EXAMPLE}
    assert project_findings(tmp_path, files, "MLD054") == [("loop.py", line_of(HANDED_LOOP, "for batch in"))]


# ---- MLD014: a Trainer's compute_loss whose batches carry no "labels": num_items_in_batch is None and the Trainer
# divides by the accumulation steps itself

OWN_KEYS_TRAINER = """
    import torch.nn.functional as F
    from transformers import Trainer

    class TriplePreferenceTrainer(Trainer):
        def _compute_loss(self, model, inputs, return_outputs):
            model_kwargs = {{k: v for k, v in inputs.items() if k != "completion_mask"}}
            outputs = model(**model_kwargs)
            input_ids = inputs["input_ids"]
            mask = inputs["completion_mask"][..., 1:]
            logps = F.log_softmax(outputs.logits[..., :-1, :], -1).gather(-1, input_ids[..., 1:, None])[..., 0]
            {loss}
            return (loss, outputs) if return_outputs else loss

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            return self._compute_loss(model, inputs, return_outputs)
"""


def test_a_compute_loss_over_batches_of_its_own_keys_is_scaled_by_the_trainer():
    """trl's experimental tpo_trainer.py: the collator gives input_ids/attention_mask/completion_mask, no "labels"."""
    source = OWN_KEYS_TRAINER.format(loss="loss = -(logps * mask).sum(-1).mean()")
    assert snippet_lines(textwrap.dedent(source), "MLD014") == []


def test_a_compute_loss_that_reads_labels_or_the_models_own_loss_still_fires():
    for loss in ('loss = -(logps * (inputs["labels"][..., 1:] != -100)).sum(-1).mean()',
                 "loss = outputs.loss + 0.1 * -(logps * mask).sum(-1).mean()"):
        source = textwrap.dedent(OWN_KEYS_TRAINER.format(loss=loss))
        assert snippet_lines(source, "MLD014") == [line_of(source, "return self._compute_loss")]


REGRESSION_TRAINER = """
    from transformers import Trainer

    class RegressionTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            logps = self._get_sequence_logps(model, inputs["input_ids"], inputs["attention_mask"])
            target = inputs["{target}"] - inputs["v_star"]
            loss = ((self.beta * (logps - inputs["ref_logps"]) - target) ** 2).mean()
            return loss
"""


def test_a_compute_loss_reading_rewards_is_scaled_by_the_trainer():
    """trl's experimental a2po_trainer.py: its collator hands a list of feature dicts; no "labels" key."""
    assert snippet_lines(textwrap.dedent(REGRESSION_TRAINER.format(target="rewards")), "MLD014") == []


def test_a_compute_loss_reading_labels_still_fires():
    source = textwrap.dedent(REGRESSION_TRAINER.format(target="labels"))
    assert snippet_lines(source, "MLD014") == [line_of(source, "return loss")]


SUB_BATCHES = """
    import math
    import torch.nn.functional as F

    def train(model, optimizer, loader, batch_size):
        for data, target in loader:
            optimizer.zero_grad()
            for i in range(0, len(data), batch_size):
                output = model(data[i:i + batch_size])
                loss = F.cross_entropy(output, target[i:i + batch_size])
                {scale}
                loss.backward()
            optimizer.step()
"""


def test_a_loss_divided_in_place_before_backward_is_scaled():
    """horovod's pytorch_imagenet_resnet50(_elastic).py: `loss.div_(math.ceil(len(data) / args.batch_size))`."""
    source = SUB_BATCHES.format(scale="loss.div_(math.ceil(float(len(data)) / batch_size))")
    assert snippet_lines(textwrap.dedent(source), "MLD014") == []


def test_sub_batch_losses_back_propagated_as_they_are_still_fire():
    source = textwrap.dedent(SUB_BATCHES.format(scale="print(loss.item())"))
    assert snippet_lines(source, "MLD014") == [line_of(source, "loss.backward()")]


TOKEN_SHARE = """
    def mean_global_loss(losses, micro_batch_tokens, all_tokens):
        loss_dict = {{}}
        if not isinstance(losses, dict):
            losses = {{"foundation_loss": losses}}
        for key, cur_loss in losses.items():
            {rescale}
            loss_dict[key] = cur_loss
        return loss_dict
"""
MICRO_BATCHES = """
    import torch
    from loss_utils import mean_global_loss

    def train(model, optimizer, batches, count_tokens):
        for micro_batches in batches:
            total_tokens = count_tokens(micro_batches)
            for micro_batch in micro_batches:
                loss = model(**micro_batch).loss
                loss_dict = mean_global_loss(loss, count_tokens([micro_batch]), total_tokens)
                loss = torch.stack(list(loss_dict.values())).sum()
                loss.backward()
            optimizer.step()
            optimizer.zero_grad()
"""


def test_a_loss_rescaled_by_a_project_helper_before_backward_is_scaled(tmp_path):
    """VeOmni's train_torch.py: `mean_global_loss` (veomni/utils/loss_utils.py) weighs it by its token share."""
    files = {"loss_utils.py": TOKEN_SHARE.format(rescale="cur_loss = cur_loss * micro_batch_tokens / all_tokens"),
             "train.py": MICRO_BATCHES}
    assert project_findings(tmp_path, files, "MLD014") == []


def test_a_loss_passed_through_a_project_helper_that_keeps_it_still_fires(tmp_path):
    files = {"loss_utils.py": TOKEN_SHARE.format(rescale="cur_loss = cur_loss.float()"), "train.py": MICRO_BATCHES}
    assert project_findings(tmp_path, files, "MLD014") == [("train.py", line_of(MICRO_BATCHES, "loss.backward()"))]
