"""Command line: argv -> service call -> render -> exit code. No logic lives here.

Exit codes: 0 success, 1 findings / no match / audit problems, 2 usage or I/O error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..render import evidence as render
from . import triage as cli_triage
from ..errors import MldebugError, UsageError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mldebug-mcp",
        description="Debug ML training the way practitioners do: lint, runtime diagnostics, cited quotes, skill install.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    cli_triage.add_commands(commands)

    quote = commands.add_parser(
        "quote", help="verbatim quotes from the primary sources",
        description="`quote jones` lists a source's excerpts; `quote jones/assume-a-bug` gives one.",
    )
    quote.add_argument("key", nargs="?", help="source key (jones) or excerpt id (jones/assume-a-bug)")
    mode = quote.add_mutually_exclusive_group()
    mode.add_argument("--claim", metavar="TEXT", help="claims of the evidence map matching TEXT, with their quotes")
    mode.add_argument("--search", metavar="TEXT", help="search the text of every excerpt")
    mode.add_argument("--list", action="store_true", help="list every source")
    quote.add_argument("--json", action="store_true", help="machine-readable output")
    quote.add_argument("--limit", type=int, default=10, help="most results for --search/--claim (default 10)")

    audit = commands.add_parser("audit", help="check the bundled skill, references and evidence")
    audit.add_argument("--root", type=Path, help="content root to audit (default: the bundled content)")
    audit.add_argument("--json", action="store_true", help="machine-readable output")

    install = commands.add_parser("install-skill", help="write an installable skill folder")
    install.add_argument(
        "--dest", type=Path, default=Path("~/.claude/skills"),
        help="parent folder; the skill goes in DEST/<skill-name> (default ~/.claude/skills)",
    )
    install.add_argument("--force", action="store_true", help="replace an existing folder with other content")

    serve = commands.add_parser("serve", help="run the MCP server (stdio by default)")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio",
                       help="stdio (default) or streamable HTTP")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    serve.add_argument(
        "--allow-dir", action="append", metavar="DIR",
        help="directory tools may read user files from (repeatable; default: $MLDEBUG_ALLOW_DIRS, "
        "else the working directory)",
    )
    serve.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                       help="stderr logging level (default WARNING)")

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

    rules = commands.add_parser("rules", help="list the lint rules")
    rules.add_argument("--json", action="store_true")

    explain = commands.add_parser("explain", help="explain one lint rule: why, bad and good code, the evidence")
    explain.add_argument("rule", help="rule code (MLD001) or name (activation-into-logit-loss)")

    diagnose = commands.add_parser(
        "diagnose", help="run 15 runtime checks on a small training setup, in a subprocess",
        description="TARGET is FILE.py:FUNCTION or package.module:FUNCTION; the function returns a dict "
                    "(or DebugSpec) with model, batch=(inputs, targets), loss_fn, task and optional "
                    "optimizer, val_batch, seq_dim, preprocess, train_step, gradcheck. "
                    "Exit codes: 0 no check failed, 1 a check failed, 2 the setup could not be run.",
    )
    diagnose.add_argument("target", help="e.g. train.py:debug_spec")
    _add_run_options(diagnose)
    diagnose.add_argument("--checks", metavar="IDS", help="comma-separated subset of check ids (default: all)")
    diagnose.add_argument("--json", action="store_true", help="machine-readable report")
    diagnose.add_argument("--plot", type=Path, metavar="DIR", help="write PNG plots of curves and per-layer values")
    diagnose.add_argument("--verbose", action="store_true", help="explain passing checks too")
    diagnose.add_argument("--no-quotes", action="store_true", help="omit the evidence quotes")

    demo = commands.add_parser("demo", help="lint and diagnose a bundled buggy example, with the evidence")
    demo.add_argument("--example", default="double_softmax", help="bundled example folder (default double_softmax)")

    config = commands.add_parser("config", help="print the snippet that registers the server with a client")
    config.add_argument("client", choices=["claude", "cursor", "vscode", "codex"])
    return parser


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter whose environment has torch and your code (default: this one)")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall-clock limit in seconds (default 120)")
    parser.add_argument("--memory-mb", type=int, default=8192, help="resident memory limit (default 8192 MB)")
    parser.add_argument("--device", help="cpu, cuda, cuda:1 or mps (default: where the model's parameters are)")
    parser.add_argument("--steps", type=int, default=200, help="step budget of the overfit check (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--progress", action="store_true", help="report each check on stderr even when not a terminal")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    handler = {
        "quote": _quote, "audit": _audit, "install-skill": _install, "serve": _serve, "config": _config,
        "lint": _lint, "rules": _rules, "explain": _explain, "diagnose": _diagnose, "demo": _demo,
        "triage": lambda a: cli_triage.run_triage(a, _emit_json),
        "advice": lambda a: cli_triage.run_advice(a, _emit_json),
        "curve": lambda a: cli_triage.run_curve(a, _emit_json),
    }[args.command]
    try:
        return handler(args)
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except MldebugError as exc:
        print(f"mldebug-mcp {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"mldebug-mcp {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _emit_json(payload: object) -> None:
    print(json.dumps(payload, indent=2, ensure_ascii=False))


def _quote(args: argparse.Namespace) -> int:
    from ..citations import lookup
    from ..citations.store import load_store

    store = load_store()
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.list:
        sources = sorted(store.sources.values(), key=lambda s: s.key)
        if args.json:
            _emit_json([s.model_dump() for s in sources])
        else:
            counts = {s.key: len(store.excerpts_of(s.key)) for s in sources}
            print(render.sources_text(sources, counts))
        return EXIT_OK
    if args.claim is not None:
        matches = lookup.match_claims(store, args.claim, limit=args.limit)
        return _emit_results(
            matches, args.json, render.claims_text,
            f"no claim matches {args.claim!r}; try `--search` to search the quotes themselves",
        )
    if args.search is not None:
        quotes = lookup.search_quotes(store, args.search, limit=args.limit)
    elif args.key:
        quotes = lookup.quotes_for_key(store, args.key)
    else:
        raise UsageError(
            "give a source key or excerpt id (quote jones), or one of --search TEXT, --claim TEXT, --list"
        )
    return _emit_results(
        quotes, args.json, render.quotes_text, f"no excerpt matches {args.search!r}; try fewer words, or `--claim`"
    )


def _emit_results(results: list, as_json: bool, to_text, empty_message: str) -> int:
    """Print results as JSON or text; an empty result says why on stderr and exits 1."""
    if as_json:
        _emit_json([r.model_dump() for r in results])
    elif results:
        print(to_text(results))
    else:
        print(empty_message, file=sys.stderr)
    return EXIT_OK if results else EXIT_FINDINGS


def _audit(args: argparse.Namespace) -> int:
    from .. import content
    from ..content.audit import audit_content

    root = args.root if args.root is not None else content.content_root()
    if not root.is_dir():
        raise UsageError(f"--root {root} is not a folder; give the folder holding skill/, refs/, evidence/")
    problems = audit_content(root)
    if args.json:
        _emit_json([p.model_dump() for p in problems])
    elif problems:
        print(render.problems_text(problems))
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} found", file=sys.stderr)
    else:
        print("content audit: no problems")
    return EXIT_FINDINGS if problems else EXIT_OK


def _install(args: argparse.Namespace) -> int:
    from ..content.skill_install import install_skill, validate_skill

    folder, status = install_skill(args.dest, force=args.force)
    problems = validate_skill(folder)
    for problem in problems:
        print(f"{folder}: {problem}", file=sys.stderr)
    print(f"skill {status}: {folder}")
    return EXIT_FINDINGS if problems else EXIT_OK


def _serve(args: argparse.Namespace) -> int:
    import logging

    from ..services.paths import AllowedDirs
    from ..server.app import build_server

    # stdout belongs to the protocol on stdio: every log line goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="%(levelname)s %(name)s: %(message)s")
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a TCP port; use 1-65535")
    server = build_server(AllowedDirs.from_config(args.allow_dir))
    try:
        if args.transport == "stdio":
            import anyio

            from ..server.stdio import run_stdio

            anyio.run(run_stdio, server)
        else:
            print(f"mldebug MCP server on http://{args.host}:{args.port}/mcp", file=sys.stderr)
            server.run("streamable-http", host=args.host, port=args.port)
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _lint(args: argparse.Namespace) -> int:
    from ..render import lint as lint_render
    from ..lint.catalog import rule_infos
    from ..lint.config import load_settings
    from ..lint.engine import lint_paths

    missing = [str(p) for p in args.paths if not p.exists()]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    settings = load_settings(args.paths[0], args.select, args.ignore)
    result = lint_paths(args.paths, settings, jobs=args.jobs)
    if args.format == "json":
        print(lint_render.as_json(result))
    elif args.format == "sarif":
        print(lint_render.sarif(result, rule_infos()))
    else:
        if result.findings:
            print(lint_render.text(result, show_fix=not args.no_fix))
        if args.statistics and result.findings:
            print(lint_render.statistics(result))
        print(lint_render.summary(result), file=sys.stderr)
    return EXIT_FINDINGS if result.findings else EXIT_OK


def _rules(args: argparse.Namespace) -> int:
    from ..lint.catalog import rule_infos

    infos = rule_infos()
    if args.json:
        _emit_json([i.model_dump() for i in infos])
    else:
        width = max(len(i.name) for i in infos)
        for info in infos:
            print(f"{info.code}  {info.name:<{width}}  {info.severity:<7}  {info.why}")
    return EXIT_OK


def _explain(args: argparse.Namespace) -> int:
    from ..lint.catalog import explain

    print(render.rule_text(explain(args.rule)))
    return EXIT_OK


def _progress_printer(force: bool):
    if not (force or sys.stderr.isatty()):
        return None

    def show(index: int, total: int, check: str) -> None:
        if check != "done":
            print(f"[{index + 1}/{total}] {check}", file=sys.stderr, flush=True)

    return show


def _diagnose(args: argparse.Namespace) -> int:
    import anyio

    from ..diagnostics import Limits, diagnose_target
    from ..render.diagnose import report_text

    if args.timeout <= 0 or args.memory_mb <= 0:
        raise UsageError("--timeout and --memory-mb must be positive")
    checks = [c.strip() for c in args.checks.split(",") if c.strip()] if args.checks else None
    limits = Limits(timeout_s=args.timeout, memory_mb=args.memory_mb, python=args.python)
    report = anyio.run(lambda: diagnose_target(args.target, limits=limits, device=args.device, steps=args.steps,
                                               seed=args.seed, checks=checks,
                                               on_progress=_progress_printer(args.progress)))
    if args.plot:
        from ..diagnostics.plots import write_plots

        report.plots = [str(p) for p in write_plots(report, args.plot)]
    if args.json:
        _emit_json(report.model_dump())
    else:
        print(report_text(report, quotes=not args.no_quotes, verbose=args.verbose))
    return EXIT_FINDINGS if report.status == "fail" else EXIT_OK


def _demo(args: argparse.Namespace) -> int:
    from .demo import demo_text, run_demo

    print("linting and diagnosing a bundled buggy example (a few seconds)...", file=sys.stderr)
    path, lint_report, report = run_demo(args.example, on_progress=_progress_printer(False))
    print(demo_text(path, lint_report, report))
    return EXIT_OK


def _config(args: argparse.Namespace) -> int:
    from ..content.client_config import snippet

    result = snippet(args.client)
    print(f"# {args.client}: {result.where}", file=sys.stderr)
    print(result.text, end="")
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
