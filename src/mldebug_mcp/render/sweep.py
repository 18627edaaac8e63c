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
        lines.append(f"  {'arm':<22} {'verdict':<7} {'diff':>9} {'CI ' + format(report.ci_level, '.0%'):>21} "
                     f"{'t':>7} {'p':>8} {'p adj':>8} {'wins':>5}")
        lines += [_comparison_line(c) for c in report.comparisons]
        for comparison in report.comparisons:
            lines += _details(comparison)
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


def _comparison_line(c: SweepComparison) -> str:
    label = c.arm if len(c.arm) <= 22 else c.arm[:21] + "~"
    interval = f"{_n(c.ci_low)} .. {_n(c.ci_high)}" if c.ci_low is not None else "-"
    wins = f"{c.wins}/{len(c.shared_seeds)}" if c.wins is not None else "-"
    return (f"  {label:<22} {VERDICTS[c.verdict]:<7} {_n(c.mean_difference, '+.4g'):>9} {interval:>21} "
            f"{_n(c.t, '.3g'):>7} {_n(c.p, '.2g'):>8} {_n(c.p_adjusted, '.2g'):>8} {wins:>5}")


def _details(c: SweepComparison) -> list[str]:
    """The sentence, the per-seed differences and the notes of a comparison that found an effect or has notes."""
    if c.verdict not in ("better", "worse") and not c.notes:
        return []
    lines = ["", f"  {c.arm}: {c.summary}" if c.summary else f"  {c.arm}:"]
    lines = lines[:1] + wrapped(lines[1].strip(), "    ")
    if c.differences:
        shown = ", ".join(f"{d.seed} {d.difference:+.4g}" for d in c.differences[:MAX_SEEDS_SHOWN])
        more = f", ... {len(c.differences) - MAX_SEEDS_SHOWN} more" if len(c.differences) > MAX_SEEDS_SHOWN else ""
        lines += wrapped(f"per seed (arm - baseline): {shown}{more}", "      ")
    for note in c.notes:
        lines += wrapped("note: " + note, "      ")
    return lines


def _n(value: float | None, spec: str = ".4g") -> str:
    return "-" if value is None else format(value, spec)
