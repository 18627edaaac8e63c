"""A folder of runs -> RawTable, one row per run: TensorBoard runs, or HF trainer_state.json files.

Each run is read by the curve reader (curve_io.read_curve, which opens every file through
safe_read within `roots`); its row holds the last or the best value of every series, the run's
folder as its name, and the settings written in that name as key=value pairs
(`lr=0.1,seed=2`, `lr=0.1/seed=2`, `wd=0_seed=3`; a lone `seed3` or `seed_3` gives the seed).
TensorBoard runs are grouped as the curve reader groups them (curve_runs: a run's sub-writers
and train/validation halves stay one run). Of the trainer_state.json files of one output folder,
the top-level one wins, else the latest checkpoint-N/.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from ..errors import UsageError
from .curve_io import MAX_LOG_BYTES, read_curve
from .curve_runs import group_runs, run_name
from .sweep_columns import higher_is_better as guessed_direction
from .sweep_table import RawTable

MAX_FOLDER_RUNS = 2_000
CHECKPOINT = re.compile(r"checkpoint-(\d+)$")
_KEY = re.compile(r"[A-Za-z][\w.]*")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_SEED = re.compile(r"(?i)(?<![a-z])seed[_-]?(\d+)(?![0-9])")


def read_runs_folder(path: Path, take: str, higher_is_better: bool | None, roots: tuple[Path, ...] | None = None,
                     metric: str | None = None) -> RawTable:
    """One row per run of the folder: settings from the run's name, and per series its last or best value
    (`take`; best follows each series' own direction, guessed from its name unless `higher_is_better`)."""
    events, states = _walk(path)
    if events:
        runs = [(r.name, r.folder) for r in group_runs(path, events)]
        fmt = "tfevents"
    else:
        runs, fmt = _trainer_states(path, states), "trainer_state"
    if len(runs) < 2:
        found = f"one run ({runs[0][0]})" if runs else "no TensorBoard event files and no trainer_state.json"
        raise UsageError(f"{path}: {found}. A sweep folder holds several runs, one sub-folder each, named by their "
                         "settings (lr=0.1,seed=1/); or pass a runs table (CSV or JSON lines, one row per run).")
    if len(runs) > MAX_FOLDER_RUNS:
        raise UsageError(f"{path}: {len(runs):,} runs, more than the {MAX_FOLDER_RUNS:,} read at once; pass a folder "
                         "holding one sweep")
    _check_size(path, runs, events if events else None)
    table = RawTable(source=str(path), format=fmt)
    seen: dict[str, None] = {"run": None}
    measured: dict[str, None] = {}
    for name, target in runs:
        log = read_curve(target, roots=roots)
        measured.update(dict.fromkeys(log.names))
        row: dict[str, object] = {"run": name, **settings_from_name(name)}
        for series in log.names:
            if metric is not None and series != metric:
                continue
            values = [v for v in log.columns(series)[1] if math.isfinite(v)]
            up = guessed_direction(series) if higher_is_better is None else higher_is_better
            row[series] = (values[-1] if take == "last" else max(values) if up else min(values)) if values else None
        table.notes += [f"{name}: {note}" for note in log.notes if "this folder holds" not in note]
        seen.update(dict.fromkeys(row))
        table.rows.append(row)
    if metric is not None and metric not in measured:
        raise UsageError(f"{path}: no run logs a series {metric!r}. Series found: {', '.join(list(measured)[:40])}. "
                         "Pass one of these as the metric.")
    table.columns = list(seen)
    table.measured = [m for m in measured if m in seen]
    return table


def settings_from_name(name: str) -> dict[str, str]:
    """key=value pairs in a run's name; a lone seedN gives the seed."""
    found: dict[str, str] = {}
    for part in re.split(r"[/,;\s]+", name):
        pieces = part.split("=")
        key = pieces[0]
        for middle in pieces[1:-1]:  # "0.1_warmup" between two '=': a value, then the next key
            value, next_key = _value_then_key(middle)
            if key:
                found[key] = value
            key = next_key
        if len(pieces) > 1 and key:
            found[key] = pieces[-1]
    if not any(k.lower().endswith("seed") for k in found) and (match := _SEED.search(name)):
        found["seed"] = match.group(1)
        if len(found) == 1:  # runs/baseline/seed_2, adam_seed3: what is left of the name is the arm
            rest = name[:match.start()] + name[match.end():]
            arm = re.sub(r"([/_-])[/_-]+", r"\1", rest).strip("/_- ")
            if arm:
                found["arm"] = arm
    return found


def _value_then_key(chunk: str) -> tuple[str, str]:
    """Split `value_key` at a '_' or '-': after a number if one ends there, else at the last place the rest
    is a name (so 'aux_loss_seed' is aux_loss and seed; write ',' between pairs when that guess is wrong)."""
    places = [i for i, ch in enumerate(chunk) if ch in "_-" and _KEY.fullmatch(chunk[i + 1:])]
    for i in places:
        if _NUMBER.fullmatch(chunk[:i]):
            return chunk[:i], chunk[i + 1:]
    if places:
        return chunk[:places[-1]], chunk[places[-1] + 1:]
    return chunk, ""


def _walk(path: Path) -> tuple[list[Path], list[Path]]:
    """Event files and trainer_state.json files under `path`; symlinked folders are not entered."""
    events, states = [], []
    for folder, dirnames, filenames in os.walk(path):
        dirnames.sort()
        events += [Path(folder) / n for n in filenames if "tfevents" in n]
        states += [Path(folder) / n for n in filenames if n == "trainer_state.json"]
    return events, states


def _trainer_states(root: Path, files: list[Path]) -> list[tuple[str, Path]]:
    """(run name, file) per output folder: its own trainer_state.json, else its latest checkpoint's."""
    best: dict[Path, tuple[int, Path]] = {}
    for file in files:
        folder, rank = file.parent, 1 << 62
        if match := CHECKPOINT.match(folder.name):
            folder, rank = folder.parent, int(match.group(1))
        if folder not in best or rank > best[folder][0]:
            best[folder] = (rank, file)
    return sorted((run_name(root, folder), file) for folder, (_, file) in best.items())


def _check_size(path: Path, runs: list[tuple[str, Path]], events: list[Path] | None) -> None:
    files = events if events is not None else [file for _, file in runs]
    total = sum(f.stat().st_size for f in files if f.is_file())
    if total > MAX_LOG_BYTES:
        raise UsageError(f"{path}: the runs' logs hold {total:,} bytes, over the {MAX_LOG_BYTES:,}-byte (1 GiB) limit "
                         "read for one sweep: pass a folder holding fewer runs")
