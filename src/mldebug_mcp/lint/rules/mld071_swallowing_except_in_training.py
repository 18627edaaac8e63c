import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.loops import (
    calls_in_order,
    is_backward,
    is_optimizer_step,
    is_scheduler_step,
)
from ..rule import Hit, Rule

BROAD = {"Exception", "BaseException"}
STEP_FUNCTIONS = {"train_step", "training_step", "step", "train_batch", "train_one_step", "train_on_batch"}
EXITS = {"exit", "_exit", "quit", "abort"}


class SwallowingExceptInTraining(Rule):
    """What it does: flags a bare `except:`, `except Exception:` or `except BaseException:` that
    does not re-raise, around code that calls backward(), an optimizer step, or a train_step().
    Handlers that deal with CUDA out-of-memory on purpose, or that exit the process, are left alone,
    and so is a backward() in a file that never steps anything (a profiler timing each module's
    backward, a gradient check): no weights are updated there.

    Why is this bad: shape errors, NaN checks, dtype mismatches and data bugs become silently
    skipped batches (or a silently ended run). Training reports success on whatever fraction
    of the data happened not to fail, and the log line, if any, scrolls away. Reported as info (hygiene): on
    real projects the broad excepts it met were deliberate (profilers, installation checks); the judges of the
    precision samples called 0 of 8 sampled findings a bug (`python benchmarks/lint_precision_report.py`).
    """

    code = "MLD071"
    name = "swallowing-except-in-training"
    category = "hygiene"
    severity = "info"
    message = "broad except around a training step swallows the error instead of re-raising"
    why = "Errors in the step turn into silently skipped batches; the run finishes and looks fine."
    fix = "Let it crash, or catch the one exception you expect (torch.cuda.OutOfMemoryError) and re-raise the rest."
    evidence = "karpathy-recipe/fails-silently"
    node_types = (ast.Try, ast.TryStar)
    requires_text = ('except',)  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        try:\n"
        "            opt.zero_grad()\n"
        "            loss_fn(model(x), y).backward()\n"
        "            opt.step()\n"
        "        except Exception:\n"
        "            continue\n"
    )
    GOOD = (
        "import torch\n"
        "def train(model, opt, loader, loss_fn):\n"
        "    for x, y in loader:\n"
        "        try:\n"
        "            opt.zero_grad()\n"
        "            loss_fn(model(x), y).backward()\n"
        "            opt.step()\n"
        "        except Exception:\n"
        "            print('failed batch')\n"
        "            raise\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        training = [c for c in calls_in_order(node.body) if _is_training_call(c, ctx)]
        if not training:
            return
        if all(is_backward(c) for c in training) and not _file_steps(ctx):
            return  # backward() alone in a file that never steps: timing, profiling or a gradient check
        ends_run = not _inside_loop(node, ctx)
        for handler in node.handlers:
            if _broad(handler.type) and not _handled(handler, ctx) and not (ends_run and _prints_traceback(handler, ctx)):
                yield Hit(handler)


def _is_training_call(call: ast.Call, ctx: ModuleContext) -> bool:
    if is_backward(call) or is_optimizer_step(call, ctx):
        return True
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in STEP_FUNCTIONS
    # obj.step() is an optimiser or env/scheduler step; only named training steps count on attributes
    return isinstance(func, ast.Attribute) and func.attr in STEP_FUNCTIONS - {"step"}


def _file_steps(ctx: ModuleContext) -> bool:
    """Some `.step()` (an optimiser's, a scaler's, an engine's; not a scheduler's) or a named training step
    runs in the file: its backward() calls update weights somewhere."""
    def compute() -> bool:
        for call in ctx.by_type.get(ast.Call, ()):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr == "step" and not is_scheduler_step(call, ctx):
                return True
            if _is_training_call(call, ctx) and not is_backward(call):
                return True
        return False
    return ctx.memo(("mld071-file-steps",), compute)


def _broad(expr: ast.AST | None) -> bool:
    if expr is None:
        return True
    if isinstance(expr, ast.Tuple):
        return any(_broad(e) for e in expr.elts)
    return isinstance(expr, ast.Name) and expr.id in BROAD


TRACEBACK_CALLS = {"traceback.print_exc", "traceback.print_exception", "traceback.format_exc",
                   "traceback.format_exception"}


def _inside_loop(node: ast.AST, ctx: ModuleContext) -> bool:
    """Whether the try sits in a loop of its function: a failure there is skipped and the loop goes on."""
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.For | ast.AsyncFor | ast.While):
            return True
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return False
    return False


def _prints_traceback(handler: ast.ExceptHandler, ctx: ModuleContext) -> bool:
    """`traceback.print_exc()` or `logger.exception(...)` in a handler around the whole run (no loop goes on
    after it): the run ends, with the full traceback on screen, rather than skipping the failure."""
    for node in ast.walk(handler):
        if isinstance(node, ast.Call) and (ctx.call_name(node) in TRACEBACK_CALLS
                                           or ctx.method_name(node) == "exception"):
            return True
    return False


def _handled(handler: ast.ExceptHandler, ctx: ModuleContext) -> bool:
    """Re-raises, exits the process, or deals with CUDA out-of-memory on purpose."""
    for node in ast.walk(handler):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call) and ((ctx.call_name(node) or "").rsplit(".", 1)[-1] in EXITS
                                           or (isinstance(node.func, ast.Name) and node.func.id in EXITS)):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "out of memory" in node.value.lower():
            return True
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
        if "OutOfMemory" in name:
            return True
    return False
