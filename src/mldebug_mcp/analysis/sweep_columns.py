"""Which column of a runs table is what: tracker bookkeeping, the seed, settings, metrics.

Rules, first match wins (the report's notes say what was guessed, and each guess can be overridden):
- bookkeeping of a tracker export is ignored: W&B's Name, State, Notes, User, Tags, Created, Runtime,
  Sweep and its _step/_runtime columns; MLflow's Run ID, Start Time, Duration, Status, tags.*; pandas'
  index column; a text column unique to each run while seeds repeat (a run id) -- but never a git
  commit column, which is a setting (two commits differ by every diff between them);
- the seed: the column asked for, else the first named like a seed (seed, random_seed, params.seed, ...);
- a prefix says it outright: params./config./hparams./args. are settings, metrics./summary. metrics;
- a column with a text cell is a setting; a numeric column is a metric when its name says so
  (acc, loss, f1, reward, eval, val, ...), a setting when its name says so (lr, batch, warmup, ...),
  and otherwise a metric when most of its values differ (a setting repeats across seeds).
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field

from ..errors import UsageError
from .curve_tables import MISSING
from .sweep_table import Cell, RawTable

BOOKKEEPING = frozenset({
    "name", "state", "notes", "user", "tags", "created", "updated", "runtime", "sweep", "id", "run id", "run_id",
    "run name", "start time", "end time", "start_time", "end_time", "duration", "source type", "source name",
    "status", "experiment_id", "experiment id", "artifact_uri", "lifecycle_stage", "hostname", "host", "heartbeat",
    "job type", "group", "run", "run_name", "models", "version", "dataset",
})
IGNORED_PREFIXES = ("unnamed:", "_", "tags.", "tag.", "mlflow.", "sys/", "system/", "system.")
NAME_COLUMNS = ("name", "run name", "run_name", "tags.mlflow.runname", "run", "run id", "run_id", "id")
FINISHED = frozenset({"finished", "ok", "success", "succeeded", "completed", "complete", "done"})
SEED_NAMES = ("seed", "random_seed", "seed_value", "run_seed", "rng_seed", "trial_seed", "global_seed")
SETTING_PREFIXES = ("params.", "param.", "config.", "config/", "hparams.", "hparams/", "args.", "cfg.")
METRIC_PREFIXES = ("metrics.", "metric.", "summary.", "summary/")
METRIC_WORDS = frozenset({
    "loss", "acc", "accuracy", "f1", "score", "reward", "return", "bleu", "rouge", "auc", "auroc", "map", "mse",
    "mae", "rmse", "error", "err", "perplexity", "ppl", "wer", "cer", "precision", "recall", "metric", "eval",
    "val", "valid", "validation", "test", "top1", "top5", "iou", "dice", "nll", "regret", "fid", "pass", "exact",
})
LOWER_IS_BETTER = frozenset({"loss", "error", "err", "mse", "mae", "rmse", "perplexity", "ppl", "wer", "cer", "nll",
                             "regret", "fid"})
EVAL_WORDS = frozenset({"eval", "val", "valid", "validation", "test"})
SETTING_WORDS = frozenset({
    "lr", "learning", "rate", "wd", "decay", "batch", "bs", "warmup", "dropout", "epochs", "momentum", "beta",
    "beta1", "beta2", "eps", "layers", "depth", "width", "hidden", "heads", "dim", "size", "clip", "temperature",
    "alpha", "lambda", "weight", "mult", "steps", "accumulation", "schedule", "scheduler", "optimizer", "arm",
})


@dataclass(frozen=True)
class Run:
    """One run: its settings (column -> value as text), seed, metric value and where it came from."""

    name: str
    settings: dict[str, str]
    seed: str | None
    value: float | None
    state: str | None = None  # the tracker's state when it is not a finished one


@dataclass
class RunsTable:
    """The runs of a sweep, with the metric chosen and what the reader guessed."""

    source: str
    format: str
    runs: list[Run]
    metric: str
    seed_column: str | None
    metric_candidates: list[str]
    higher_is_better: bool
    direction_guessed: bool
    take: str | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def words(name: str) -> set[str]:
    return set(re.split(r"[^a-z0-9]+", name.lower())) - {""}


def higher_is_better(metric: str) -> bool:
    return not words(metric) & LOWER_IS_BETTER


def number(cell: Cell) -> float | None:
    """A cell's number (NaN kept), or None for text, booleans and missing cells."""
    if isinstance(cell, bool) or cell is None:
        return None
    if isinstance(cell, int | float):
        return float(cell)
    try:
        return float(cell)
    except (TypeError, ValueError, OverflowError):
        return None


def is_missing(cell: Cell) -> bool:
    return cell is None or (isinstance(cell, str) and cell.strip().lower() in MISSING)


def text(cell: Cell) -> str:
    """A setting's value as text; a number written the same however the table spelled it (1e-3 == 0.001)."""
    value = number(cell)
    if value is not None and math.isfinite(value):
        return repr(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    return "" if cell is None else str(cell).strip()


def runs_of_table(raw: RawTable, metric: str | None = None, seed_column: str | None = None,
                  factor: list[str] | None = None, higher: bool | None = None) -> RunsTable:
    """The runs of a table, each with the settings, seed and metric value the rules above find."""
    columns = raw.columns
    lowered = {c.lower(): c for c in columns}
    seed = _pick(seed_column, columns, "seed column") if seed_column else _guess_seed(columns)
    bookkeeping = {c for c in columns if _is_bookkeeping(c)} - {seed} - set(factor or ())
    kinds = {c: _kind(c, raw) for c in columns if c not in bookkeeping and c != seed}
    for column in _identifiers(raw, [c for c, k in kinds.items() if k == "setting"], seed) - set(factor or ()):
        del kinds[column]  # a run id or name: unique per run while seeds repeat, so it names runs, not arms
        bookkeeping.add(column)
    for name in factor or ():
        kinds[_pick(name, columns, "setting")] = "setting"
    candidates = [c for c, k in kinds.items() if k == "metric"]
    if metric:
        metric = _pick(metric, columns, "metric column")
        kinds[metric] = "metric"
    elif not candidates:
        raise UsageError(f"{raw.source}: no metric column found (a column of numbers such as val_acc). Columns: "
                         f"{', '.join(columns[:30])}. Pass the metric's column (--metric NAME).")
    else:
        metric = next((c for c in candidates if words(c) & EVAL_WORDS), candidates[0])
    settings = [c for c, k in kinds.items() if k == "setting"]
    name_column = next((lowered[n] for n in NAME_COLUMNS if n in lowered), None)
    state_column = next((lowered[n] for n in ("state", "status") if n in lowered), None)
    runs = []
    for index, row in enumerate(raw.rows, 1):
        state = str(row.get(state_column) or "").strip().lower() if state_column else ""
        name = str(row.get(name_column) or "").strip() if name_column else ""
        value = number(row.get(metric))
        label = name if raw.measured and name else f"row {index}" + (f" ({name})" if name else "")  # a folder's run
        runs.append(Run(name=label,
                        settings={c: text(row.get(c)) for c in settings},
                        seed=None if seed is None or is_missing(row.get(seed)) else text(row.get(seed)),
                        value=value if value is not None and math.isfinite(value) else None,
                        state=state if state and state not in FINISHED else None))
    table = RunsTable(source=raw.source, format=raw.format, runs=runs, metric=metric, seed_column=seed,
                      metric_candidates=candidates or [metric],
                      higher_is_better=higher_is_better(metric) if higher is None else higher,
                      direction_guessed=higher is None, notes=list(raw.notes))
    _describe(table, bookkeeping, settings, raw)
    return table


def _describe(table: RunsTable, bookkeeping: set[str], settings: list[str], raw: RawTable) -> None:
    others = [c for c in table.metric_candidates if c != table.metric]
    table.notes.append(f"metric: {table.metric}" + (f" (other metric columns: {', '.join(others[:12])}; pass "
                                                     "--metric NAME to compare one)" if others else ""))
    table.notes.append(f"settings read from: {', '.join(settings) or 'none'}")
    if bookkeeping:
        table.notes.append(f"tracker bookkeeping ignored: {', '.join(sorted(bookkeeping)[:12])}")
    group = next((c for c in raw.columns if c.lower() == "group"), None)
    if group:
        groups = {text(row.get(group)) for row in raw.rows}
        if len(groups) > 1:
            table.warnings.append(f"the runs come from {len(groups)} groups ({', '.join(sorted(groups)[:6])}): "
                                  "groups differ in base config, date and code, so compare arms within one group "
                                  "(refs/sweeps.md, Pitfalls: comparing across groups)")
    if table.seed_column is None:
        table.warnings.append("no seed column found (seed, random_seed, params.seed, ...): runs cannot be paired by "
                              "seed, so arms are compared unpaired (Welch's t); pass --seed-column NAME if the "
                              "table has one under another name")


def _pick(name: str, columns: list[str], what: str) -> str:
    if name in columns:
        return name
    folded = {c.lower(): c for c in columns}
    if name.lower() in folded:
        return folded[name.lower()]
    close = difflib.get_close_matches(name, columns, n=3)
    hint = f" Did you mean: {', '.join(close)}?" if close else ""
    raise UsageError(f"no {what} {name!r} in the table.{hint} Columns: {', '.join(columns[:40])}")


def _guess_seed(columns: list[str]) -> str | None:
    bare = {_strip_prefix(c).lower(): c for c in reversed(columns)}
    found = next((bare[n] for n in SEED_NAMES if n in bare), None)
    return found or next((c for c in columns if _strip_prefix(c).lower().endswith("seed")), None)


def _strip_prefix(column: str) -> str:
    lowered = column.lower()
    for prefix in SETTING_PREFIXES + METRIC_PREFIXES:
        if lowered.startswith(prefix):
            return column[len(prefix):]
    return column


def _is_bookkeeping(column: str) -> bool:
    lowered = column.strip().lower()
    if "commit" in lowered:  # runs from two commits differ by every diff between them: a setting, not bookkeeping
        return False
    # "" and "unnamed: 0": the index column pandas writes
    return lowered in BOOKKEEPING or not lowered or lowered.startswith(IGNORED_PREFIXES)


def _identifiers(raw: RawTable, settings: list[str], seed: str | None) -> set[str]:
    """Text settings whose every row differs, in a table where seeds repeat (several runs per seed)."""
    rows = len(raw.rows)
    if seed is None or len({text(row.get(seed)) for row in raw.rows}) == rows:
        return set()
    return {c for c in settings if any(number(row.get(c)) is None for row in raw.rows)
            and len({text(row.get(c)) for row in raw.rows}) == rows}


def _kind(column: str, raw: RawTable) -> str:
    lowered = column.lower()
    if column in raw.measured:
        return "metric"
    if lowered.startswith(SETTING_PREFIXES):
        return "setting"
    if lowered.startswith(METRIC_PREFIXES):
        return "metric"
    cells = [row.get(column) for row in raw.rows if not is_missing(row.get(column))]
    if not cells or any(number(cell) is None for cell in cells):
        return "setting"
    named = words(column)
    if named & METRIC_WORDS:
        return "metric"
    if named & SETTING_WORDS:
        return "setting"
    return "metric" if len({text(c) for c in cells}) > max(2, len(cells) // 2) else "setting"
