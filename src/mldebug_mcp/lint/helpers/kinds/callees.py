"""The kind of what calling something returns: a module kept in a name or an attribute, an `nn.Sequential`
(its last layer decides, whether written out, unpacked from a list, an OrderedDict or added with
`add_module`), a model class of this file (its `forward`, with the arguments its construction passed), a
function or factory of this file, or a definition of another file of the run (the project index)."""

from __future__ import annotations

import ast

from . import stores
from .parameters import call_sites, handed_to_class, method_of
from .traced import BRANCHED, Argument, Traced, agree, end, is_none, position, symbolic
from .vocabulary import (
    FUNCTIONS,
    MODULE_MOVES,
    MODULE_WRAPPERS,
    MODULES,
    ORDERED_DICTS,
    PASS_MODULES,
    SEQUENTIAL,
)

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
SELF = ("self",)  # an env key: the class whose instance `self` is, when a base class's method is asked for it


class Callees:
    """Half of the walker (see walk.py). `applied` is the call that runs the module, where a bare activation
    module gets its kind (`self.act(x)`, not `self.act = nn.Sigmoid()`)."""

    __slots__ = ()

    def callee(self, callee: ast.AST, env: dict | None, depth: int, index: int | None = None,
               applied: ast.Call | None = None) -> Traced | None:
        """The kind of what calling `callee` returns (element `index` of it for a tuple)."""
        ctx = self.ctx
        value = callee
        for _ in range(8):
            if depth <= 0:
                return None
            if isinstance(value, ast.Name):
                forward = self._own_forward(value, env)
                if forward is not None:  # self(x) in a module's method runs its forward (Lightning's training_step)
                    return self.returned(forward, None, index, depth - 1)
                if value.id in ctx.functions and not self._bound(value):
                    return self.returned(ctx.functions[value.id], None, index, depth - 1)
                if value.id in ctx.classes and not self._bound(value):
                    return None  # Net(x) builds a model
                head = stores.replaced_head(ctx, value) if index is None else None
                if head is not None:  # model.fc = nn.Sequential(..., nn.Softmax(1)): its output is the new head's
                    return self.callee(head, None, depth - 1)
                bound = self.binding(value, env)
                if bound is None:
                    if env is None:  # a model handed in: every call in this file must agree
                        return self._handed_in(value, depth, index)
                    break
                value, env = bound
            elif isinstance(value, ast.Attribute):
                member = self.member(value)
                if isinstance(member, FUNCS):  # self.predict(x): what that method returns
                    return self.returned(member, None, index, depth - 1)
                if member is None and not (isinstance(value.value, ast.Name) and value.value.id == "self"):
                    found = self.instance_method(value, depth - 1, index)
                    if found is not None:  # model.project(x): a method of a model built here or in another file
                        return found
                values = [v for v in self.attribute_values(value) if not _moves(v, value.attr)]
                if not values:
                    break
                if len(values) > 1:  # assigned in several places: each must run a module of the same kind
                    return self._each(value, values, env, depth, index, applied)
                value = values[0]  # env kept: its keys name the __init__ parameters they bind
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr in MODULE_MOVES and ctx.call_name(value) is None:
                value = value.func.value
            elif isinstance(value, ast.Call) and wrapped(value, ctx) is not None:
                value = wrapped(value, ctx)  # nn.DataParallel(model), torch.compile(model): the model runs
            else:
                break
            depth -= 1
        if isinstance(value, ast.Call):
            return self.built(value, env, depth - 1, index, applied)
        if isinstance(value, Argument):  # the facts' stand-in for a constructor argument
            return Traced(value.kind(index))
        name = ctx.qualname(value)
        if name in FUNCTIONS and index is None:  # act = F.softmax; act(x)
            return Traced(FUNCTIONS[name], (applied,) if applied is not None else ())
        if name and not name.startswith("torch."):
            return self.foreign(name.rsplit(".", 1)[-1], index)  # a function of another file
        return None

    def _each(self, attribute: ast.Attribute, values: list[ast.expr], env: dict | None, depth: int,
              index: int | None, applied: ast.Call | None) -> Traced | None:
        """The kind every module an attribute may hold agrees on (kept per attribute: asked from many calls)."""
        key = ("a", self.ctx.enclosing_class(attribute), attribute.attr, index, applied)
        if key in self.active:
            return None
        if env is None and key in self.memo:
            return self.memo[key]
        self.active.add(key)
        try:
            found = agree([self.callee(v, env, depth - 1, index, applied) for v in values])
        finally:
            self.active.discard(key)
        if env is None:
            self.memo[key] = found
        return found

    def _handed_in(self, name: ast.Name, depth: int, index: int | None = None) -> Traced | None:
        """What every caller hands in for a parameter that is called (element `index` of its output), agreed.
        Kept per parameter: chains of helpers that pass a model down through many call sites would otherwise be
        walked once per path, exponentially many (a dozen calls at each of ten levels never finished)."""
        scope = self.ctx.scope_of(name)
        key = ("handed", scope, name.id) if index is None else ("handed", scope, name.id, index)
        if key in self.active:
            return None
        if key in self.memo:
            return self.memo[key]
        self.active.add(key)
        try:
            passed = call_sites(name, self.ctx) or handed_to_class(name, self.ctx)
            found = agree([self.callee(p, None, depth - 1, index) for p in passed]) if passed else None
        finally:
            self.active.discard(key)
        self.memo[key] = found
        return found

    def foreign(self, simple: str, index: int | None) -> Traced | None:
        """What another file of the run says `simple` returns (element `index` of it)."""
        from ..project_reach import foreign_kind  # it imports loader_facts, which imports the context

        if self.ctx.project is None:
            return None
        key = simple if index is None else f"{simple}/{index}"
        found = foreign_kind(self.ctx, key)  # of the file this one imports it from (helpers/project_reach)
        if found is None and self.lenient:  # the activation some branch of it applies
            found = foreign_kind(self.ctx, key + BRANCHED)
        return Traced(found, (), simple) if found else None

    def _own_forward(self, name: ast.Name, env: dict | None = None) -> ast.AST | None:
        if name.id != "self":
            return None
        own = self.ctx.enclosing_class(name)
        subclass = (env or {}).get(SELF)  # asked for a subclass's instance: its forward, when it overrides one
        forward = method_of(subclass, "forward") if subclass is not None else None
        return forward or (method_of(own, "forward") if own is not None else None)

    def _bound(self, name: ast.Name) -> bool:
        scope = self.ctx.scope_of(name)
        return name.id in self.ctx.bindings.get(scope, {}) and scope is not self.ctx.tree

    def binding(self, name: ast.Name, env: dict | None) -> tuple[ast.AST, dict | None] | None:
        """The value a name holds where it is used (latest assignment before), or the caller's argument."""
        ctx = self.ctx
        scope = ctx.scope_of(name)
        table = ctx.bindings.get(scope, {})
        own = scope
        if name.id not in table:  # the enclosing def's (a closure's), else the module's
            scope = ctx.closure_scope(scope, name.id)
            scope = scope if scope is not own else ctx.tree
            table = ctx.bindings.get(scope, {})
        values = table.get(name.id)
        if values:
            start = position(name)
            before = [v for v in values if end(v) <= start]
            before = before or (values if scope is not own else [])
            return (before[-1], None) if before else None
        if env is not None and (scope, name.id) in env:
            return env[(scope, name.id)], None
        return None

    def built(self, construction: ast.Call, env: dict | None, depth: int, index: int | None,
              applied: ast.Call | None = None) -> Traced | None:
        """The kind of the output of the module `construction` builds (`nn.Softmax(1)`, `Net(...)`)."""
        ctx = self.ctx
        name = ctx.call_name(construction)
        if name is None:
            return None
        if name in MODULES:
            return Traced(MODULES[name], (applied or construction,)) if index is None else None
        if name == SEQUENTIAL:
            for layer in reversed(self.layers(construction) or ()):
                if ctx.call_name(ctx.resolve(layer)) not in PASS_MODULES:
                    return self.callee(layer, env, depth - 1, index)
            return None
        simple = name.rsplit(".", 1)[-1]
        if simple in ctx.classes and name == simple:
            return self.model(ctx.classes[simple], construction, index, depth - 1)
        if name in ctx.functions:  # a factory: model = build_model(); model(x)
            func = ctx.functions[name]
            return agree([self.callee(r.value, None, depth - 1, index) for r in self.returns_of(func)])
        if simple[:1].isupper() and not name.startswith("torch."):
            return self._given(self.foreign(simple, index), construction, depth)
        if "." in name and not name.startswith("torch.") and index is None:
            return self.foreign(simple + "()", None)  # a factory of another file: `model = build_model()`
        return None

    def _given(self, found: Traced | None, construction: ast.Call, depth: int) -> Traced | None:
        """Another file's model whose output is what one of its constructor arguments returns: that argument's."""
        argument = symbolic(found.kind) if found is not None else None
        if argument is None:
            return found
        position, name, element = argument
        given = next((k.value for k in construction.keywords if k.arg == name), None)
        if given is None and position < len(construction.args) and not any(
                isinstance(a, ast.Starred) for a in construction.args[:position + 1]):
            given = construction.args[position]
        return self.callee(given, None, depth - 1, element) if given is not None else None

    def layers(self, sequential: ast.Call) -> list[ast.expr] | None:
        """The modules of an `nn.Sequential(...)` in order, or None when some are not visible."""
        ctx = self.ctx
        found: list[ast.expr] = []
        for arg in sequential.args:
            if not isinstance(arg, ast.Starred):
                found.append(arg)
                continue
            listed = ctx.resolve(arg.value)
            if not isinstance(listed, ast.List | ast.Tuple) or any(isinstance(e, ast.Starred) for e in listed.elts):
                return None
            if isinstance(arg.value, ast.Name) and stores.changed_in_place(ctx, arg.value):
                grown = stores.grown_list(ctx, arg.value, listed)  # layers.append(nn.Softmax(1)) before the call
                if grown is None:
                    return None
                found.extend(grown)
                continue
            found.extend(listed.elts)
        if len(found) == 1:  # nn.Sequential(OrderedDict([("fc", nn.Linear(...)), ("act", nn.Softmax())]))
            named = ctx.resolve(found[0])
            if isinstance(named, ast.Call) and ctx.call_name(named) in ORDERED_DICTS:
                pairs = ctx.resolve(named.args[0]) if named.args else None
                if not isinstance(pairs, ast.List | ast.Tuple) or not all(
                        isinstance(p, ast.Tuple) and len(p.elts) == 2 for p in pairs.elts):
                    return None
                found = [p.elts[1] for p in pairs.elts]
        return found + stores.added_modules(ctx, sequential)

    def model(self, cls: ast.ClassDef, construction: ast.Call | None, index: int | None, depth: int,
              method: str = "forward") -> Traced | None:
        """What the model's forward (or another of its methods: `model.project(x)`, or a submodule its __init__
        keeps: `model.generator(out)`) returns, built so."""
        forward = method_of(cls, method)
        kept = kept_submodule(cls, method, self.ctx) if forward is None and method != "forward" else None
        if forward is None and kept is None:
            return None
        env = None
        init = method_of(cls, "__init__")
        if construction is not None and init is not None and (construction.args or construction.keywords):
            params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
            env = {}
            for param, arg in zip(params, construction.args, strict=False):
                if isinstance(arg, ast.Starred):
                    break
                env[(init, param)] = arg
            for keyword in construction.keywords:
                if keyword.arg:
                    env[(init, keyword.arg)] = keyword.value
        if kept is not None:
            return self.callee(kept, env, depth - 1, index)
        return self.returned(forward, env, index, depth)

    def returned(self, func: ast.AST, env: dict | None, index: int | None, depth: int) -> Traced | None:
        """The kind every return of `func` agrees on; with `index`, of that element of a returned tuple."""
        if depth <= 0:
            return None
        key = ("r", func, index)
        if env is None and key in self.memo:
            return self.memo[key]
        if key in self.active:
            return None
        self.active.add(key)
        try:
            found = []
            for ret in self.returns_of(func):
                if index is None:
                    found.append(None if isinstance(ret.value, ast.Tuple) else self.kind(ret.value, env, depth - 1))
                else:
                    found.append(self.element(ret.value, index, env, depth - 1))
            result = self.agree(found)
        finally:
            self.active.discard(key)
        if env is None:
            self.memo[key] = result
        return result

    def owner(self, callee: ast.AST) -> ast.AST | None:
        """The function or model class a call runs, when visible in this file."""
        ctx = self.ctx
        if isinstance(callee, ast.Name) and callee.id in ctx.functions and not self._bound(callee):
            return ctx.functions[callee.id]
        if isinstance(callee, ast.Attribute) and callee.attr == "forward":
            callee = callee.value
        built = ctx.constructed(callee)
        return ctx.classes.get(built) if built else None

    def instance_method(self, attribute: ast.Attribute, depth: int, index: int | None) -> Traced | None:
        """What `obj.method(...)` returns when `obj` holds a model whose class defines `method` (instances.py)."""
        from .instances import instance_method

        return instance_method(self, attribute, depth, index)

    def returns_of(self, func: ast.AST) -> list[ast.Return]:
        return [r for r in self.ctx.in_scope(func, (ast.Return,)) if r.value is not None and not is_none(r.value)]


def wrapped(call: ast.Call, ctx) -> ast.expr | None:
    """The module `nn.DataParallel(model)` or `torch.compile(model)` runs when called."""
    if ctx.call_name(call) not in MODULE_WRAPPERS:
        return None
    given = next((k.value for k in call.keywords if k.arg in ("module", "model")), None)
    if given is None and call.args and not isinstance(call.args[0], ast.Starred):
        given = call.args[0]
    return given


def _moves(value: ast.AST, attr: str) -> bool:
    """`self.model = self.model.to(device)`: the attribute moved, not another module."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in MODULE_MOVES:
        value = value.func.value
    return isinstance(value, ast.Attribute) and value.attr == attr and isinstance(value.value, ast.Name) \
        and value.value.id == "self"


def kept_submodule(cls: ast.ClassDef, attr: str, ctx) -> ast.expr | None:
    """The module `self.<attr>` holds when __init__ assigns it once: a class of this file built there
    (`self.generator = Generator(d, vocab)`) or a module handed in (`self.generator = generator`)."""
    values = ctx.class_attrs.get(cls.name, {}).get(attr, [])
    value = values[0] if len(values) == 1 else None
    if not isinstance(value, ast.Call | ast.Name):
        return None
    init = method_of(cls, "__init__")
    if init is None or ctx.scope_of(value) is not init:
        return None
    if isinstance(value, ast.Name):
        return value if value.id in [a.arg for a in init.args.args] else None
    return value if ctx.call_name(value) in ctx.classes else None
