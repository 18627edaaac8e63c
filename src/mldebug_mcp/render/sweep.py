"""Text rendering of a SweepReport: the arms and their spread, each comparison with its verdict, the warnings."""

from __future__ import annotations

from ..models.sweep import SweepArm, SweepComparison, SweepReport
from .text import wrapped

MAX_SEEDS_SHOWN = 12
VERDICTS = {"better": "BETTER", "worse": "WORSE", "within_noise": "noise", "undetermined": "?"}


def sweep_text(report: SweepReport) -> str:
    runs = sum(len(arm.runs) for arm in report.arms)
    direction = "higher" if report.higher_is_better else "lower"
    take = f", {report.take} value of each run" if report.take else ""
    lines = [f"sweep {report.source}  ({report.format}, {runs} runs, {len(report.arms)} arms)",
             f"  metric      {report.metric} ({direction} is better{take})",
             f"  arms by     {', '.join(report.factor)}; baseline {report.baseline!r}",
             f"  seeds       {report.seed_column or 'no seed column: runs compared unpaired'}", "",
             f"  {'arm':<22} {'n':>3} {'mean':>10} {'sd':>9} {'q10':>10} {'q90':>10} {'mean z':>7} {'t(z)':>7}"]
    lines += [_arm_line(arm) for arm in report.arms]
    if report.comparisons:
        lines.append("")
        lines += wrapped(f"against {report.baseline!r}; multiple comparisons: {report.correction}", "")
        for comparison in report.comparisons:
            lines += _comparison_lines(comparison)
    if report.warnings:
        lines += ["", "warnings:"]
        for warning in report.warnings:
            lines += wrapped(warning, "  - ")
    if report.notes:
        lines.append("")
        for note in report.notes:
            lines += wrapped(note, "note: ")
    if report.plot:
        lines.append(f"plot: {report.plot}")
    return "\n".join(lines)


def _arm_line(arm: SweepArm) -> str:
    label = arm.label if len(arm.label) <= 22 else arm.label[:21] + "~"
    return (f"  {label:<22} {arm.n:>3} {_n(arm.mean):>10} {_n(arm.sd):>9} {_n(arm.q10):>10} {_n(arm.q90):>10} "
            f"{_n(arm.mean_z, '.2f'):>7} {_n(arm.t_z, '.2f'):>7}")


def _comparison_lines(c: SweepComparison) -> list[str]:
    lines = [f"  {c.arm}: {VERDICTS[c.verdict]}"]
    lines += wrapped(c.summary, "      ")
    if c.differences:
        shown = ", ".join(f"{d.seed} {d.difference:+.4g}" for d in c.differences[:MAX_SEEDS_SHOWN])
        more = f", ... {len(c.differences) - MAX_SEEDS_SHOWN} more" if len(c.differences) > MAX_SEEDS_SHOWN else ""
        lines += wrapped(f"per seed (arm - baseline): {shown}{more}", "      ")
    for note in c.notes:
        lines += wrapped("note: " + note, "      ")
    return lines


def _n(value: float | None, spec: str = ".4g") -> str:
    return "-" if value is None else format(value, spec)
