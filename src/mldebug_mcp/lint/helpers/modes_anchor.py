"""Where a finding about a model's mode goes: where the user would write model.eval() (MLD020)."""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .evaluation import ident, no_grad_expr, own_nodes, scope_calls, wraps_model
from .modes import SETUP, TRAIN, container_key, key_of, position, switches
from .modes_evidence import (
    enclosing_loops,
    eval_source,
    file_trains,
    scope_trains,
    trains,
)
from .modes_handed_models import calls_by_ident
from .modes_loading_methods import loaded_by_method

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def anchor(call: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> ast.AST:
    """Where model.eval() belongs: in training code, before the evaluation loop (else at the call). In
    evaluation code, right after the model is set up here (built, loaded, moved), or in the method of the
    class that loads it to predict (`__init__`); in an evaluating function handed the model (a parameter,
    `self.model` that fit() built), at its top, after the docstring, argument checks and log lines; in a
    script, before the loop that runs it."""
    loops = [n for n in enclosing_loops(call, scope, ctx) if isinstance(n, ast.For | ast.AsyncFor | ast.While)]
    if scope_trains(scope, ctx):
        evaluation = [n for n in loops if not isinstance(n, ast.While) and eval_source(n.iter)
                      and not trains(ast.walk(n), ctx)]
        if evaluation:
            return _wrapper(evaluation[-1], ctx)
        return _no_grad_block(call, scope, ctx) or call
    top = _script_statement(call, scope, ctx)
    setup = _setups_before(top, key, scope, ctx)
    if setup and isinstance(setup[-1], ast.Assign) and wraps_model(setup[-1].value, setup[-1].targets[0], ctx):
        return _script_statement(setup[-1], scope, ctx)  # eval() the model before wrapping it (DataParallel)
    if setup:
        return _end_of(setup[-1])
    if isinstance(scope, FUNCS):  # handed the model (a parameter, `self.model`): eval() opens the function,
        # unless the class loads it to predict, or the script builds it at module level
        return _class_setup(scope, key, ctx) or _global_setup(scope, key, ctx) or _loader_builder(
            scope, key, ctx) or _caller_loads(scope, key, ctx) or _past_bookkeeping(
            _opening(scope), call, key, scope, ctx)
    if loops:
        return _wrapper(loops[-1], ctx)
    return top


def anchor_after_setup(call: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> ast.AST:
    """Where model.eval() goes before `call` hands the model on: after it is set up in this scope, else in
    the class's method that sets `self.model` up, else where the script sets up a global model, else at
    the call."""
    top = _script_statement(call, scope, ctx)
    setup = _setups_before(top, key, scope, ctx)
    # a setup under an `if` the call is not under (`if use_cuda: model = model.cuda()`) runs only sometimes:
    # eval() belongs after the last setup every run passes
    setup = _every_run(setup, set(ctx.ancestors(call)), ctx)
    return _end_of(setup[-1]) if setup else _class_setup(scope, key, ctx) or _global_setup(scope, key, ctx) or top


def _setups_before(top: ast.AST, key: str, scope: ast.AST, ctx: ModuleContext) -> list[ast.stmt]:
    """The statements of `scope` before `top` that set `key` up, in order (`self.load_model(path)` too: the
    weights arrive there)."""
    return [n for n in _statements(scope, ctx) if position(n) < position(top) and (
            _sets_up(n, key) or key in loaded_by_method(n, ctx))]


def class_setup_end(scope: ast.AST, key: str, ctx: ModuleContext) -> ast.AST | None:
    """For `self.teacher`, the end of the last statement that sets it up in a method of the class that does
    not train (`self.teacher = build(cfg)` then `self.teacher.load_state_dict(...)` in __init__)."""
    cls = ctx.enclosing_class(scope) if key.startswith("self.") else None
    if cls is None:
        return None
    setup = [n for m in cls.body if isinstance(m, FUNCS) and m is not scope and not scope_trains(m, ctx)
             for n in _statements(m, ctx) if _sets_up(n, key)]
    setup = _every_run(setup, set(), ctx)
    return _end_of(setup[-1]) if setup else None


def _every_run(setup: list[ast.stmt], around: set, ctx: ModuleContext) -> list[ast.stmt]:
    """The setups not under an `if` that the model's use is not under (`if gpu: model.cuda()`): eval() after
    one of those would run only sometimes; all of them when every setup is conditional."""
    always = [n for n in setup if all(a in around or _main_guard(a) for a in ctx.ancestors(n) if isinstance(a, ast.If))]
    return always or setup


def _main_guard(branch: ast.If) -> bool:
    """`if __name__ == "__main__":` runs on every run of the script."""
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(branch.test))


def _global_setup(scope: ast.AST, key: str, ctx: ModuleContext) -> ast.AST | None:
    """A function using a model the script builds at module level (`inception = InceptionV3().cuda()`
    under `if __name__ == "__main__":`): model.eval() goes right after that setup."""
    root = key.split(".")[0]
    if isinstance(scope, ast.Module) or root == "self" or root in ctx.bindings.get(scope, {}) or _trained(key, ctx):
        return None  # a global the file trains: eval() belongs in the evaluating function
    return global_setup_end(key, ctx)


def global_setup_end(key: str, ctx: ModuleContext) -> ast.AST | None:
    """The end of the last module-level statement that sets up the global model `key` (under
    `if __name__ == "__main__":` too)."""
    setup = _every_run([n for n in _statements(ctx.tree, ctx) if _sets_up(n, key)], set(), ctx)
    return _end_of(setup[-1]) if setup else None


def _loader_builder(scope: ast.AST, key: str, ctx: ModuleContext) -> ast.AST | None:
    """A helper handed the model by the only caller of this file that runs it, up to three calls up
    (`get_all_embeddings(dataset, model)` builds the evaluation loader, `compute_all(loader, model)` loops,
    `embed_batch(model, x)` runs it): eval() goes at the top of the function that builds the loader, where
    the evaluation pass begins and its users call it."""
    function, name = scope, key.split(".")[0]
    if _builds_loader(scope, ctx):
        return None  # the evaluation begins here
    for _ in range(3):
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        if name not in params:
            return None
        callers = [c for c in calls_by_ident(ctx).get(function.name, ()) if ctx.scope_of(c) is not function]
        if len(callers) != 1 or not isinstance(caller := ctx.scope_of(callers[0]), FUNCS):
            return None
        handed = _argument_for(callers[0], function, name)
        if handed is None:
            return None
        function, name = caller, handed
        if _builds_loader(function, ctx):
            return _opening(function) if name in {a.arg for a in function.args.args} else None
    return None


def _caller_loads(scope: ast.AST, key: str, ctx: ModuleContext) -> ast.AST | None:
    """In a file that trains nothing (a sampling or prediction script), a helper handed the model by the only
    caller of this file, which loads trained weights into it right there (`model, vocab =
    Net.from_checkpoint(path)`, `model.load_state_dict(...)`): eval() goes after that loading, where the model
    is made ready for the script's use."""
    name = key.split(".")[0]
    if name == "self" or name not in {a.arg for a in (*scope.args.posonlyargs, *scope.args.args)} or file_trains(
            ctx):
        return None
    callers = [c for c in calls_by_ident(ctx).get(scope.name, ()) if ctx.scope_of(c) is not scope]
    if len(callers) != 1:
        return None
    caller, handed = ctx.scope_of(callers[0]), _argument_for(callers[0], scope, name)
    if handed is None or "." in handed:
        return None
    setup = _every_run(_setups_before(_top_statement(callers[0], caller, ctx), handed, caller, ctx),
                       set(ctx.ancestors(callers[0])), ctx)
    loaded = [n for n in setup if any(isinstance(c, ast.Call) and LOADS.search(ident(c.func) or "")
                                      for c in ast.walk(n))]
    return _end_of(setup[-1]) if loaded else None


def _builds_loader(function: ast.AST, ctx: ModuleContext) -> bool:
    return any("loader" in (ident(c.func) or "").lower() for c in scope_calls(function, ctx))


def _argument_for(call: ast.Call, function: ast.AST, param: str) -> str | None:
    """The caller's name handed to `param` (by keyword, or by position past `self`)."""
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value.id if isinstance(keyword.value, ast.Name) else None
    params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    offset = 1 if params[:1] == ["self"] and isinstance(call.func, ast.Attribute) else 0
    index = params.index(param) - offset
    if 0 <= index < len(call.args) and isinstance(call.args[index], ast.Name):
        return call.args[index].id
    return None


def _trained(key: str, ctx: ModuleContext) -> bool:
    """The file hands the model's parameters to something (an optimiser) or runs it where it trains."""
    for call in ctx.by_type.get(ast.Call, ()):
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "parameters" and key_of(func.value) == key:
            return True
        if key_of(func) == key and scope_trains(ctx.scope_of(call), ctx):
            return True
    return False


def _class_setup(scope: ast.AST, key: str, ctx: ModuleContext) -> ast.AST | None:
    """For `self.model`, the last statement that makes it ready in the method of the class that builds or
    loads it (`self.model = self._load(...)`, then `self.model.to(device)` in __init__): model.eval() goes
    there, when that method loads trained weights into it. A model handed in (`self.net = net`) is not this
    class's to switch there, nor one built to be trained (by `fit()`, or in `__init__` from a config)."""
    cls = ctx.enclosing_class(scope) if key.startswith("self.") else None
    if cls is None or any(s.mode == TRAIN and (s.key == key or s.key is None and _entry_of(container_key(s), key))
                          for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                          for s in switches(m, ctx)):
        return None  # a method of the class switches it (or its entries: `self.model[k].train()`) to train():
        # trained here, not loaded to predict (a trainer's resume method loads it to go on training)
    parts = key.split(".")
    for end in range(len(parts), 1, -1):  # self.model.text_encoder: a part of self.model, set up with it
        found = _class_setup_of(scope, ".".join(parts[:end]), cls, ctx)
        if found is not None:
            return found
    return None


def _entry_of(container: str | None, key: str) -> bool:
    """`self.model.encoder` is (in) an entry of the container `self.model` (`self.model[k].train()`)."""
    return container is not None and (key == container or key.startswith(container + "."))


def _class_setup_of(scope: ast.AST, key: str, cls: ast.ClassDef, ctx: ModuleContext) -> ast.AST | None:
    for method in cls.body:
        if method is scope or not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) or scope_trains(
                method, ctx):
            continue
        statements = _statements(method, ctx)
        setup = [n for n in statements if _sets_up(n, key)]
        if any(isinstance(n, ast.Assign | ast.AnnAssign) and isinstance(n.value, ast.Call) for n in setup) and any(
                _loads_weights(n) or _loads_weights_via_local(n, statements) for n in setup):
            return _end_of(_every_run(setup, set(), ctx)[-1])
    return None


def _loads_weights_via_local(stmt: ast.stmt, statements: list[ast.stmt]) -> bool:
    """`self.model = model.to(device)` after `model = build_retrieval(pretrained=ckpt_path, ...)` in the method:
    the local name it is set up from was built with trained weights."""
    value = stmt.value if isinstance(stmt, ast.Assign) else None
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        value = value.func.value  # model.to(device).half()
    if not isinstance(value, ast.Name):
        return False
    return any(isinstance(n, ast.Assign) and position(n) < position(stmt) and any(
        isinstance(t, ast.Name) and t.id == value.id for t in n.targets) and (
        _loads_weights(n) or _given_weight_path(n.value)) for n in statements)


def _given_weight_path(value: ast.AST) -> bool:
    """A build call given a checkpoint for `pretrained` (`pretrained=self.model_path`, not True/False/None)."""
    return isinstance(value, ast.Call) and any(
        k.arg == "pretrained" and not (isinstance(k.value, ast.Constant) and k.value.value in (True, False, None))
        for k in value.keywords)


def _loads_weights(stmt: ast.stmt) -> bool:
    """`self.model = self._load(cfg, weights)`, `self.model.load_state_dict(...)`: trained weights, to predict
    with (a model built from a config to be trained is switched where it evaluates)."""
    return any(isinstance(n, ast.Call) and (LOADS.search(ast.unparse(n.func).rsplit(".", 1)[-1]) or given_weights(n))
               for n in ast.walk(stmt))


def given_weights(call: ast.Call) -> bool:
    """Built with trained weights: `resnet50(pretrained=True)`, `vgg16(weights=...)` (weights= anything but None)."""
    return any(k.arg == "pretrained" and isinstance(k.value, ast.Constant) and k.value.value is True
               or k.arg == "weights" and not (isinstance(k.value, ast.Constant) and k.value.value is None)
               for k in call.keywords)


LOADS = re.compile(r"(?i)load|restore|checkpoint|pretrained")


def _no_grad_block(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """In training code, the `with torch.no_grad():` block around the evaluation (`if step % n == 0:` then
    a no_grad block): model.eval() goes just above it."""
    found = None
    for anc in ctx.ancestors(call):
        if anc is scope:
            break
        if isinstance(anc, ast.With | ast.AsyncWith) and any(no_grad_expr(i.context_expr, ctx) for i in anc.items):
            found = anc
    return found


def _wrapper(loop: ast.AST, ctx: ModuleContext) -> ast.AST:
    """A loop that opens a `with torch.no_grad():` block is reported at the `with`: the fix goes just
    above it or just inside it, and a finding there is one line from either."""
    parent = ctx.parent(loop)
    if isinstance(parent, ast.With | ast.AsyncWith) and parent.body and parent.body[0] is loop:
        return parent
    return loop


def _opening(function: ast.AST) -> ast.stmt:
    """The first statement of a function that does its work: past the docstring, imports, argument checks
    (`if ...: raise`), branches that adapt an argument, and log lines."""
    body = function.body
    for index, stmt in enumerate(body):
        if index == len(body) - 1 or not (_preamble(stmt, function) or index == 0 and _docstring(stmt)):
            return stmt
    return body[0]


def _past_bookkeeping(opening: ast.stmt, call: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The `with torch.no_grad():` block that holds the evaluation, when only bookkeeping comes before it in
    the function (`size = len(loader.dataset)`, `total, correct = 0, 0`, `probs = []`, meters, values computed
    without the model) and it is more than one statement down: eval() goes above the block, next to the
    evaluation it is for."""
    block = _no_grad_block(call, scope, ctx)
    if block is None or ctx.parent(block) is not scope:
        return opening
    body = scope.body
    start, end = body.index(opening) if opening in body else 0, body.index(block)
    if end - start < 2:  # the block opens the function, or follows one counter: the opening says it
        return opening
    root = key.partition(".")[0]
    model = key if root == "self" else root  # `self.net` whole; `model` of `model.module`
    return block if all(_bookkeeping(stmt, model) for stmt in body[start:end]) else opening


def _bookkeeping(stmt: ast.stmt, model: str) -> bool:
    """A counter, an empty container, a size, a meter, a flag or a criterion/metric object
    (`nn.CrossEntropyLoss(reduction="sum")`) set up before the loop: nothing that reads the model."""
    if not isinstance(stmt, ast.Assign):
        return False
    values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
    if all(map(_initial_value, values)):
        return True
    return isinstance(stmt.value, ast.Call) and not any(
        isinstance(n, ast.Name | ast.Attribute) and ast.unparse(n) == model for n in ast.walk(stmt.value)) and not any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and not n.func.attr[:1].isupper()
        for n in ast.walk(stmt.value))  # a method may read anything; a class of a module is only built


def _initial_value(value: ast.expr) -> bool:
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return not value.elts
    if isinstance(value, ast.Dict):
        return not value.keys
    return isinstance(value, ast.Constant) or isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
        and value.func.id in {"len", "list", "dict"}


def _docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _preamble(stmt: ast.stmt, function: ast.AST) -> bool:
    if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Pass):
        return True
    if isinstance(stmt, ast.If) and stmt.body and not stmt.orelse:
        # `if ...: raise` / `return`, or adapting an argument (`if gray: images = images.repeat(1, 3, 1, 1)`)
        params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
        return isinstance(stmt.body[-1], ast.Raise | ast.Return) or all(
            isinstance(b, ast.Assign) and len(b.targets) == 1 and isinstance(b.targets[0], ast.Name)
            and b.targets[0].id in params for b in stmt.body)
    return log_line(stmt)


LOGGING = {"print", "info", "debug", "warning", "warn", "log"}


def log_line(stmt: ast.stmt) -> bool:
    """`print(...)`, `self.logger.info(...)`: a statement that only logs."""
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and ident(stmt.value.func) in LOGGING


def _top_statement(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> ast.AST:
    for anc in ctx.ancestors(node):
        if anc is scope:
            return node
        node = anc
    return node


def _script_statement(node: ast.AST, scope: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The statement of `scope` that holds `node`; in a script, the statement under `if __name__ ==
    "__main__":` (the model is set up by the statements before it in that block)."""
    for anc in ctx.ancestors(node):
        if anc is scope or isinstance(scope, ast.Module) and isinstance(anc, ast.If) and _main_guard(anc) and (
                ctx.parent(anc) is scope and node in anc.body):
            return node
        node = anc
    return node


def _statements(scope: ast.AST, ctx: ModuleContext) -> list[ast.stmt]:
    def compute():
        kinds = (ast.Assign, ast.AnnAssign, ast.Expr)
        if isinstance(scope, ast.Module):
            nodes = [n for k in kinds for n in ctx.by_type.get(k, ()) if ctx.scope_of(n) is scope]
        else:
            nodes = [n for n in own_nodes(scope, ctx) if isinstance(n, kinds)]
        return sorted(nodes, key=position)
    return ctx.memo(("mld020", "statements", id(scope)), compute)


def _sets_up(stmt: ast.stmt, key: str) -> bool:
    """`model = ...`, `model.load_state_dict(...)`, `model.to(device)`: the model is made ready here."""
    if isinstance(stmt, ast.Assign | ast.AnnAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        flat = [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple | ast.List) else [t])]
        return any(key_of(t) == key for t in flat)  # model, transform = load(...)
    value = stmt.value
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Attribute) and value.func.attr in SETUP and key_of(value.func.value) == key:
        return True
    # `load_checkpoint(model, path)`: a loader handed the model
    return bool(value.args) and key_of(value.args[0]) == key and LOADS.search(ident(value.func) or "") is not None


class LastLine:
    """The last line of a statement written over several lines (or of a block): a mode switch goes right
    below it (model.eval() after a setup, model.train() after a periodic evaluation)."""

    def __init__(self, stmt: ast.stmt) -> None:
        self.lineno = self.end_lineno = stmt.end_lineno
        self.col_offset, self.end_col_offset = stmt.col_offset, stmt.end_col_offset


def _end_of(stmt: ast.stmt) -> ast.AST:
    return stmt if stmt.end_lineno == stmt.lineno else LastLine(stmt)
