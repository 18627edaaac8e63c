"""The kind of a value where it stands: names (the assignment that reaches the use), attributes, tuple
elements, buffers filled slot by slot, and calls (activations, layout-keeping methods, exp of log-probabilities).
Calls of modules, models and functions go to callees.py; the walker class joins both halves."""

from __future__ import annotations

import ast

from . import stores
from .parameters import method_of
from .traced import Traced, agree, end, is_none, position
from .vocabulary import (
    BUFFER_METHODS,
    BUFFERS,
    EMPTY_STARTS,
    EXP,
    FUNCTIONS,
    JOINS,
    KEEP_FUNCTIONS,
    KEEP_METHODS,
    LOG_SOFTMAX,
    MODULES,
    SEQUENTIAL,
    SOFTMAX,
    TENSOR_METHODS,
)


class Values:
    """Half of the walker (see walk.py): `env` maps (function, parameter) to the argument a caller passed."""

    __slots__ = ()

    def kind(self, expr: ast.AST, env: dict | None, depth: int) -> Traced | None:
        if depth <= 0 or expr is None:
            return None
        if env is not None:
            return self._kind(expr, env, depth)
        key = ("v", expr)
        memo = self.memo
        if key in memo:
            return memo[key]
        if key in self.active:
            return None
        self.active.add(key)
        try:
            found = memo[key] = self._kind(expr, None, depth)
        finally:
            self.active.discard(key)
        return found

    def _kind(self, expr: ast.AST, env: dict | None, depth: int) -> Traced | None:
        if isinstance(expr, ast.Name):
            return self._through_values(expr, env, depth, self.kind, None)
        if isinstance(expr, ast.Attribute):
            if expr.attr == "data" and not (isinstance(expr.value, ast.Name) and expr.value.id == "self"):
                return self.kind(expr.value, env, depth - 1)  # a tensor's (or a packed sequence's) own values
            values = self.attribute_values(expr)
            return agree([self.kind(v, env, depth - 1) for v in values]) if values else None
        if isinstance(expr, ast.Subscript):
            index = expr.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, int) and self._tuple_valued(expr.value):
                return self.element(expr.value, index.value, env, depth - 1)
            if isinstance(index, ast.Constant) and isinstance(index.value, str):  # out["logits"] of a returned dict
                return self.element(expr.value, index.value, env, depth - 1)
            return self.kind(expr.value, env, depth - 1)  # indexing a tensor keeps what its values are
        if isinstance(expr, ast.NamedExpr):
            return self.kind(expr.value, env, depth - 1)
        if isinstance(expr, ast.IfExp):
            return self.agree([self.kind(expr.body, env, depth - 1), self.kind(expr.orelse, env, depth - 1)])
        if isinstance(expr, ast.Call):
            return self._call(expr, env, depth)
        return None

    def _call(self, call: ast.Call, env: dict | None, depth: int) -> Traced | None:
        ctx = self.ctx
        name = ctx.call_name(call)
        first = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None
        if name is not None:
            if name in FUNCTIONS:
                return Traced(FUNCTIONS[name], (call,))
            if name in KEEP_FUNCTIONS:
                return self.kind(first, env, depth - 1)
            if name in EXP:
                return self._exp(call, first, env, depth)
            if name in JOINS:
                return self._joined(first, env, depth)
            if name in MODULES or name == SEQUENTIAL:
                return None  # nn.Softmax(dim=1) builds a module; its call is the output
        callee = call.func
        if isinstance(callee, ast.Attribute) and name is None:
            member = self.member(callee)
            if member is None:
                method = callee.attr
                if method in TENSOR_METHODS:
                    return Traced(TENSOR_METHODS[method], (call,))
                if method in KEEP_METHODS:
                    return self.kind(callee.value, env, depth - 1)
                if method == "exp":
                    return self._exp(call, callee.value, env, depth)
                if method == "forward":
                    return self.callee(callee.value, env, depth - 1, applied=call)
        return self.callee(callee, env, depth - 1, applied=call)

    def _exp(self, call: ast.Call, inner: ast.AST | None, env: dict | None, depth: int) -> Traced | None:
        found = self.kind(inner, env, depth - 1)
        return Traced(SOFTMAX, (call,)) if found is not None and found.kind == LOG_SOFTMAX else None

    def _joined(self, parts: ast.AST | None, env: dict | None, depth: int) -> Traced | None:
        """`torch.cat((acc, probs.unsqueeze(-1)), -1)` or `torch.stack(outputs)`: the kind the parts agree on,
        an empty start (`acc = torch.tensor([])`) left out; a list filled by `outputs.append(step)` counts."""
        ctx = self.ctx
        if isinstance(parts, ast.Name):
            scope, reaching = reaching_values(parts, ctx)
            if not reaching or len(reaching) != 1 or not isinstance(reaching[0][0], ast.List | ast.Tuple):
                return None
            parts_list = [*reaching[0][0].elts, *stores.appended(ctx, scope, parts.id)]
        elif isinstance(parts, ast.List | ast.Tuple):
            parts_list = list(parts.elts)
        else:
            return None
        if any(isinstance(p, ast.Starred) for p in parts_list):
            return None
        found = [self.kind(p, env, depth - 1) for p in parts_list if not self._empty_start(p)]
        return agree(found) if found else None

    def _empty_start(self, part: ast.AST) -> bool:
        if isinstance(part, ast.Name):
            reaching = reaching_values(part, self.ctx)[1]
            return bool(reaching) and all(e is None and self._empty_start(v) for v, e in reaching)
        if not isinstance(part, ast.Call) or self.ctx.call_name(part) not in EMPTY_STARTS or not part.args:
            return False
        first = part.args[0]
        return (isinstance(first, ast.List | ast.Tuple) and not first.elts) or \
            (isinstance(first, ast.Constant) and first.value == 0)

    def member(self, attribute: ast.Attribute):
        """For `self.x`: the method `x` the class defines, True for an attribute it keeps, else None."""
        if not (isinstance(attribute.value, ast.Name) and attribute.value.id == "self"):
            return None
        cls = self.ctx.enclosing_class(attribute)
        if cls is None:
            return None
        if attribute.attr in self.ctx.class_attrs.get(cls.name, {}):
            return True
        return method_of(cls, attribute.attr)

    def element(self, expr: ast.AST, index: int, env: dict | None, depth: int) -> Traced | None:
        """The kind of element `index` of a tuple value (or entry `index` of a dict, for a string): a literal or
        what a call returns."""
        if depth <= 0:
            return None
        if isinstance(expr, ast.Dict):
            keys = [k.value if isinstance(k, ast.Constant) else None for k in expr.keys]
            return self.kind(expr.values[keys.index(index)], env, depth - 1) if index in keys else None
        if isinstance(expr, ast.Tuple | ast.List):
            elts = expr.elts
            if isinstance(index, str) or any(isinstance(e, ast.Starred) for e in elts) or not -len(elts) <= index < len(elts):
                return None
            return self.kind(elts[index], env, depth - 1)
        if isinstance(expr, ast.Name):
            return self._through_values(expr, env, depth, lambda v, e, d: self.element(v, index, e, d), index)
        if isinstance(expr, ast.Call):
            callee = expr.func
            if isinstance(callee, ast.Attribute) and callee.attr == "forward":
                callee = callee.value
            return self.callee(callee, env, depth - 1, index)
        return None

    def _tuple_valued(self, expr: ast.AST) -> bool:
        """Whether `expr` visibly holds a tuple: a literal, or a call of a function or model returning one."""
        value = self.ctx.resolve(expr)
        if isinstance(value, ast.Tuple | ast.List):
            return True
        if not isinstance(value, ast.Call):
            return False
        owner = self.owner(value.func)
        if owner is None:
            return False
        func = method_of(owner, "forward") if isinstance(owner, ast.ClassDef) else owner
        return func is not None and any(isinstance(r.value, ast.Tuple) for r in self.returns_of(func))

    def _through_values(self, name: ast.Name, env, depth: int, ask, index: int | None) -> Traced | None:
        scope, reaching = reaching_values(name, self.ctx)
        if reaching is None:
            if env is not None and (scope, name.id) in env:  # a parameter bound by the caller
                return ask(env[(scope, name.id)], None, depth - 1)
            return None
        found = []
        for value, element in _live(reaching, self.ctx) if self.lenient else reaching:
            found.append(self._assigned(name.id, scope, value, element, env, depth, ask, index))
            if found[-1] is None and not self.lenient:
                break
        return self.agree(found)

    def _assigned(self, name: str, scope: ast.AST, value: ast.expr, element: int | None, env: dict | None,
                  depth: int, ask, index: int | None) -> Traced | None:
        """The kind one assignment gives `name`: its value, an element of it, or what a buffer is filled with."""
        if element is None:
            if index is None and self._is_buffer(value):
                stored = stores.filled(self.ctx, scope, name)
                return agree([self.kind(v, env, depth - 1) for v in stored]) if stored else None
            return ask(value, env, depth - 1)
        if index is None:
            return self.element(value, element, env, depth - 1)
        return None  # an element of an element: not followed

    def _is_buffer(self, value: ast.AST) -> bool:
        """`torch.zeros(T, B, V)`, also wrapped (`Variable(...)`, `.cuda()`): a tensor filled slot by slot."""
        ctx = self.ctx
        for _ in range(4):
            if not isinstance(value, ast.Call):
                return False
            name = ctx.call_name(value)
            if name in BUFFERS or (name is None and isinstance(value.func, ast.Attribute)
                                   and value.func.attr in BUFFER_METHODS):
                return True
            if name in KEEP_FUNCTIONS and value.args:
                value = value.args[0]
            elif name is None and isinstance(value.func, ast.Attribute) and value.func.attr in KEEP_METHODS:
                value = value.func.value
            else:
                return False
        return False

    def attribute_values(self, expr: ast.Attribute) -> list[ast.expr]:
        """What `self.x` (assigned in any method of the class) or `obj.x` (obj a parameter) may hold."""
        if isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return [v for v in self.ctx.values_of(expr) if not is_none(v)]
        return [v for v in stores.handed_attribute(self.ctx, expr) if not is_none(v)]


def reaching_values(name: ast.Name, ctx) -> tuple[ast.AST, list[tuple[ast.expr, int | None]] | None]:
    """(scope, [(value, element)]) of the assignments that may reach the use `name`: the latest before it, and
    the one before that while the later sits in an `if` branch the use is not in (`if not self.training:
    x = x.softmax(1)`); `element` is the position in a tuple target. None when nothing is assigned."""
    scope = ctx.scope_of(name)
    table = ctx.bindings.get(scope, {})
    if name.id not in table and name.id not in stores.unpacked(ctx, scope):
        scope = ctx.tree
        table = ctx.bindings.get(scope, {})
    values = [(position(v), v, None) for v in table.get(name.id, ())]
    values += [(position(v), v, i) for v, i in stores.unpacked(ctx, scope).get(name.id, ())]
    if not values:
        return scope, None
    start = position(name)
    before = [v for v in values if end(v[1]) <= start]
    if scope is ctx.tree and ctx.scope_of(name) is not ctx.tree and not before:
        before = values  # a module-level name used in a function defined above it
    if not before:
        return scope, None
    before.sort(key=lambda v: v[0])
    reaching = []
    for _, value, element in reversed(before):
        reaching.append((value, element))
        if not conditional(value, name, ctx):
            break
    return scope, reaching


def _live(reaching: list[tuple[ast.expr, int | None]], ctx) -> list[tuple[ast.expr, int | None]]:
    """The reaching assignments up to the first pair that covers both sides of one `if`/`else`: the earlier
    ones are overwritten on every path (a lenient walk reads every candidate, so the dead ones must go)."""
    sides: dict[ast.If, set[bool]] = {}
    for number, (value, _) in enumerate(reaching):
        child = value
        for anc in ctx.ancestors(value):
            if isinstance(anc, ast.If) and anc.orelse:
                side = sides.setdefault(anc, set())
                side.add(any(child is stmt for stmt in anc.body))
                if len(side) == 2:
                    return reaching[:number + 1]
            if isinstance(anc, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module):
                break
            child = anc
    return reaching


def conditional(value: ast.AST, use: ast.AST, ctx) -> bool:
    """Whether the assignment of `value` sits in a branch of an `if` that does not also hold `use`."""
    scope = ctx.scope_of(use)
    uses = set(ctx.ancestors(use))
    node = ctx.parents.get(value)
    while node is not None and node is not scope:
        if isinstance(node, ast.If) and node not in uses:
            return True
        node = ctx.parents.get(node)
    return False
