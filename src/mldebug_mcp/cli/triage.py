"""CLI commands that reason about a failure rather than inspect code: triage, advice, curve.
argv -> service call -> render -> exit code, like cli.py, which registers them."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from ..errors import UsageError

EXIT_OK, EXIT_FINDINGS = 0, 1
QUIT = {"q", "quit", "exit"}


def add_commands(commands: argparse._SubParsersAction) -> None:
    triage = commands.add_parser(
        "triage", help="ranked hypotheses for a training failure, or walk the decision tree",
        description="With --symptom or --observe: ranked hypotheses at once. Without: the decision tree asks "
                    "one cheap question at a time (type q to stop).",
    )
    triage.add_argument("--symptom", metavar="TEXT", help="the problem in your own words; '-' reads stdin")
    triage.add_argument("--observe", action="append", default=[], metavar="KEY",
                        help="an observation key (repeatable), e.g. nan, cannot_overfit; --observe list shows all")
    triage.add_argument("--answer", action="append", default=[], metavar="NODE=ANSWER",
                        help="pre-answer a tree question (repeatable), e.g. crash=no")
    triage.add_argument("--limit", type=int, default=5, help="hypotheses before the subtle and null ones (default 5)")
    triage.add_argument("--json", action="store_true", help="machine-readable output")
    triage.add_argument("--no-quotes", action="store_true", help="evidence ids instead of quotes")


    advice = commands.add_parser(
        "advice", help="flag anti-patterns in a proposed fix or a draft answer",
        description="Exit codes: 0 clean, 1 anti-patterns found, 2 usage error.",
    )
    advice.add_argument("text", nargs="?", help="the proposed fix; '-' reads stdin")
    advice.add_argument("--file", type=Path, help="read the text (prose, code or both) from a file")
    advice.add_argument("--json", action="store_true", help="machine-readable output")
    advice.add_argument("--no-quotes", action="store_true", help="evidence ids instead of quotes")


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


def _read_symptom(value: str | None) -> str:
    if value == "-":
        return sys.stdin.read()
    return value or ""


def _answers(pairs: list[str]) -> dict[str, str]:
    answers = {}
    for pair in pairs:
        node, sep, answer = pair.partition("=")
        if not sep or not node.strip() or not answer.strip():
            raise UsageError(f"--answer {pair!r} must look like NODE=ANSWER, e.g. crash=no")
        answers[node.strip()] = answer.strip()
    return answers


def run_triage(args: argparse.Namespace, emit_json: Callable[[object], None],
               ask: Callable[[str], str] | None = None) -> int:
    from ..models.observations import OBSERVATIONS
    from ..render.triage import step_text, triage_text
    from ..services.triage import triage, triage_step

    if args.observe == ["list"]:
        for key, meaning in OBSERVATIONS.items():
            print(f"{key:<22} {meaning}")
        return EXIT_OK
    symptom = _read_symptom(args.symptom)
    if symptom.strip() or args.observe:
        result = triage(symptom, args.observe, limit=args.limit)
        if args.json:
            emit_json(result.model_dump())
        else:
            print(triage_text(result, quotes=not args.no_quotes))
        return EXIT_OK
    answers = _answers(args.answer)
    if args.json:
        emit_json(triage_step(answers).model_dump())
        return EXIT_OK
    return _interactive(answers, ask or input, step_text, triage_step)


def run_advice(args: argparse.Namespace, emit_json: Callable[[object], None]) -> int:
    from ..triage.advice import check_advice
    from ..render.triage import advice_text

    if (args.text is None) == (args.file is None):
        raise UsageError("give the text to check (or '-' for stdin), or --file PATH, but not both")
    text = args.file.read_text(encoding="utf-8") if args.file is not None else _read_symptom(args.text)
    report = check_advice(text)
    if args.json:
        emit_json(report.model_dump())
    else:
        print(advice_text(report, quotes=not args.no_quotes))
    return EXIT_OK if report.clean else EXIT_FINDINGS


def run_curve(args: argparse.Namespace, emit_json: Callable[[object], None]) -> int:
    from ..render.curves import curve_text
    from ..services.curves import curve_report, triage_hint
    from ..render.triage import triage_text
    from ..services.triage import triage

    report = curve_report(args.path, args.loss, args.val, args.classes, args.plot)
    ranked = None
    if args.triage and (report.observations or args.symptom):
        ranked = triage(args.symptom or "", report.observations)
    if args.json:
        # model_dump_json keeps NaN/Inf as "NaN"/"Infinity": json.dumps would write bare NaN, which is not JSON.
        emit_json({"curve": json.loads(report.model_dump_json()), "triage": ranked.model_dump() if ranked else None})
        return EXIT_OK
    print(curve_text(report))
    print()
    print(triage_text(ranked) if ranked else triage_hint(report))
    return EXIT_OK


def _interactive(answers: dict[str, str], ask: Callable[[str], str], step_text, triage_step) -> int:
    print("Triage: one cheap question at a time. Answer with one of the words listed; q stops.\n")
    while True:
        step = triage_step(answers)
        if step.done:
            try:
                described = ask("Describe the problem in a sentence or two (Enter to skip): ").strip()
            except EOFError:
                described = ""
            print()
            print(step_text(triage_step(answers, described)))
            return EXIT_OK
        print(step_text(step))
        try:
            reply = ask("> ").strip().lower()
        except EOFError:
            print("\nstopped before a leaf; rerun with --answer " + " --answer ".join(step.path or ["crash=..."]))
            return EXIT_FINDINGS
        if reply in QUIT:
            return EXIT_FINDINGS
        labels = [a.label for a in step.answers]
        if reply not in labels:
            print(f"please answer one of: {', '.join(labels)} (or q)\n")
            continue
        answers[step.node] = reply
        print()

