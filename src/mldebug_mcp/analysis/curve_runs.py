"""Runs in a folder of TensorBoard event files: which files belong together, and which run is read.

A folder holding several runs (runs/a/..., runs/b/...) must not have one run's training loss
paired with another's validation loss, so the files are grouped into runs and one run is read.

A run is a folder that holds event files, together with every sub-folder holding event files
below it that is one of its writers:
- the sub-folders of a folder that itself holds event files (TF Estimator's eval/, the sub-writers
  of torch's SummaryWriter.add_scalars: runs/exp/loss_train/, runs/exp/loss_val/);
- a split folder (train/, validation/, eval/, ...) belongs to its parent even when the parent holds
  no event file itself: Keras' TensorBoard callback writes run/train/ and run/validation/.
Tags inside a run are prefixed by the sub-folder they come from (train/epoch_loss), as before.
Without a run asked for, the most recent one is read: the latest writer start time in its file
names (events.out.tfevents.<unix time>.<host>...), ties broken by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError

# Folder names Keras, Estimator and Lightning-style loggers give to the halves of one run.
SPLIT_FOLDERS = frozenset({"train", "training", "validation", "val", "valid", "eval", "evaluation", "test"})
ROOT_RUN = "."  # the name of the run made of the folder passed itself


@dataclass(frozen=True)
class EventRun:
    """One run: its folder relative to the folder read ("." for that folder), and its files."""

    name: str
    folder: Path
    files: tuple[Path, ...]

    @property
    def started(self) -> int:
        """The latest writer start time in the names of its files (0 when none says)."""
        return max((start_time(file) for file in self.files), default=0)


def start_time(file: Path) -> int:
    """The writer's start time in an event file's name (events.out.tfevents.<unix time>.<host>...), or 0."""
    parts = file.name.split(".")
    return int(parts[3]) if len(parts) > 3 and parts[3].isascii() and parts[3].isdigit() else 0


def group_runs(root: Path, files: list[Path]) -> list[EventRun]:
    """The event files under `root` grouped into runs (see the module docstring), sorted by name."""
    holders = {file.parent for file in files}

    def run_folder(folder: Path) -> Path:
        while folder != root:
            if folder.parent in holders:
                folder = folder.parent  # a sub-writer of the run above
            elif folder.name.lower() in SPLIT_FOLDERS:
                return folder.parent  # Keras' train/ and validation/ of one run
            else:
                return folder
        return root

    grouped: dict[Path, list[Path]] = {}
    for file in files:
        grouped.setdefault(run_folder(file.parent), []).append(file)
    runs = [EventRun(run_name(root, folder), folder, tuple(found)) for folder, found in grouped.items()]
    return sorted(runs, key=lambda run: run.name)


def run_name(root: Path, folder: Path) -> str:
    return folder.relative_to(root).as_posix()


def choose_run(runs: list[EventRun], wanted: str | None, source: Path) -> EventRun:
    """The run named `wanted`, or the most recent one; an unknown name is an error listing the runs."""
    if wanted is None:
        return max(runs, key=lambda run: (run.started, run.name))
    name = wanted.strip().strip("/") or ROOT_RUN
    for run in runs:
        if run.name == name:
            return run
    raise UsageError(
        f"{source}: no run {wanted!r} in this folder of event files. Runs found: {', '.join(r.name for r in runs)}. "
        "Pass one of these names (run=NAME, --run NAME), or leave it out to read the most recent."
    )


def runs_note(chosen: EventRun, runs: list[EventRun], asked: bool) -> str:
    """Which run was read and which were left out, for the report's notes."""
    others = [run.name for run in runs if run is not chosen]
    why = "as asked" if asked else "the most recent: its writer started last"
    return (f"this folder holds {len(runs)} runs; read run {chosen.name!r} ({why}) and never paired its series "
            f"with another run's. Other runs: {', '.join(others)}. Pass run=NAME (--run NAME) to read another.")
