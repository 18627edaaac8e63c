"""`triage`: ranked hypotheses for a described failure, or the decision tree one question at a time."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..errors import UsageError
from .common import EXIT_FINDINGS, EXIT_OK, Command, emit_json, text_argument

QUIT = {"q", "quit", "exit"}


def _triage_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--symptom", metavar="TEXT", help="the problem in your own words; '-' reads stdin")
    parser.add_argument("--observe", action="append", default=[], metavar="KEY",
                        help="an observation key (repeatable), e.g. nan, cannot_overfit; --observe list shows all")
    parser.add_argument("--answer", action="append", default=[], metavar="NODE=ANSWER",
                        help="answer a tree question (repeatable), e.g. gap=worse; with --symptom, the answers rerank it")
    parser.add_argument("--limit", type=int, default=5, help="hypotheses before the subtle and null ones (default 5)")
    parser.add_argument("--detail", choices=("compact", "full"), default="full",
                        help="full (default): predictions of each test, anti-patterns, quotes; compact: the why, "
                             "the test, a one-line fix and evidence ids (what MCP clients get by default)")
    parser.add_argument("--candidate", action="append", default=[], metavar="CAUSE_ID",
                        help="a cause id you suspect (repeatable); it joins the list and the test plan")
    parser.add_argument("--catalogue", action="store_true",
                        help="also list every cause the tool knows, one line each (id | title | how it shows)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--no-quotes", action="store_true", help="evidence ids instead of quotes")


def _answers(pairs: list[str]) -> dict[str, str]:
    answers = {}
    for pair in pairs:
        node, sep, answer = pair.partition("=")
        if not sep or not node.strip() or not answer.strip():
            raise UsageError(f"--answer {pair!r} must look like NODE=ANSWER, e.g. crash=no")
        answers[node.strip()] = answer.strip()
    return answers


def run_triage(args: argparse.Namespace, ask: Callable[[str], str] | None = None) -> int:
    from ..models.observations import OBSERVATIONS
    from ..render.triage import triage_json_data, triage_text
    from ..services.triage import triage, triage_step

    if args.observe == ["list"]:
        for key, meaning in OBSERVATIONS.items():
            print(f"{key:<22} {meaning}")
        return EXIT_OK
    symptom = text_argument(args.symptom)
    if symptom.strip() or args.observe:
        observed = list(args.observe)
        if args.answer:  # answers to the thin report's questions rerank the description at once
            observed += triage_step(_answers(args.answer)).observations
        result = triage(symptom, observed, limit=args.limit, detail=args.detail,
                        include_catalogue=args.catalogue, candidates=args.candidate)
        if args.json:
            emit_json(triage_json_data(result))
        else:
            print(triage_text(result, quotes=not args.no_quotes))
        return EXIT_OK
    answers = _answers(args.answer)
    if args.json:
        emit_json(triage_step(answers).model_dump())
        return EXIT_OK
    return _interactive(answers, ask or input)


def _interactive(answers: dict[str, str], ask: Callable[[str], str]) -> int:
    from ..render.triage import step_text
    from ..services.triage import triage_step

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


# Declared last: each names the functions above.
COMMANDS = (
    Command("triage", "ranked hypotheses for a training failure, or walk the decision tree",
            _triage_arguments, run_triage,
            description="With --symptom or --observe: ranked hypotheses at once. Without: the decision tree asks "
                        "one cheap question at a time (type q to stop)."),
)
