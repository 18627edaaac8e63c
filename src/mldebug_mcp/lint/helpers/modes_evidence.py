"""Whether a model call is evaluation, and where a scope trains (MLD020).

Evidence that a forward evaluates, strongest first: its input comes from evaluation data (a val/test
loader, or a name that took a value from one earlier in the scope); it runs under no_grad in a region
that does not train, in code named for evaluation (the function, its class or its file: `predict`,
`Evaluator`, `inference.py`); it runs in a function named for evaluation that does not train; it runs
in a loop of a file that never trains and its outputs are collected (feature or activation extraction).
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from pathlib import PurePath

from ..context import ModuleContext
from .evaluation import (
    EVAL_WORDS,
    LOADER_WORD,
    NESTED,
    ident,
    is_eval_loader,
    own_nodes,
    scope_calls,
    tokens,
)
from .loops import LOOPS, is_backward, is_optimizer_step
from .modes_handed_models import calls_by_ident

EVAL_NAME = {"validate", "validation", "valid", "eval", "evaluate", "evaluation", "evaluator", "test", "testing",
             "tester", "predict", "prediction", "predictor", "inference", "infer", "inferencer", "forecast",
             "forecasting"}
# results taken off the graph or gathered: what extraction and inference code does with outputs
COLLECT = {"append", "extend", "numpy", "cpu", "tolist", "item", "detach", "save", "write", "imwrite"}
# the framework switches modes around these (Lightning, HF Trainer)
FRAMEWORK_BASES = re.compile(r"(?i)lightning|^transformers\.|^accelerate\.")
EXPORT = re.compile(r"^torch\.(onnx\.export|jit\.(trace|script)|export\.)")
LOOP_NODES = (*LOOPS, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


FILE_WORDS = EVAL_NAME | {"generate", "generation", "sample", "sampling", "demo", "detect", "translate",
                          "synthesize", "synthesis", "extract", "features"}


def eval_named(name: str, words_of_interest: set[str] = EVAL_NAME) -> bool:
    words = tokens(name)
    # bare "val" is also short for value (q_val, max_val): only as the first word
    return bool(words_of_interest & set(words)) or (bool(words) and words[0] == "val")


def named_for_evaluation(scope: ast.AST, ctx: ModuleContext, file_too: bool) -> bool:
    """The scope's name, its class's name or (with `file_too`) its file's name says evaluation."""
    names = [getattr(scope, "name", "")]
    cls = ctx.enclosing_class(scope) if not isinstance(scope, ast.Module) else None
    if cls is not None:
        names.append(cls.name)
    if any(eval_named(n) for n in names if n):
        return True
    stem = ctx.memo(("path-stem",), lambda: PurePath(ctx.path).stem)
    # pytest modules hold test code, not evaluation
    return file_too and not stem.startswith("test_") and not stem.endswith("_test") and eval_named(stem, FILE_WORDS)


def trains(nodes, ctx: ModuleContext) -> bool:
    return any(isinstance(n, ast.Call) and (is_backward(n) or is_optimizer_step(n, ctx)) for n in nodes)


def file_trains(ctx: ModuleContext) -> bool:
    return ctx.memo(("modes", "file-trains"), lambda: trains(ctx.by_type.get(ast.Call, ()), ctx))


def scope_trains(scope: ast.AST, ctx: ModuleContext) -> bool:
    return ctx.memo(("modes", "trains", id(scope)), lambda: trains(scope_calls(scope, ctx), ctx))


def enclosing_loops(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> list[ast.AST]:
    """Loops and comprehensions around `node` inside `scope`, innermost first."""
    found = []
    for anc in ctx.ancestors(node):
        if anc is scope:
            break
        if isinstance(anc, LOOP_NODES):
            found.append(anc)
    return found


def region_trains(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The innermost loop around `node` (else the whole scope) takes a training step."""
    loops = [n for n in enclosing_loops(node, scope, ctx) if isinstance(n, LOOPS)]
    if loops:
        return trains(ast.walk(loops[0]), ctx)
    return scope_trains(scope, ctx)


def eval_data(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The call's input is evaluation data and nothing around it trains on that data (test-time adaptation
    and saliency maps take gradients on test data on purpose)."""
    block = _innermost_block(call, scope, ctx)
    if block is not None and trains((n for s in block for n in ast.walk(s)), ctx):
        return False
    for loop in enclosing_loops(call, scope, ctx):
        iters = [loop.iter] if isinstance(loop, ast.For | ast.AsyncFor) else [
            g.iter for g in getattr(loop, "generators", [])]
        if any(eval_source(i) for i in iters):
            return not trains(ast.walk(loop), ctx)
    tainted = _eval_names_before(call, scope, ctx)
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for n in ast.walk(arg):
            if isinstance(n, ast.Name) and n.id in tainted:
                return True
        if _names_eval_data(arg):
            return True
    return False


def eval_source(expr: ast.AST) -> bool:
    """A loop's iterable (or a value) that is evaluation data: `val_loader`, `loaders["test"]`, `x_test`."""
    return is_eval_loader(expr) or _names_eval_data(expr)


def _names_eval_data(expr: ast.AST) -> bool:
    """`x_test`, `val_batch`, `self.test_images`, `testloader`: a name of evaluation data. A bare `test` or
    `val` names too much else (an if statement's test, a value)."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
            words = tokens(n.slice.value)  # loaders["val"], splits["test"]
            if EVAL_WORDS & set(words) and "train" not in words:
                return True
        if isinstance(n, ast.keyword) and _held_out_keyword(n):
            return True
        words = tokens(ident(n) or "") if isinstance(n, ast.Name | ast.Attribute) else []
        if "train" in words:
            return False
        if len(words) > 1 and EVAL_WORDS & set(words) or any(LOADER_WORD.fullmatch(w) for w in words):
            return True
    return False


SPLIT_KEYWORDS = {"split", "subset", "mode", "phase", "stage", "set_name", "image_set"}


def _held_out_keyword(keyword: ast.keyword) -> bool:
    """A keyword that builds held-out data whatever the data is called: `MNIST(root, train=False)`,
    `CelebA(root, split="test")`, `VOCSegmentation(image_set="val")`."""
    value = keyword.value
    if not isinstance(value, ast.Constant):
        return False
    if keyword.arg in {"train", "is_train", "training", "is_training"}:
        return value.value is False
    if keyword.arg in SPLIT_KEYWORDS and isinstance(value.value, str):
        words = set(tokens(value.value))
        return bool(EVAL_WORDS & words) and "train" not in words
    return False


def _innermost_block(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> list[ast.stmt] | None:
    child = node
    for anc in ctx.ancestors(node):
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(anc, field, None)
            if isinstance(block, list) and child in block:
                return block
        if anc is scope:
            return None
        child = anc
    return None


def _eval_names_before(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> set[str]:
    """Names holding evaluation data just before `call`: bound from a val/test loader (or from a name that
    was) by an assignment or a loop target earlier in the scope, and not rebound from other data since.
    Anything named for training data is not evaluation data, whatever it was computed from. The names after
    each binding of the scope are worked out once (asked for every model call, they were recomputed from the
    scope's first binding each time: quadratic in a long script)."""
    positions, states = ctx.memo(("modes", "eval-names", id(scope)), lambda: _eval_name_states(scope, ctx))
    return set(states[bisect_left(positions, (call.lineno, call.col_offset))])


def _eval_name_states(scope: ast.AST, ctx: ModuleContext) -> tuple[list[tuple[int, int]], list[frozenset[str]]]:
    """The positions of the scope's bindings in order, and the evaluation-data names before each (the last
    entry: after them all)."""
    positions: list[tuple[int, int]] = []
    states: list[frozenset[str]] = []
    tainted: frozenset[str] = frozenset()
    for node in _bindings_in_order(scope, ctx):
        positions.append((node.lineno, node.col_offset))
        states.append(tainted)
        if isinstance(node, ast.For | ast.AsyncFor):
            pairs = [(node.target, node.iter)]
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            pairs = [pair for t in targets for pair in _paired(t, node.value)]
        for target, source in pairs:
            names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
            from_eval = not _names_train_data(source) and (_names_eval_data(source) or any(
                isinstance(n, ast.Name) and n.id in tainted for n in ast.walk(source)))
            tainted = tainted | {n for n in names if "train" not in tokens(n)} if from_eval else tainted - names
    states.append(tainted)
    return positions, states


def _paired(target: ast.AST, value: ast.AST) -> list[tuple[ast.AST, ast.AST]]:
    """`a, b = x, y` binds a from x and b from y; any other shape binds every name from the whole value."""
    if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List) \
            and len(target.elts) == len(value.elts):
        return list(zip(target.elts, value.elts, strict=True))
    return [(target, value)]


def _names_train_data(expr: ast.AST) -> bool:
    return any(isinstance(n, ast.Name | ast.Attribute) and "train" in tokens(ident(n) or "") for n in ast.walk(expr))


def _bindings_in_order(scope: ast.AST, ctx: ModuleContext) -> list[ast.AST]:
    def compute():
        kinds = (ast.Assign, ast.AnnAssign, ast.For, ast.AsyncFor)
        if isinstance(scope, ast.Module):
            nodes = [n for k in kinds for n in ctx.by_type.get(k, ()) if ctx.scope_of(n) is scope]
        else:
            nodes = [n for n in own_nodes(scope, ctx) if isinstance(n, kinds)]
        nodes = [n for n in nodes if getattr(n, "value", True) is not None]
        return sorted(nodes, key=lambda n: (n.lineno, n.col_offset))
    return ctx.memo(("modes", "bindings", id(scope)), compute)


def collected(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The call's output is taken off the graph or gathered (`.detach().numpy()`, `outs.append(...)`),
    directly or through the name it is assigned to."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Expr):
        return True  # run for its forward hooks (forward_receiver keeps such calls only in files with hooks)
    names: set[str] = set()
    while isinstance(parent, ast.Attribute | ast.Call | ast.Subscript | ast.Tuple):
        if ident(parent) in COLLECT or (isinstance(parent, ast.Call) and ident(parent.func) in COLLECT):
            return True
        parent = ctx.parent(parent)
    if isinstance(parent, ast.Assign | ast.AnnAssign):
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    if not names:
        return False
    for use in scope_calls(scope, ctx):
        if use.lineno > call.lineno and ident(use.func) in COLLECT and any(
            isinstance(n, ast.Name) and n.id in names for n in ast.walk(use)
        ):
            return True
    return False


def framework_managed(scope: ast.AST, ctx: ModuleContext) -> bool:
    """Code whose mode someone else sets: per-batch hooks, unit tests, methods of a model (nn.Module) or of
    a Lightning/HF trainer class, and export/tracing code."""
    if isinstance(scope, NESTED[:2]):
        name = scope.name
        if name.endswith(("step", "_epoch_end", "_batch_end")) or name.startswith("on_") or name == "forward":
            return True
        if unit_test(scope, ctx):
            return True
        cls = ctx.enclosing_class(scope)
        if cls is not None and (any(FRAMEWORK_BASES.search(ctx.qualname(b) or "") for b in cls.bases)
                                or _unit_test_class(cls, ctx)):
            return True
        if cls is not None and model_class(cls, ctx):
            return True  # a model's own methods run in whatever mode its user set
    return any(EXPORT.match(ctx.call_name(c) or "") for c in scope_calls(scope, ctx))


def unit_test(scope: ast.AST, ctx: ModuleContext) -> bool:
    """A pytest/unittest test function: named test* and asserting (evaluation code reports), or a test_*()
    function of a pytest module (test_x.py, x_test.py) that nothing in the file calls (a parity or tracing
    test runs models whatever their mode, and checks by running)."""
    if not (isinstance(scope, NESTED[:2]) and scope.name.lower().startswith("test")):
        return False
    if any(isinstance(n, ast.Assert) or (ident(n) or "").startswith("assert") for n in ast.walk(scope)):
        return True
    # pytest collects test_x() and nothing in the file calls it; `def test(model, loader)` of test_net.py,
    # called by the script, is an evaluation
    stem = ctx.memo(("path-stem",), lambda: PurePath(ctx.path).stem)
    return (stem.startswith("test_") or stem.endswith("_test")) and scope.name.startswith("test_") and not any(
        isinstance(c.func, ast.Name) for c in calls_by_ident(ctx).get(scope.name, ()))


def _unit_test_class(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """A unittest/pytest class: a unittest.TestCase, or named for tests and asserting (self.assertEqual,
    assert)."""
    if any((ident(b) or "").endswith("TestCase") for b in cls.bases):
        return True
    if "test" not in tokens(cls.name):
        return False
    return ctx.memo(("modes", "unit-test-class", id(cls)), lambda: any(
        isinstance(n, ast.Assert) or (ident(n) or "").startswith("assert") for n in ast.walk(cls)))


def subclassed_trainer(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """A subclass of another module's trainer (`class GKD(SFTTrainer)`, `class Mine(BaseTrainer)` imported)
    that never puts a model it holds in training mode itself outside the per-step hooks: the base's loop
    does (train() around the steps, eval() in its evaluation loop) before it calls this class's methods, so
    a generation here makes training data (on-policy rollouts) or runs inside the base's evaluation. A
    subclass whose own epoch method calls `self.model.train()` runs the phases itself, and a base defined in
    this file is read like any code."""
    # ident() is the last name already (`trl.SFTTrainer` -> SFTTrainer)
    if not any((name := ident(b) or "").endswith("Trainer") and name not in ctx.classes for b in cls.bases):
        return False
    return ctx.memo(("modes", "subclassed-trainer", id(cls)), lambda: not any(
        _trains_held_model(m) for m in cls.body if isinstance(m, NESTED[:2])
        and not m.name.endswith("step") and not m.name.startswith("on_")))


def _trains_held_model(method: ast.AST) -> bool:
    """`self.model.train()` (or train(True)) somewhere in the method."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "train"
               and isinstance(n.func.value, ast.Attribute) and isinstance(n.func.value.value, ast.Name)
               and n.func.value.value.id == "self" and not n.keywords
               and (not n.args or (isinstance(n.args[0], ast.Constant) and n.args[0].value is True))
               for n in ast.walk(method))


def model_class(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """An nn.Module that does not train itself: its methods are the model's, not a driver's. Also a subclass
    of another module's class that defines forward() (a wrapper model around a pretrained one: its
    generate() delegates, its user owns the mode)."""
    return (any(_module_base(b, ctx) for b in cls.bases) or _wrapper_model(cls)) and not drives_itself(cls, ctx)


def _wrapper_model(cls: ast.ClassDef) -> bool:
    return bool(cls.bases) and any(isinstance(m, NESTED[:2]) and m.name == "forward" for m in cls.body)


def _module_base(base: ast.AST, ctx: ModuleContext) -> bool:
    return "Module" in (ident(base) or "") or (ctx.qualname(base) or "").startswith("torch.nn")


def drives_itself(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """An nn.Module that is also its own trainer or calibrator: one of its methods (or a closure there) calls
    backward(). Its other methods (infer(), a calibration pass over a loader) are driver
    code that runs its submodules in whatever mode the last phase left, not a forward pass its user switches."""
    # backward_scopes: the functions whose body calls backward() at any depth, found while indexing
    return any(m in ctx.backward_scopes for m in cls.body if isinstance(m, NESTED[:2]))


def mc_dropout(scope: ast.AST, ctx: ModuleContext) -> bool:
    """Dropout kept on at inference on purpose (Monte Carlo dropout, uncertainty estimates)."""
    if isinstance(scope, ast.Module):
        return False
    text = "\n".join(ctx.lines[scope.lineno - 1: scope.end_lineno])
    return re.search(r"(?i)dropout|monte|\bmc\b|mc_|_mc\b|uncertain|bayes", text) is not None
