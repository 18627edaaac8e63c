import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.evaluation import (
    EVAL_WORDS,
    NESTED,
    ident,
    is_eval_call,
    is_eval_loader,
    is_train_call,
    mode_helper,
    model_call,
    own_nodes,
    scope_calls,
    tokens,
    under_no_grad,
    uses_torch,
)
from ..helpers.loops import LOOPS, calls_in_order, is_backward
from ..rule import Hit, Rule

FUNC_WORDS = {"validate", "validation", "eval", "evaluate", "evaluation", "test", "testing"}
METRIC = re.compile(r"accura|^acc$|f1|precision|recall|auc|metric|score|perplex|bleu|rouge|iou|dice|confusion"
                    r"|^item$|argmax|^eq$|loss|criterion")
# nn layers whose output does not depend on train/eval mode
MODE_FREE = re.compile(r"torch\.nn\.(Linear|Bilinear|Conv\w*|ReLU\d?|LeakyReLU|GELU|SiLU|ELU|Tanh|Sigmoid|Softmax"
                       r"|LogSoftmax|Softplus|Mish|Embedding|Flatten|Unflatten|\w*Pool\w*|Sequential|ModuleList"
                       r"|ModuleDict|Identity|LayerNorm|RMSNorm|Upsample|Parameter)$")


def eval_calls(ctx: ModuleContext) -> list[ast.Call]:
    return ctx.memo(("eval",), lambda: [c for c in ctx.by_type.get(ast.Call, ()) if is_eval_call(c)])


def mode_free(func: ast.AST, ctx: ModuleContext) -> bool:
    """The called model is known to hold no dropout/BatchNorm (or starts in eval mode: from_pretrained)."""
    value = ctx.resolve(func)
    if not isinstance(value, ast.Call):
        return False
    if ctx.method_name(value) == "from_pretrained":
        return True
    return _free_build(value, ctx, 0)


def _free_build(value: ast.AST, ctx: ModuleContext, depth: int) -> bool:
    name = ctx.call_name(value)
    if name in ctx.classes and depth < 3:
        cls = ctx.classes[name]
        if any(re.search(r"(?i)drop|norm|training", ident(n) or "") for n in ast.walk(cls)):
            return False
        built = [n for n in ast.walk(cls) if isinstance(n, ast.Call) and (ident(n.func) or "")[:1].isupper()]
        return all(_free_build(b, ctx, depth + 1) for b in built)
    if not (name and MODE_FREE.match(name)):
        return False
    return all(_free_build(a, ctx, depth + 1) for a in value.args if isinstance(a, ast.Call))


_EVAL_TEXT = re.compile(r"(val|valid|test|eval|dev)_?(loader|dataloader|dl|set|dataset|ds|data|iter|batches)")


def _may_evaluate(func: ast.AST, ctx: ModuleContext) -> bool:
    """Cheap pre-filter: an evaluation-like name, or an eval-loader word in the function's text."""
    if any(w in FUNC_WORDS or w in EVAL_WORDS for w in tokens(func.name)):
        return True
    text = "\n".join(ctx.lines[func.lineno - 1 : func.end_lineno]).lower()
    return _EVAL_TEXT.search(text) is not None


class EvaluationWithoutEvalMode(Rule):
    """What it does: flags an evaluation function (named validate/evaluate/test_..., or looping over
    a val/test/dev loader) that runs the model under no_grad or computes metrics, but never calls
    .eval() (or .train(False)) in the function, an enclosing function, or before a call to it here.

    Why is this bad: dropout stays active and BatchNorm normalises with batch statistics and
    updates its running averages with evaluation data, so metrics are noisy and pessimistic and
    the model itself drifts. torch.no_grad()/inference_mode() do not switch the mode.
    """

    code = "MLD020"
    name = "evaluation-without-eval-mode"
    category = "modes"
    severity = "warning"  # the mode may be set by a caller in another file
    message = "{name}() evaluates the model without calling model.eval()"
    why = "Dropout and BatchNorm stay in training mode: metrics are noisy and BN running stats absorb evaluation data."
    fix = "Call model.eval() before evaluating (no_grad does not do it) and model.train() before training resumes."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (ast.FunctionDef, ast.AsyncFunctionDef)
    requires_text = ("eval", "valid", "val_", "_val", "test", "loader", "Loader", "dev")  # evaluation code only
    BAD = (
        "import torch\n"
        "def evaluate(model, val_loader):\n"
        "    correct = 0\n"
        "    with torch.no_grad():\n"
        "        for x, y in val_loader:\n"
        "            correct += (model(x).argmax(1) == y).sum().item()\n"
        "    return correct\n"
    )
    GOOD = (
        "import torch\n"
        "def evaluate(model, val_loader):\n"
        "    model.eval()\n"
        "    correct = 0\n"
        "    with torch.no_grad():\n"
        "        for x, y in val_loader:\n"
        "            correct += (model(x).argmax(1) == y).sum().item()\n"
        "    model.train()\n"
        "    return correct\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not uses_torch(ctx) or not _may_evaluate(node, ctx) or _hook_or_unit_test(node):
            return
        nodes = list(own_nodes(node))
        calls = [n for n in nodes if isinstance(n, ast.Call)]
        if any(is_eval_call(c) or mode_helper(c) for c in calls):
            return
        if any(isinstance(n, ast.Attribute) and n.attr == "training" and isinstance(n.ctx, ast.Store) for n in nodes):
            return  # model.training = False
        val_loops = [n for n in nodes if isinstance(n, ast.For | ast.AsyncFor) and is_eval_loader(n.iter)]
        if any(is_backward(c) for c in calls):
            # training and validation in one function: only a val loop without backward is evaluation
            regions = [n for n in val_loops if not any(is_backward(c) for c in calls_in_order(n.body))]
        elif any(is_train_call(c) for c in calls):
            return  # deliberate train mode (MC dropout) or restoring the mode a caller set
        elif val_loops or _eval_named(node, nodes):
            regions = [node]
        else:
            return
        for region in regions:
            region_nodes = list(own_nodes(region)) if region is not node else nodes
            calls = [c for c in region_nodes if isinstance(c, ast.Call)]
            models = [c for c in calls if model_call(c, ctx) and _mode_unknown(c, ctx)]
            metrics = any(_is_metric(n, ctx) for n in region_nodes)
            if any(under_no_grad(m, ctx) or metrics for m in models) and not _eval_set_outside(node, ctx):
                yield Hit(node, self.message.format(name=node.name))
                return


def _eval_named(func: ast.AST, nodes: list[ast.AST]) -> bool:
    words = tokens(func.name)
    # bare "val" is also short for value (q_val, max_val): require val_* or a loop over batches
    if FUNC_WORDS & set(words):
        return True
    return "val" in words and (words[0] == "val" or any(isinstance(n, LOOPS) for n in nodes))


def _hook_or_unit_test(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    # per-batch hooks (validation_step, on_validation_*, *_epoch_end) run in the mode their driver set
    if func.name.endswith(("step", "_epoch_end", "_batch_end")) or func.name.startswith("on_"):
        return True
    if func.name.lower().startswith("test"):  # pytest/unittest tests assert; evaluation code reports
        return any(isinstance(n, ast.Assert) or (ident(n) or "").startswith("assert") for n in ast.walk(func))
    return False


def _mode_unknown(call: ast.Call, ctx: ModuleContext) -> bool:
    if any(k.arg in {"training", "train", "deterministic"} for k in call.keywords):
        return False  # the mode is passed explicitly
    func = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr == "forward" else call.func
    if mode_free(func, ctx):
        return False
    # a model put in eval mode once at construction (EMA copies, frozen teachers); a parameter or
    # local variable is a different object from a module-level model of the same name
    if isinstance(func, ast.Name) and func.id in ctx.bindings.get(ctx.scope_of(call), {}):
        return True
    target = ast.dump(func)
    for c in eval_calls(ctx):
        if ast.dump(c.func.value) == target:
            scope = ctx.scope_of(c)
            if isinstance(scope, ast.Module) or getattr(scope, "name", "") in {"__init__", "setup", "build"}:
                return False
    return True


def _is_metric(node: ast.AST, ctx: ModuleContext) -> bool:
    if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq) for op in node.ops):
        return True
    if isinstance(node, ast.Call):
        name = (ctx.call_name(node) or ident(node.func) or "").rsplit(".", 1)[-1].lower()
        return bool(METRIC.search(name))
    return isinstance(node, ast.AugAssign)


def _eval_set_outside(func: ast.AST, ctx: ModuleContext) -> bool:
    """An enclosing function, or a caller in this module, sets eval mode before running it."""
    for anc in ctx.ancestors(func):
        if isinstance(anc, NESTED[:2]) and any(is_eval_call(c) for c in calls_in_order(anc.body)):
            return True
    if not eval_calls(ctx):
        return False
    for call in _calls_by_ident(ctx).get(func.name, ()):
        if any(is_eval_call(c) for c in scope_calls(ctx.scope_of(call), ctx) if c.lineno <= call.lineno):
            return True
    return False


def _calls_by_ident(ctx: ModuleContext) -> dict[str, list[ast.Call]]:
    """Calls grouped by the name they call, built once per module (asked once per evaluation function)."""
    def group() -> dict[str, list[ast.Call]]:
        grouped: dict[str, list[ast.Call]] = {}
        for call in ctx.by_type.get(ast.Call, ()):
            grouped.setdefault(ident(call.func) or "", []).append(call)
        return grouped

    return ctx.memo(("mld020", "calls_by_ident"), group)
