"""`landscape`: the loss around where training stopped, on one batch, in a subprocess."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_OK, Command, emit_json, progress_printer


def _landscape_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", help="e.g. train.py:debug_spec (as diagnose takes it)")
    parser.add_argument("--checkpoint", metavar="PATH",
                        help="state dict to load into the spec's model first (torch.load(weights_only=True))")
    parser.add_argument("--python", help="interpreter whose environment has torch and your code (default: as diagnose)")
    parser.add_argument("--device", help="cpu, cuda, cuda:1 or mps (default: where the model's parameters are)")
    parser.add_argument("--points", type=int, default=41, help="points per 1-D slice (default 41)")
    parser.add_argument("--grid", type=int, default=21, help="side of the 2-D grid (default 21: 441 evaluations)")
    parser.add_argument("--span", type=float, default=1.0,
                        help="slices run over [-span, span]; 1 moves every filter by its own norm (default 1)")
    parser.add_argument("--directions", type=int, choices=(1, 2), default=2,
                        help="random directions: 2 also draws the 2-D grid (default 2)")
    parser.add_argument("--power-iterations", type=int, default=20,
                        help="Hessian-vector products per eigenvalue estimate (default 20)")
    parser.add_argument("--mode", choices=("train", "eval"), default="train",
                        help="module mode during the probe (default train; dropout masks are the same at every point)")
    parser.add_argument("--budget", type=float,
                        help="seconds the probe may spend; the 2-D grid shrinks to fit (default 60, or half the "
                             "timeout when that is less)")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall-clock limit in seconds (default 120)")
    parser.add_argument("--memory-mb", type=int, default=8192,
                        help="memory limit of the child and every process it starts, together (default 8192 MB)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", type=Path, metavar="DIR", help="write landscape_1d.png and landscape_2d.png there")
    parser.add_argument("--progress", action="store_true", help="report each stage on stderr even when not a terminal")
    parser.add_argument("--json", action="store_true", help="machine-readable report")
    parser.add_argument("--allow-import-side-effects", action="store_true",
                        help="import FILE even though it calls more than definitions at module level")


def run_landscape(args: argparse.Namespace) -> int:
    import anyio

    from ..render.landscape import landscape_text
    from ..services import diagnose
    from ..services.landscape import landscape_target

    target_folder = Path(args.target.rpartition(":")[0]).expanduser().absolute().parent
    interpreter = diagnose.interpreter_for(args.python, list(dict.fromkeys([target_folder, Path.cwd()])))
    limits = diagnose.limits(args.timeout, args.memory_mb, interpreter.path)
    report = anyio.run(lambda: landscape_target(
        args.target, checkpoint=args.checkpoint, limits=limits, device=args.device, seed=args.seed,
        points=args.points, grid=args.grid, span=args.span, directions=args.directions,
        power_iterations=args.power_iterations, budget_s=args.budget, mode=args.mode, plot_dir=args.plot,
        on_progress=progress_printer(args.progress), interpreter_source=interpreter.source,
        allow_import_side_effects=args.allow_import_side_effects))
    if args.json:
        emit_json(report.to_json_data())
    else:
        print(landscape_text(report))
    return EXIT_OK


# Declared last: each names the functions above.
COMMANDS = (
    Command("landscape", "the loss around where training stopped: slices, sharpness, minimum/slope/plateau",
            _landscape_arguments, run_landscape,
            description="TARGET is FILE.py:FUNCTION or package.module:FUNCTION returning a debug spec, as for "
                        "diagnose; --checkpoint loads a state dict into its model first. On the spec's batch, "
                        "evaluates the loss along random directions normalised per filter (Li et al. 2018) and "
                        "along the gradient, on a 2-D grid of the two random directions, and estimates the "
                        "Hessian's extreme eigenvalues by power iteration; says whether the point is at a minimum, "
                        "on a slope, on a plateau or at a saddle, with the thresholds. Exit codes: 0 probed, 2 the "
                        "setup could not be run or the request is invalid."),
)
