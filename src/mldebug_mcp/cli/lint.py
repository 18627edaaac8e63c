"""`lint`, `rules`, `explain`: static checks for silent PyTorch training bugs, and their documentation."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from .common import EXIT_FINDINGS, EXIT_OK, Command, emit_json


def _lint_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", type=Path, help="files or directories (directories are walked)")
    parser.add_argument("--format", choices=["text", "json", "sarif"], default="text")
    parser.add_argument("--select", action="append", metavar="CODES",
                        help="only these rule codes or prefixes, comma-separated (replaces [tool.mldebug] select)")
    parser.add_argument("--ignore", action="append", metavar="CODES", help="skip these codes or prefixes")
    parser.add_argument("--severity", choices=["info", "warning", "error"],
                        help="report only findings at or above this severity (error: silent wrong results, warning: "
                             "likely bug, info: hygiene); the exit code follows. Default: [tool.mldebug] severity, "
                             "else info (all)")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--statistics", action="store_true", help="count findings per rule")
    parser.add_argument("--no-fix", action="store_true", help="text format: omit the fix line")
    parser.add_argument("--no-cache", action="store_true",
                        help="check every file afresh (by default a file unchanged since the last run with the same "
                             "settings and linter is not checked again; MLDEBUG_CACHE_DIR moves the cache, =off "
                             "turns it off)")


def _rules_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true")


def _explain_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", help="rule code (MLD001) or name (activation-into-logit-loss)")


def run_lint(args: argparse.Namespace) -> int:
    # The cyclic collector would only rescan the objects of the rule modules being imported (the engine turns it
    # off while it checks files): off for the whole command, about 4 ms of every start.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run_lint(args)
    finally:
        if collecting:
            gc.enable()


def _run_lint(args: argparse.Namespace) -> int:
    from ..render import lint as render
    from ..services import lint as service

    report = service.lint([str(p) for p in args.paths], select=args.select, ignore=args.ignore, jobs=args.jobs,
                          severity=args.severity, cache=not args.no_cache)
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


# Declared last: each names the functions above.
COMMANDS = (
    Command("lint", "find silent PyTorch training bugs in Python files and notebooks",
            _lint_arguments, run_lint,
            description="Exit codes: 0 clean, 1 findings (at or above --severity), 2 usage or I/O error."),
    Command("rules", "list the lint rules",
            _rules_arguments, run_rules),
    Command("explain", "explain one lint rule: why, bad and good code, the evidence",
            _explain_arguments, run_explain),
)
