"""`audit`, `install-skill`, `config`: check the bundled content, install the skill, register the server."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import EXIT_FINDINGS, EXIT_OK, Command, emit_json


def _audit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", type=Path, help="content root to audit (default: the bundled content)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _install_skill_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
                        "--dest", type=Path, default=Path("~/.claude/skills"),
                        help="parent folder; the skill goes in DEST/<skill-name> (default ~/.claude/skills)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing folder with other content")


def _config_arguments(parser: argparse.ArgumentParser) -> None:
    from ..services.setup import CLIENTS

    parser.add_argument("client", choices=CLIENTS)
    parser.add_argument("--project", type=Path, metavar="DIR",
                        help="the folder the server's tools may read (default: the working directory)")


def run_audit(args: argparse.Namespace) -> int:
    from ..render.content import problems_text
    from ..services.setup import audit

    problems = audit(args.root)
    if args.json:
        emit_json([p.model_dump() for p in problems])
    elif problems:
        print(problems_text(problems))
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found", file=sys.stderr)
    else:
        print("content audit: no problems")
    return EXIT_FINDINGS if problems else EXIT_OK


def run_install(args: argparse.Namespace) -> int:
    from ..services.setup import install

    folder, status, problems = install(args.dest, force=args.force)
    for problem in problems:
        print(f"{folder}: {problem}", file=sys.stderr)
    print(f"skill {status}: {folder}")
    return EXIT_FINDINGS if problems else EXIT_OK


def run_config(args: argparse.Namespace) -> int:
    from ..services.setup import client_config

    result = client_config(args.client, args.project)
    print(f"# {args.client}: {result.where}", file=sys.stderr)
    print(result.text, end="")
    return EXIT_OK


# Declared last: each names the functions above.
COMMANDS = (
    Command("audit", "check the bundled skill, references and evidence",
            _audit_arguments, run_audit),
    Command("install-skill", "write an installable skill folder",
            _install_skill_arguments, run_install),
    Command("config", "print the snippet that registers the server with a client",
            _config_arguments, run_config),
)
