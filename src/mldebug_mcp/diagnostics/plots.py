"""PNG plots of a report's series: overfit curve, gradient norms, update ratios, activation scale.

matplotlib is an optional dependency (`pip install "mldebug-mcp[plots]"`), imported only here.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..models.diagnose import DiagnosticReport
from .checks.update_ratio import WARN_HIGH, WARN_LOW

# (check id, series key, file name, title, kind)
PLOTS = (
    ("overfit_one_batch", None, "overfit_curve.png", "Overfit one batch: loss per step, at each rate tried", "curves"),
    ("input_dependence", None, "input_baselines.png", "Real vs baseline inputs and targets", "curves"),
    ("gradient_flow", "grad_norm", "gradient_norms.png", "Gradient norm per parameter (log scale)", "bars_log"),
    ("update_ratio", "log10_update_ratio", "update_ratios.png", "log10 update/weight ratio per layer", "bars_band"),
    ("activations", "activation_std", "activation_std.png", "Activation std per module (log scale)", "bars_log"),
    ("ranks_gradients_agree", "grad_norm_by_rank", "rank_gradient_norms.png",
     "Gradient norm per parameter on each rank (log scale)", "rank_bars_log"),
)


def write_plots(report: DiagnosticReport, directory: Path) -> list[Path]:
    """Write one PNG per check that has a series; return the paths written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError('plots need matplotlib: pip install "mldebug-mcp[plots]"') from exc
    directory.mkdir(parents=True, exist_ok=True)
    by_id = {c.id: c for c in report.checks}
    written = []
    for check_id, key, name, title, kind in PLOTS:
        check = by_id.get(check_id)
        data = (check.series if key is None else check.series.get(key)) if check else None
        if not data:
            continue
        rows = len(_parameter_names(data)) if kind == "rank_bars_log" else len(data)
        figure, axes = plt.subplots(figsize=(8, 4.5 if kind.startswith("curve") else max(3.0, 0.28 * rows + 1.5)))
        _draw(axes, data, kind)
        axes.set_title(f"{title}  [{check.status}]")
        figure.tight_layout()
        path = directory / name
        figure.savefig(path, dpi=110)
        plt.close(figure)
        written.append(path)
    return written


def _draw(axes: Any, data: Any, kind: str) -> None:
    if kind == "curves":
        everything = []
        for label, values in data.items():
            everything += _numbers(values)
            axes.plot(_numbers(values), label=label)
        axes.set_xlabel("step")
        axes.set_ylabel("loss")
        axes.set_yscale("log" if min((v for v in everything if math.isfinite(v)), default=1) > 0 else "linear")
        axes.legend()
    elif kind == "rank_bars_log":  # {rank: {parameter: norm}}: one bar per rank for each parameter
        names = _parameter_names(data)
        height = 0.8 / max(len(data), 1)
        everything = []
        for i, (label, per_parameter) in enumerate(data.items()):
            values = _numbers(per_parameter.get(n, "nan") for n in names)
            everything += values
            axes.barh([k + i * height for k in range(len(names))], values, height=height, label=label)
        axes.set_yticks([k + 0.4 - height / 2 for k in range(len(names))], labels=names, fontsize=7)
        axes.invert_yaxis()
        if everything and min((v for v in everything if math.isfinite(v)), default=0) > 0:
            axes.set_xscale("log")
        axes.legend(fontsize=7)
    else:
        names = list(data)
        values = _numbers(data.values())
        axes.barh(range(len(names)), values)
        axes.set_yticks(range(len(names)), labels=names, fontsize=7)
        axes.invert_yaxis()
        if kind == "bars_log" and values and min(values) > 0:
            axes.set_xscale("log")
        if kind == "bars_band":
            axes.axvspan(WARN_LOW, WARN_HIGH, color="tab:green", alpha=0.12, label="healthy band")
            axes.axvline(-3.0, color="tab:green", linestyle="--", linewidth=1, label="~1e-3 reference")
            axes.legend(fontsize=7)


def _parameter_names(per_rank: dict[str, dict[str, Any]]) -> list[str]:
    return list(dict.fromkeys(n for per_parameter in per_rank.values() for n in per_parameter))


def _numbers(values: Any) -> list[float]:
    """Series arrive through JSON, where non-finite floats are spelled as strings."""
    out = []
    for v in values:
        number = float(v)  # float() reads "nan", "inf" and "-inf" too
        out.append(number if math.isfinite(number) else float("nan"))
    return out
