"""`curve`: classify a loss log, optionally draw it and rank hypotheses from what it shows."""

from __future__ import annotations

import argparse
from pathlib import Path

from .output import EXIT_OK, emit_json


def add_commands(commands: argparse._SubParsersAction) -> None:
    curve = commands.add_parser(
        "curve", help="classify a loss log: NaN onset, plateaus at ln k, divergence, spikes, train/val gap",
        description="Reads CSV/TSV, JSON lines, JSON (HF trainer_state.json) or TensorBoard event files (a file or "
                    "a folder). Exit codes: 0 read and classified, 2 usage or I/O error.",
    )
    curve.add_argument("path", type=Path, help="the log file, or a folder of TensorBoard event files")
    curve.add_argument("--loss", metavar="NAME", help="series to treat as the training loss (default: guessed)")
    curve.add_argument("--val", metavar="NAME", help="series to treat as the validation loss (default: guessed)")
    curve.add_argument("--classes", type=int, metavar="K", help="number of classes, to recognise a plateau at ln K")
    curve.add_argument("--plot", type=Path, metavar="PNG", help="write the curve with a log-scaled loss axis")
    curve.add_argument("--triage", action="store_true", help="also rank hypotheses from the observations")
    curve.add_argument("--symptom", metavar="TEXT", help="with --triage: your description, to sharpen the ranking")
    curve.add_argument("--json", action="store_true", help="machine-readable output")
    curve.set_defaults(handler=run_curve)


def run_curve(args: argparse.Namespace) -> int:
    from ..render.curves import curve_text, triage_hint
    from ..render.triage import triage_text
    from ..services.curves import curve_report
    from ..services.triage import triage

    report = curve_report(args.path, args.loss, args.val, args.classes, args.plot)
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
