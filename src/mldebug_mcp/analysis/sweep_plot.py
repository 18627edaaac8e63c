"""write_sweep_plot: a paired-dot plot of a sweep, one column per arm, one line per seed.

Each run is a dot; the runs of one seed are joined across arms by a thin line, so a gain that holds
on every seed shows as parallel lines and a lucky seed as one line leaving the others. A bar marks
each arm's mean; the tick label carries the verdict. matplotlib is the optional `plots` extra,
imported inside the function as curve_plot does.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..models.sweep import SweepReport

MAX_ARMS_DRAWN = 60
MAX_SEED_LINES = 40
MARKS = {"better": "better", "worse": "worse", "within_noise": "noise", "undetermined": "?"}


def write_sweep_plot(report: SweepReport, path: Path) -> Path:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError('plots need matplotlib: pip install "mldebug-mcp[plots]"') from exc
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arms = report.arms[:MAX_ARMS_DRAWN]
    verdicts = {c.arm: c.verdict for c in report.comparisons}
    figure, axes = plt.subplots(figsize=(max(6.0, min(16.0, 1.0 + 0.6 * len(arms))), 5))
    seeds = list(dict.fromkeys(run.seed for arm in arms for run in arm.runs if run.seed is not None))
    colours = plt.get_cmap("tab10")
    for index, seed in enumerate(seeds[:MAX_SEED_LINES]):
        points = [(x, run.value) for x, arm in enumerate(arms) for run in arm.runs
                  if run.seed == seed and run.value is not None]
        axes.plot([p[0] for p in points], [p[1] for p in points], "-o", color=colours(index % 10), alpha=0.55,
                  linewidth=0.8, markersize=4, label=f"seed {seed}" if index < 10 else None)
    if not seeds:  # unpaired: the runs of an arm spread a little sideways
        for x, arm in enumerate(arms):
            values = [run.value for run in arm.runs if run.value is not None]
            offsets = [x + 0.15 * (i / max(1, len(values) - 1) - 0.5) for i in range(len(values))]
            axes.plot(offsets, values, "o", color="tab:blue", alpha=0.6, markersize=4)
    for x, arm in enumerate(arms):
        if arm.mean is not None:
            axes.hlines(arm.mean, x - 0.3, x + 0.3, color="black", linewidth=2)
    labels = [arm.label if arm.label == report.baseline else f"{arm.label}\n{MARKS[verdicts.get(arm.label, 'undetermined')]}"
              for arm in arms]
    labels[0] = arms[0].label if arms[0].label.lower() == "baseline" else f"{arms[0].label}\n(baseline)"
    axes.set_xticks(range(len(arms)), labels, rotation=45 if len(arms) > 8 else 0, fontsize=8,
                    ha="right" if len(arms) > 8 else "center")
    direction = "higher" if report.higher_is_better else "lower"
    axes.set_ylabel(f"{report.metric} ({direction} is better)")
    shown = "" if len(report.arms) <= MAX_ARMS_DRAWN else f", first {MAX_ARMS_DRAWN} of {len(report.arms)} arms"
    axes.set_title(f"{Path(report.source).name}: {report.metric} per arm, lines join a seed's runs{shown}", fontsize=10)
    if seeds:
        axes.legend(fontsize=7, loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
