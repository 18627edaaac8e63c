"""A method other than forward of a model object (`model.project(x)`, `net.decode(h)`): what it returns, for a
model built in this file (`Seq2Seq(head)`, maybe through this file's factory `get_model(cfg)`) or told by
another file (`Transformer.project`, `build_transformer().project`: helpers/kinds/facts.py tells them)."""

from __future__ import annotations

import ast

from .callees import kept_submodule
from .parameters import call_sites, method_of
from .traced import Traced
from .vocabulary import DEPTH, MODULE_MOVES, MODULE_WRAPPERS


def instance_method(walk, attribute: ast.Attribute, depth: int, index: int | None) -> Traced | None:
    """The kind `obj.method(...)` returns (None when unknown: an unknown object, a method of torch's)."""
    ctx, method = walk.ctx, attribute.attr
    if method.startswith("_") or method in MODULE_MOVES:
        return None
    construction = built_instance(attribute.value, ctx)
    name = ctx.call_name(construction) if construction is not None else None
    if name is None or name.startswith("torch."):
        return None
    simple = name.rsplit(".", 1)[-1]
    if name == simple and simple in ctx.classes:
        cls = ctx.classes[simple]
        known = method_of(cls, method) or kept_submodule(cls, method, ctx)
        return walk.model(cls, construction, index, depth, method) if known is not None else None
    if "." not in name or simple in ctx.functions or index is not None:
        return None
    if simple[:1].isupper():  # its method may return what a constructor argument returns: that argument's
        return walk._given(walk.foreign(f"{simple}.{method}", None), construction, depth)
    return walk.foreign(f"{simple}().{method}", None)


def _handed(name: ast.Name, ctx, depth: int) -> ast.Call | None:
    """The construction every call of this file hands a parameter (`train_one_epoch(model, ...)` called from
    `main()`, where `model = get_model(cfg)`), when the calls agree on what they build."""
    passed = call_sites(name, ctx) if depth > 0 else []
    built = [built_instance(p, ctx, depth) for p in passed[:8]]
    if not built or any(b is None for b in built):
        return None
    names = {ctx.call_name(b) for b in built}
    return built[0] if len(names) == 1 and None not in names else None


def built_instance(value: ast.AST, ctx, depth: int = 6) -> ast.Call | None:
    """The call that built the object `value` holds: `Net(...)`, `build_model(...)` of another file, seen through
    moves (`.to(device)`), wrappers and this file's factories with one return (`get_model(cfg)`)."""
    for _ in range(depth):
        if isinstance(value, ast.Attribute) and value.attr == "module":  # model.module: what DataParallel wraps
            value = value.value
        value = ctx.resolve(value)
        if isinstance(value, ast.Name):  # a parameter: the model every call of its function hands in (issue 17)
            value = _handed(value, ctx, depth - 1)
        if not isinstance(value, ast.Call):
            return None
        if isinstance(value.func, ast.Attribute) and value.func.attr in MODULE_MOVES and ctx.call_name(value) is None:
            value = value.func.value
            continue
        if ctx.call_name(value) in MODULE_WRAPPERS and value.args:  # nn.DataParallel(model), copy.deepcopy(model)
            value = value.args[0]
            continue
        name = ctx.call_name(value)
        func = ctx.functions.get(name) if name is not None else None
        if func is None:
            return value
        returns = [r for r in ctx.in_scope(func, (ast.Return,)) if r.value is not None]
        if len(returns) != 1:
            return None
        value = returns[0].value
    return None


def factory_built(func: ast.AST, walk) -> tuple[ast.ClassDef, ast.Call] | None:
    """The model class of this file that a factory with one return builds (`def build_net(): return Net(...)`),
    and the call that builds it."""
    ctx, returns = walk.ctx, walk.returns_of(func)
    built = built_instance(returns[0].value, ctx) if len(returns) == 1 else None
    cls = ctx.classes.get(ctx.call_name(built) or "") if built is not None else None
    return (cls, built) if cls is not None else None


def methods_of(cls: ast.ClassDef, ctx) -> list[str]:
    """The public methods of a model class, other than forward, that return what a call gives: `project`,
    `decode`, `classify` (a loss of another file may take `model.project(x)`)."""
    if method_of(cls, "forward") is None and not any(getattr(b, "attr", getattr(b, "id", "")) == "Module" for b in cls.bases):
        return []
    methods = [n.name for n in cls.body if isinstance(n, ast.FunctionDef) and n.name != "forward"
               and not n.name.startswith("_") and not n.decorator_list and ctx.returns.get(n)]
    kept = [a for a in ctx.class_attrs.get(cls.name, {}) if not a.startswith("_") and a not in methods
            and kept_submodule(cls, a, ctx) is not None]  # model.generator(out): a submodule it keeps
    return (methods + kept)[:8]


def traced_method(name: str, ctx) -> Traced | None:
    """The kind (with its origins) of the method a `Net.project` or `build_net().project` fact names."""
    owner_name, _, method = name.rpartition(".")
    from .walk import Walk  # walk imports the callees, which import this module

    walk = Walk(ctx)
    if owner_name.endswith("()"):
        func = ctx.functions.get(owner_name[:-len("()")])
        made = factory_built(func, walk) if func is not None else None
        return walk.model(made[0], made[1], None, DEPTH, method) if made is not None else None
    cls = ctx.classes.get(owner_name)
    return walk.model(cls, None, None, DEPTH, method) if cls is not None else None


def each_returned_model(func: ast.AST, ctx) -> list[Traced]:
    """The output kind of each model a factory may return (`if arch == 'mlp': return MLP(...)` ... `return
    CNN(...)`), one by one: whichever the caller's config picks is the one its loss takes."""
    from .walk import Walk  # walk imports the callees, which import this module

    walk = Walk(ctx)
    found = []
    for ret in walk.returns_of(func)[:16]:
        if isinstance(ret.value, ast.Call | ast.Name):
            kind = walk.callee(ret.value, None, DEPTH)
            if kind is not None:
                found.append(kind)
    return found
