"""`curve`: classify a loss log, optionally draw it and rank hypotheses from what it shows."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_OK, Command, emit_json


def _curve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="the log file, or a folder of TensorBoard event files")
    parser.add_argument("--loss", metavar="NAME", help="series to treat as the training loss (default: guessed)")
    parser.add_argument("--val", metavar="NAME", help="series to treat as the validation loss (default: guessed)")
    parser.add_argument("--run", metavar="NAME",
                        help="of a folder holding several TensorBoard runs, the one to read (default: the most recent)")
    parser.add_argument("--metric", metavar="NAME",
                        help="metric series read beside the loss, for 'loss falls, metric flat' (default: guessed)")
    parser.add_argument("--classes", type=int, metavar="K", help="number of classes, to recognise a plateau at ln K")
    parser.add_argument("--plot", type=Path, metavar="PNG", help="write the curve with a log-scaled loss axis")
    parser.add_argument("--triage", action="store_true", help="also rank hypotheses from the observations")
    parser.add_argument("--symptom", metavar="TEXT", help="with --triage: your description, to sharpen the ranking")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run_curve(args: argparse.Namespace) -> int:
    from ..render.curves import curve_text, triage_hint
    from ..render.triage import triage_text
    from ..services.curves import curve_report
    from ..services.triage import triage

    report = curve_report(args.path, args.loss, args.val, args.classes, args.plot, run=args.run, metric=args.metric)
    ranked = None
    if args.triage and (report.observations or args.symptom):
        ranked = triage(args.symptom or "", report.observations)
    if args.json:
        # JSON mode spells NaN/Inf "NaN"/"Infinity": json.dumps would write bare NaN, which is not JSON.
        emit_json({"curve": report.to_json_data(), "triage": ranked.model_dump() if ranked else None})
        return EXIT_OK
    print(curve_text(report))
    print()
    print(triage_text(ranked) if ranked else triage_hint(report))
    return EXIT_OK


# Declared last: each names the functions above.
COMMANDS = (
    Command("curve", "classify a loss log: NaN onset, plateaus at ln k, divergence, spikes, train/val gap",
            _curve_arguments, run_curve,
            description="Reads CSV/TSV, JSON lines, JSON (HF trainer_state.json) or TensorBoard event files (a "
                        "file or a folder). Exit codes: 0 read and classified, 2 usage or I/O error."),
)
