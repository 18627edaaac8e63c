"""Modules frozen with requires_grad only, then trained in train mode (MLD025).

A freeze is a loop that sets `requires_grad = False` on every parameter of a module (`for p in
model.backbone.parameters()`), or on every parameter of the trained model but the head (`for name, p in
model.named_parameters(): if 'fc' not in name: p.requires_grad = False`, the linear probe), or a
`module.requires_grad_(False)` call. It matters for the modes when the frozen part is a feature extractor, whose
BatchNorm and dropout layers a `.train()` call switches on again.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ..context import ModuleContext
from .optim_params import dotted

# the last part of a frozen module's name that says it extracts features (a CNN trunk or an encoder)
FEATURE_EXTRACTOR = re.compile(r"(backbone|feat|feature|extractor|cnn|resnet|vgg|densenet|efficientnet|mobilenet|"
                               r"inception|trunk|^f$|base_model|base_net|pretrained)", re.IGNORECASE)
# frozen on purpose in train mode or holding no BatchNorm/dropout that matters: target, EMA, teacher and reference
# copies (RL, distillation, RLHF), discriminators, autoencoders and language/text encoders of diffusion and LLM code
NOT_A_PROBE = re.compile(r"(target|ema|teacher|ref|reward|critic|disc|vae|text|token|clip|bert|llm|lm_|lm$|gpt|t5|"
                         r"llama|qwen|momentum|key_|old|avg|average|shadow)", re.IGNORECASE)
# an `if` around a train() call that says the model may be frozen: the probe keeps it in eval mode
FREEZE_GUARD = re.compile(r"(fro|freez|linear|probe|fine)", re.IGNORECASE)
TRAIN_CALL = "train"
# a helper or method that switches the BatchNorm layers to eval (`model.freeze_bn()`, `fix_bn(model)`)
BN_FREEZER = re.compile(r"((freeze|fix|frozen|set)_?bn|bn_?(eval|freeze|fix)|(freeze|fix)_?batch_?norm)", re.IGNORECASE)
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Freeze:
    node: ast.stmt | ast.Call  # the loop or the requires_grad_(False) call
    module: str  # the frozen module's dotted name (`model.backbone`, `self.f`)
    all_but_head: bool  # the loop froze every parameter of `module` but those a name test kept


def freeze_at(node: ast.AST, ctx: ModuleContext) -> Freeze | None:
    """The freeze a loop or a `requires_grad_(False)` call makes, if it is one."""
    if isinstance(node, ast.For):
        return _freezing_loop(node, ctx)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_" \
            and _false_argument(node):
        module = dotted(node.func.value)
        if module is not None and _parameter_loop(node, ctx) is None:
            return Freeze(node, module, False)
    return None


def _false_argument(call: ast.Call) -> bool:
    value = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "requires_grad"), None)
    return isinstance(value, ast.Constant) and value.value is False


def _parameter_loop(node: ast.AST, ctx: ModuleContext) -> ast.For | None:
    loop = ctx.enclosing(node, (ast.For,))
    return loop if loop is not None and _parameters_of(loop) is not None else None


def _parameters_of(loop: ast.For) -> ast.expr | None:
    """The module of `for p in module.parameters()` / `for name, p in module.named_parameters()`."""
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) \
            and it.func.attr in ("parameters", "named_parameters") and not it.args:
        return it.func.value
    return None


def _freezing_loop(loop: ast.For, ctx: ModuleContext) -> Freeze | None:
    owner = _parameters_of(loop)
    module = dotted(owner) if owner is not None else None
    if module is None:
        return None
    target = loop.target
    param = target.elts[-1] if isinstance(target, ast.Tuple) and target.elts else target
    name = target.elts[0] if isinstance(target, ast.Tuple) and len(target.elts) == 2 else None
    if not isinstance(param, ast.Name):
        return None
    for statement in loop.body:
        if _freezes_parameter(statement, param.id):
            return Freeze(loop, module, False)
        if isinstance(statement, ast.If) and isinstance(name, ast.Name) and not statement.orelse \
                and _reads(statement.test, name.id) and any(_freezes_parameter(s, param.id) for s in statement.body):
            return Freeze(loop, module, True)
    return None


def _freezes_parameter(statement: ast.stmt, param: str) -> bool:
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) and statement.value.value is False:
        return any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" and isinstance(t.value, ast.Name)
                   and t.value.id == param for t in statement.targets)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        call = statement.value
        return isinstance(call.func, ast.Attribute) and call.func.attr == "requires_grad_" \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == param and _false_argument(call)
    return False


def _reads(expr: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def is_feature_extractor(freeze: Freeze) -> bool:
    """A probe's frozen trunk: the whole model but its head, or a module named like a feature extractor and not
    like a copy kept frozen on purpose."""
    last = freeze.module.rsplit(".", 1)[-1]
    if NOT_A_PROBE.search(freeze.module):
        return False
    return freeze.all_but_head or bool(FEATURE_EXTRACTOR.search(last))


def train_calls(freeze: Freeze, ctx: ModuleContext) -> list[ast.Call]:
    """The unguarded `.train()` calls that switch the frozen module back to training: on it or on the object it is
    an attribute of, in the function that froze it or in one it hands that object to; for `self.<module>` frozen in
    a class, on any instance (a plain name) or `self`."""
    root = freeze.module.split(".", 1)[0]
    found = []
    for call in ctx.by_type.get(ast.Call, ()):
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == TRAIN_CALL and _train_mode(call)):
            continue
        receiver = dotted(call.func.value)
        if receiver is None:
            continue
        if root == "self":
            fits = receiver == "self" or "." not in receiver or freeze.module.startswith(receiver + ".") \
                or receiver == freeze.module
        else:
            same_name = receiver == freeze.module or freeze.module.startswith(receiver + ".")
            fits = same_name and ctx.enclosing(call, FUNCTIONS) is ctx.enclosing(freeze.node, FUNCTIONS) \
                or _handed_in(call, receiver, root, freeze, ctx)
        if fits and not _guarded(call, ctx):
            found.append(call)
    return found


def _handed_in(call: ast.Call, receiver: str, root: str, freeze: Freeze, ctx: ModuleContext) -> bool:
    """`net.train()` in `def train_val(net, ...)`, which the function that froze a part of `root` calls with it."""
    function = ctx.enclosing(call, FUNCTIONS)
    if not isinstance(function, FUNCTIONS) or receiver not in {a.arg for a in function.args.args}:
        return False
    freezer = ctx.enclosing(freeze.node, FUNCTIONS)
    return any(isinstance(c.func, ast.Name) and c.func.id == function.name and ctx.enclosing(c, FUNCTIONS) is freezer
               and any(isinstance(a, ast.Name) and a.id == root for a in [*c.args, *(k.value for k in c.keywords)])
               for c in ctx.by_type.get(ast.Call, ()))


def _train_mode(call: ast.Call) -> bool:
    if not call.args and not call.keywords:
        return True
    value = call.args[0] if call.args else call.keywords[0].value
    return isinstance(value, ast.Constant) and value.value is True


def _guarded(call: ast.Call, ctx: ModuleContext) -> bool:
    """Under an `if` (or a conditional expression) whose test says the model may be frozen."""
    node = ctx.parent(call)
    while node is not None and not isinstance(node, (*FUNCTIONS, ast.Module)):
        if isinstance(node, ast.If | ast.IfExp) and FREEZE_GUARD.search(ast.unparse(node.test)):
            return True
        node = ctx.parent(node)
    return False


def kept_in_eval_mode(freeze: Freeze, ctx: ModuleContext) -> bool:
    """The file keeps the frozen part out of train mode some other way: an `eval()` on it (`model.backbone.eval()`,
    `net.f.eval()`) when it is a part of the trained model, a `train(mode)` override, BatchNorm layers switched
    to eval one by one (`for m in model.modules(): ... m.eval()`) or by a helper (`model.freeze_bn()`), or told not
    to track statistics."""
    if ctx.has_text("track_running_stats") or any(isinstance(f, ast.FunctionDef) and f.name == TRAIN_CALL
                                                   and len(f.args.args) >= 2 for f in ctx.by_type.get(ast.FunctionDef, ())):
        return True
    tail = freeze.module.split(".", 1)[1] if "." in freeze.module else None
    for call in ctx.by_type.get(ast.Call, ()):
        if _freezes_batchnorm_of(call, freeze, ctx):
            return True
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "eval" and not call.args):
            continue
        receiver = dotted(call.func.value)
        if receiver is None:
            continue
        if tail is not None and (receiver == freeze.module or receiver.endswith("." + tail) or receiver == tail):
            return True
        loop = ctx.enclosing(call, (ast.For,))
        if loop is not None and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Attribute) \
                and loop.iter.func.attr in ("modules", "children", "named_modules"):
            return True
    return False


def _freezes_batchnorm_of(call: ast.Call, freeze: Freeze, ctx: ModuleContext) -> bool:
    """`model.freeze_bn()` or `fix_bn(model)` on the frozen module or the object holding it, in the function that
    froze it (anywhere in the class for a `self.` module)."""
    called = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if not BN_FREEZER.search(called):
        return False
    target = call.func.value if isinstance(call.func, ast.Attribute) else (call.args[0] if call.args else None)
    name = dotted(target) if target is not None else None
    root = freeze.module.split(".", 1)[0]
    if name is None or name.split(".", 1)[0] != root:
        return False
    return root == "self" or ctx.enclosing(call, FUNCTIONS) is ctx.enclosing(freeze.node, FUNCTIONS)
