"""`sweep`: is a difference between runs real, or seed noise?"""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_OK, Command, emit_json


def _sweep_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path,
                        help="a runs table (CSV/TSV, JSON lines, a W&B or MLflow CSV export) or a folder of runs "
                             "(TensorBoard event files or trainer_state.json, one sub-folder per run named key=value)")
    parser.add_argument("--metric", metavar="NAME", help="column or series compared (default: guessed, eval-like first)")
    parser.add_argument("--seed-column", metavar="NAME", help="column holding the seed (default: seed, random_seed, ...)")
    parser.add_argument("--factor", metavar="COL[,COL]",
                        help="setting(s) that define the arms (default: every setting that varies)")
    parser.add_argument("--baseline", metavar="ARM", help="arm compared against: its label, or col=value pairs "
                                                          "(default: one named baseline/control/default, else the first)")
    parser.add_argument("--take", choices=("last", "best"), default="last",
                        help="of a folder of runs: each run's last or best value of the metric (default: last)")
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher", action="store_const", const=True,
                           help="the metric improves upward (default: guessed from its name)")
    direction.add_argument("--lower-is-better", dest="higher", action="store_const", const=False,
                           help="the metric improves downward (loss, error, perplexity)")
    parser.add_argument("--alpha", type=float, default=0.05, help="family-wise error rate of the verdicts (default 0.05)")
    parser.add_argument("--plot", type=Path, metavar="PNG", help="write a paired-dot plot (needs matplotlib)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run_sweep(args: argparse.Namespace) -> int:
    from ..render.sweep import sweep_text
    from ..services.sweep import sweep_report

    report = sweep_report(args.path, args.metric, seed_column=args.seed_column, factor=args.factor,
                          baseline=args.baseline, take=args.take, higher_is_better=args.higher, alpha=args.alpha,
                          plot=args.plot)
    if args.json:
        emit_json(report.to_json_data())
        return EXIT_OK
    print(sweep_text(report))
    return EXIT_OK


# Declared last: each names the functions above.
COMMANDS = (
    Command("sweep", "is it real or seed noise: compare the arms of a sweep across seeds",
            _sweep_arguments, run_sweep,
            description="Reads a runs table or a folder of runs, groups runs into arms by their settings, and "
                        "compares each arm with a baseline: paired differences on shared seeds, within-seed "
                        "z-scores and their cross-seed t, a bootstrap interval, Holm-corrected p-values and a "
                        "verdict. Exit codes: 0 read and compared, 2 usage or I/O error."),
)
