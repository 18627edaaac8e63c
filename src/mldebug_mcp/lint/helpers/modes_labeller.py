"""A model that labels training batches, never put in eval mode (MLD020).

`self.m0 = model` in __init__, then `with torch.no_grad(): batch["y"] = self.m0(batch["X"])` in a collate
function or a dataset's __getitem__: a teacher or a previous model generates the targets the trained model
learns from (pseudo-labels, distillation targets). Nothing in the file switches its mode, so its dropout
and BatchNorm's batch statistics make every target noisy and depend on the batch it came in.

The model is an attribute the class only assigns from an __init__ parameter named or annotated like a model
(whatever the attribute is called: m0, labeller); its output, under no_grad, is stored as a label or target.
Quiet where the file switches that model (or any mode helper runs) or touches its parameters (an EMA teacher
updated from the student: its mode is part of the method).

Also a teacher built or loaded in a training function (`teacher.load_state_dict(...)`), run under no_grad in
the training loop with its output kept (distillation targets), never switched in that function (a local
name: another function's `teacher` is another model), whose parameters no optimizer gets: copies
named as targets or averages (a DQN target network, EMA weights) are left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .evaluation import ident, model_like, model_named, module_owners, tokens
from .graph import own_key
from .modes import direct_switch, key_of, position, related, switches
from .modes_facts import callee_mode
from .modes_models import MODEL_ZOOS, mode_free
from .modes_nograd import grad_off_at

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
LABEL_WORDS = {"y", "label", "labels", "target", "targets", "pseudo", "annotation", "annotations", "gt", "truth"}


def labelling_models(ctx: ModuleContext) -> Iterator[tuple[ast.Call, str, ast.AST]]:
    """(the call, the model's key, its function) for each labelling run of a handed-in model in eval-less code."""
    if not (ctx.has_text("no_grad") or ctx.has_text("inference_mode")):
        return
    calls = ctx.by_type.get(ast.Call, ())
    # the cheap tests first: most files store no output of a `self.x(...)` call as a label
    candidates = [c for c in calls if type(c.func) is ast.Attribute and type(c.func.value) is ast.Name
                  and c.func.value.id == "self" and (c.args or c.keywords) and _stored_as_label(c, ctx)]
    if not candidates:
        return
    switching = [(c, s[0]) for c in calls if (s := direct_switch(c)) is not None]
    switched = [(key, c) for c, key in switching if key is not None]
    helped = {id(ctx.enclosing_class(c)) for c, key in switching if key is None}  # a mode helper sets every model
    owners = module_owners(ctx)
    reported: set[str] = set()
    for call in sorted(candidates, key=position):
        func = call.func
        key = key_of(func)  # a candidate: `self.x(...)` with arguments
        if key is None or not key.startswith("self.") or key.count(".") != 1 or key in reported:
            continue
        cls = ctx.enclosing_class(call)
        if key in owners or id(cls) in helped or any(
                related(s, key) and (not s.startswith("self") or ctx.enclosing_class(c) is cls) for s, c in switched):
            continue  # `self.eval()` switches this class's model only
        scope = ctx.scope_of(call)
        sources = _handed_model(func, ctx) if isinstance(scope, FUNCS) else None
        if not sources or any(s in sources for s, _ in switched) or not grad_off_at(call, scope, ctx):
            continue  # `model.eval()` before `self.m0 = model` switches it too
        reported.add(key)
        yield call, key, scope


def _handed_model(attr: ast.Attribute, ctx: ModuleContext) -> set[str]:
    """The __init__ parameters `self.m0` is only ever assigned from (`self.m0 = model`), when each is named or
    annotated like a model; empty otherwise."""
    cls = ctx.enclosing_class(attr)
    values = ctx.class_attrs.get(cls.name, {}).get(attr.attr, []) if cls is not None else []
    init = next((m for m in cls.body if isinstance(m, FUNCS) and m.name == "__init__"), None) if cls else None
    if not values or init is None:
        return set()
    params = {a.arg: a for a in (*init.args.args, *init.args.kwonlyargs)}
    for value in values:
        param = params.get(value.id) if isinstance(value, ast.Name) else None
        if param is None:
            return set()
        annotation = (ident(param.annotation) or "") if param.annotation is not None else ""
        if not (model_named(param.arg) or "Model" in annotation or "Module" in annotation):
            return set()
    return {v.id for v in values}


def _stored_as_label(call: ast.Call, ctx: ModuleContext) -> bool:
    """The output (maybe rounded, argmax'ed) is stored as a batch's label or target (`batch["y"] = ...`,
    `self.targets[i] = ...`), or assigned to a name for labels that the function returns with its inputs
    (`return image, soft_targets`): a data pipeline's targets, not an inference helper's answer."""
    node = call
    for anc in ctx.ancestors(call):
        if isinstance(anc, ast.Assign | ast.AnnAssign):
            node = anc
            break
        if isinstance(anc, ast.stmt):
            return False
    else:
        return False
    for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
        if isinstance(target, ast.Subscript | ast.Attribute):  # stored into a batch or a collection
            if LABEL_WORDS & {w for part in ast.walk(target) for w in _words(part)}:
                return True
        elif isinstance(target, ast.Name) and (LABEL_WORDS - {"y"}) & set(tokens(target.id)) and _returned_with_inputs(
                target.id, call, ctx):
            return True
    return False


def _words(part: ast.AST) -> set[str]:
    if isinstance(part, ast.Constant) and isinstance(part.value, str):
        return set(tokens(part.value)) | {part.value.lower()}
    if isinstance(part, ast.Name | ast.Attribute):
        return set(tokens(ident(part) or ""))
    return set()


def _returned_with_inputs(name: str, call: ast.Call, ctx: ModuleContext) -> bool:
    """`return image, soft_targets`: the function returns the labels in a tuple with other values."""
    function = next((a for a in ctx.ancestors(call) if isinstance(a, FUNCS)), None)
    return function is not None and any(
        isinstance(n, ast.Return) and isinstance(n.value, ast.Tuple) and len(n.value.elts) > 1 and any(
            isinstance(e, ast.Name) and e.id == name for e in n.value.elts) for n in ast.walk(function))


# a copy kept in step with the trained model (DQN target network, EMA, SWA, momentum encoder): its mode is the
# method's; a teacher is not one
COPIES = {"ema", "target", "swa", "avg", "averaged", "old", "momentum", "shadow", "ref", "reference", "base"}


def teachers_in_training(ctx: ModuleContext) -> Iterator[tuple[ast.Call, str, ast.AST]]:
    """(the call, the model's key, the training function) for each teacher built or loaded in a training
    function and run under no_grad in its loop, its output kept, never switched, never optimised."""
    if not (ctx.has_text("no_grad") or ctx.has_text("inference_mode")) or not ctx.backward_scopes:
        return
    owners = module_owners(ctx)
    reported: set[str] = set()
    scopes = [s for s in ctx.backward_scopes if isinstance(s, FUNCS)]
    if any(ctx.scope_of(s) is ctx.tree for s in ctx.backward_scopes if not isinstance(s, FUNCS)):
        scopes.append(ctx.tree)  # a script's top-level training loop: the module is the training scope
    for scope in scopes:
        # the module's own calls only: the bodies of its functions are not run in order with the script
        calls = ctx.in_scope(scope, (ast.Call,)) if scope is ctx.tree else ast.walk(scope)
        for node in calls:
            if not (isinstance(node, ast.Call) and (node.args or node.keywords)):
                continue
            key = own_key(node.func)
            if key is None or key in reported or key in owners or COPIES & set(tokens(key)) or not _kept(node, ctx):
                continue
            held = key.startswith("self.")  # built in the class (`self.teacher = build(cfg)`), run per step
            if not (_built_in_train_mode(node.func, key, ctx) and (
                    "teacher" in tokens(key) or key in _weights_loaded(ctx) or model_like(node.func, ctx))
                    and grad_off_at(node, scope, ctx) and (held or _in_loop(node, scope, ctx))
                    and (scope is not ctx.tree or _in_training_loop(node, ctx))):
                continue
            if _switched(key, node, scope, ctx) or mode_free(node.func, ctx):
                continue  # switched somewhere, or a layer without dropout/BatchNorm (`softmax = nn.Softmax()`)
            reported.add(key)
            yield node, key, scope


def _built_in_train_mode(func: ast.AST, key: str, ctx: ModuleContext) -> bool:
    """Built here in training mode: by a class, a model zoo (torchvision, timm) or a function of this file,
    or by another module's factory when this file loads the weights (`get_teacher(cfg)` alone may switch
    it, out of sight; one another file of the run says leaves it in eval mode does)."""
    calls = [v for v in ctx.values_of(func, func) if isinstance(v, ast.Call)]
    if not calls or any(callee_mode(c, ctx) == "eval" for c in calls):
        return False
    if key in _weights_loaded(ctx):
        return True
    return all((ident(c.func) or "")[:1].isupper() or (ctx.call_name(c) or "").split(".")[0] in MODEL_ZOOS
               or (ident(c.func) or "") in ctx.functions for c in calls)


def _switched(key: str, call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The function switches the model, or, for a global, the script does; for `self.x`, any method of the
    class does (or a mode helper runs)."""
    if key.startswith("self."):
        cls = ctx.enclosing_class(call)
        where = [m for m in cls.body if isinstance(m, FUNCS)] if cls is not None else [scope]
    else:
        where = [scope] if key in ctx.bindings.get(scope, {}) else [scope, ctx.tree]  # a global: the script's
    return any(w.key is None or related(w.key, key) for s in where for w in switches(s, ctx))


def _weights_loaded(ctx: ModuleContext) -> set[str]:
    """The names `x.load_state_dict(...)` is called on: networks, whatever they are called."""
    return ctx.memo(("modes", "weights-loaded"), lambda: {
        key_of(c.func.value) for c in ctx.by_type.get(ast.Call, ()) if isinstance(c.func, ast.Attribute)
        and c.func.attr == "load_state_dict"})


def _kept(call: ast.Call, ctx: ModuleContext) -> bool:
    """The output is assigned (`soft = F.softmax(teacher(x) / t, -1)`), not run for a side effect."""
    for anc in ctx.ancestors(call):
        if isinstance(anc, ast.Assign | ast.AnnAssign):
            return True
        if isinstance(anc, ast.stmt):
            return False
    return False


def _in_training_loop(call: ast.Call, ctx: ModuleContext) -> bool:
    """In a script, inside a loop that runs a backward (its training loop), not a later evaluation loop."""
    return any(isinstance(a, ast.For | ast.While | ast.AsyncFor) and a in ctx.backward_scopes
               for a in ctx.ancestors(call))


def _in_loop(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    for anc in ctx.ancestors(call):
        if anc is scope:
            return False
        if isinstance(anc, ast.For | ast.While | ast.AsyncFor):
            return True
    return False
