"""False-alarm families of the sixteenth session's stratified precision sample (benchmarks/lint_precision/
stratified_2026-11-28.yaml): each quiet shape beside a twin that still fires."""

from __future__ import annotations

from pathlib import Path

from .families import project_findings

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
