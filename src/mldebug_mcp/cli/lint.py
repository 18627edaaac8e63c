"""`lint`, `rules`, `explain`: static checks for silent PyTorch training bugs, and their documentation."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .output import EXIT_FINDINGS, EXIT_OK, emit_json


def add_commands(commands: argparse._SubParsersAction) -> None:
    lint = commands.add_parser(
        "lint", help="find silent PyTorch training bugs in Python files",
        description="Exit codes: 0 clean, 1 findings, 2 usage or I/O error.",
    )
    lint.add_argument("paths", nargs="+", type=Path, help="files or directories (directories are walked)")
    lint.add_argument("--format", choices=["text", "json", "sarif"], default="text")
    lint.add_argument("--select", action="append", metavar="CODES",
                      help="only these rule codes or prefixes, comma-separated (replaces [tool.mldebug] select)")
    lint.add_argument("--ignore", action="append", metavar="CODES", help="skip these codes or prefixes")
    lint.add_argument("--jobs", "-j", type=int, default=1, help="worker processes (default 1)")
    lint.add_argument("--statistics", action="store_true", help="count findings per rule")
    lint.add_argument("--no-fix", action="store_true", help="text format: omit the fix line")
    lint.set_defaults(handler=run_lint)

    rules = commands.add_parser("rules", help="list the lint rules")
    rules.add_argument("--json", action="store_true")
    rules.set_defaults(handler=run_rules)

    explain = commands.add_parser("explain", help="explain one lint rule: why, bad and good code, the evidence")
    explain.add_argument("rule", help="rule code (MLD001) or name (activation-into-logit-loss)")
    explain.set_defaults(handler=run_explain)


def run_lint(args: argparse.Namespace) -> int:
    from ..render import lint as render
    from ..services import lint as service

    report = service.lint([str(p) for p in args.paths], select=args.select, ignore=args.ignore, jobs=args.jobs)
    if args.format == "json":
        print(render.as_json(report))
    elif args.format == "sarif":
        print(render.sarif(report, service.rules()))
    else:
        if report.findings:
            print(render.text(report, show_fix=not args.no_fix))
        if args.statistics and report.findings:
            print(render.statistics(report))
        print(render.summary(report), file=sys.stderr)
    return EXIT_FINDINGS if report.findings else EXIT_OK


def run_rules(args: argparse.Namespace) -> int:
    from ..render import lint as render
    from ..services import lint as service

    infos = service.rules()
    if args.json:
        emit_json([i.model_dump() for i in infos])
    else:
        print(render.rules_text(infos))
    return EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    from ..render import lint as render
    from ..services import lint as service

    print(render.rule_text(service.explain_rule(args.rule)))
    return EXIT_OK
