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
