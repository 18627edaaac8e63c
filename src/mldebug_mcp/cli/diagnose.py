"""`diagnose`: run the runtime checks on a small training setup, in a child process."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_FINDINGS, EXIT_OK, Command, emit_json, progress_printer

EXIT_CHECK_ERROR = 3  # no check failed, but one raised: its verdict is missing, so the run is not a pass


def _diagnose_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", help="e.g. train.py:debug_spec")
    parser.add_argument("--python",
                        help="interpreter whose environment has torch and your code (default: the first with torch "
                        "of $VIRTUAL_ENV, the project's .venv or venv, this one)")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall-clock limit in seconds (default 120)")
    parser.add_argument("--memory-mb", type=int, default=8192, help="memory limit of the child and every process it starts, together (default 8192 MB)")
    parser.add_argument("--device", help="cpu, cuda, cuda:1 or mps (default: where the model's parameters are)")
    parser.add_argument("--steps", type=int, default=200, help="step budget of the overfit check (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nproc", type=int, default=1, metavar="N",
                        help="launch N ranks with torchrun (gloo on CPU, nccl on CUDA) and run the distributed checks; "
                             "the spec function may take rank and world_size (default 1: one process)")
    parser.add_argument("--progress", action="store_true", help="report each check on stderr even when not a terminal")
    parser.add_argument("--checks", metavar="IDS", help="comma-separated subset of check ids (default: all)")
    parser.add_argument("--json", action="store_true", help="machine-readable report")
    parser.add_argument("--plot", type=Path, metavar="DIR", help="write PNG plots of curves and per-layer values")
    parser.add_argument("--verbose", action="store_true", help="explain passing checks too")
    parser.add_argument("--no-quotes", action="store_true", help="omit the evidence quotes")
    parser.add_argument("--allow-import-side-effects", action="store_true",
                        help="import FILE even though it calls more than definitions at module level (by default a "
                             "script that would train on import is refused)")


def run_diagnose(args: argparse.Namespace) -> int:
    import anyio

    from ..render.diagnose import evidence_keys, report_text
    from ..services import diagnose as service
    from ..services.evidence import quotes_for

    checks = [c.strip() for c in args.checks.split(",") if c.strip()] if args.checks else None
    target_folder = Path(args.target.rpartition(":")[0]).expanduser().absolute().parent
    interpreter = service.interpreter_for(args.python, list(dict.fromkeys([target_folder, Path.cwd()])))
    limits = service.limits(args.timeout, args.memory_mb, interpreter.path)
    report = anyio.run(lambda: service.diagnose_target(
        args.target, limits=limits, device=args.device, steps=args.steps, seed=args.seed, checks=checks,
        plot_dir=args.plot, on_progress=progress_printer(args.progress), interpreter_source=interpreter.source,
        allow_import_side_effects=args.allow_import_side_effects, nproc=args.nproc))
    if args.json:
        emit_json(report.model_dump())
    else:
        quotes = None if args.no_quotes else quotes_for(evidence_keys(report))
        print(report_text(report, quotes, verbose=args.verbose))
    return exit_code(report.status)


def exit_code(status: str) -> int:
    """1 when a check failed, else 3 when a check raised (error), else 0 (pass, warn)."""
    return EXIT_FINDINGS if status == "fail" else EXIT_CHECK_ERROR if status == "error" else EXIT_OK


# Declared last: each names the functions above.
COMMANDS = (
    Command("diagnose", "run 16 runtime checks on a small training setup, in a subprocess",
            _diagnose_arguments, run_diagnose,
            description="TARGET is FILE.py:FUNCTION or package.module:FUNCTION; the function returns a dict (or "
                        "DebugSpec) with model, batch=(inputs, targets) or a collator's dict with 'labels', loss_fn "
                        "(or 'model' when the model returns its own .loss), task and optional optimizer, "
                        "val_batch, seq_dim, preprocess, train_step, gradcheck. FILE is read first and refused if "
                        "importing it would run more than definitions (put that under if __name__ == '__main__':). "
                        "Each check reports pass, warn, fail, skipped, or error when the check itself raised (that says "
                        "nothing about the model). Exit codes: 0 no check failed or raised (warnings allowed), 1 a "
                        "check failed, 2 the setup could not be run, 3 no check failed but one raised (error)."),
)
