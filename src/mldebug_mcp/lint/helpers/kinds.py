"""What a value is: the kind of a tensor expression at a point in the code.

``kind_of(expr, ctx)`` answers 'softmax' or 'sigmoid' (probabilities), 'log_softmax' (log-probabilities),
'relu' (a ReLU's output), 'logits' (a Linear layer's output) or None (unknown), following the value through:
assignments and tuple unpacking in its scope (the latest assignment before the point); modules kept in
attributes (``self.act = nn.Sigmoid()`` then ``self.act(x)``); ``nn.Sequential`` (its last module decides),
also kept in an attribute or handed to another module's ``__init__``; the returns of functions and of a
model's ``forward`` (every return must agree), in this file or, through the project index, in another file
of the run; methods that keep what the values mean (``.view``, ``.to``, indexing); ``exp`` of log-probabilities.

Unknown is the answer whenever a step is not visible: rules fire on a known kind only.
This module imports nothing from the lint package at run time (context.py uses it for the project facts).
"""

from __future__ import annotations

import ast

SOFTMAX, SIGMOID, LOG_SOFTMAX, RELU, LOGITS = "softmax", "sigmoid", "log_softmax", "relu", "logits"
PROBABILITIES = frozenset({SOFTMAX, SIGMOID})
ACTIVATIONS = frozenset({SOFTMAX, SIGMOID, LOG_SOFTMAX})

# functions whose output has a kind whatever their input
FUNCTIONS = {
    "torch.softmax": SOFTMAX, "torch.nn.functional.softmax": SOFTMAX, "torch.special.softmax": SOFTMAX,
    "torch.log_softmax": LOG_SOFTMAX, "torch.nn.functional.log_softmax": LOG_SOFTMAX,
    "torch.special.log_softmax": LOG_SOFTMAX,
    "torch.sigmoid": SIGMOID, "torch.nn.functional.sigmoid": SIGMOID, "torch.special.expit": SIGMOID,
    "torch.relu": RELU, "torch.relu_": RELU, "torch.nn.functional.relu": RELU, "torch.nn.functional.relu_": RELU,
    "torch.nn.functional.relu6": RELU,
}
# module classes whose call has a kind
MODULES = {
    "torch.nn.Softmax": SOFTMAX, "torch.nn.LogSoftmax": LOG_SOFTMAX, "torch.nn.Sigmoid": SIGMOID,
    "torch.nn.ReLU": RELU, "torch.nn.ReLU6": RELU, "torch.nn.Linear": LOGITS, "torch.nn.LazyLinear": LOGITS,
}
# modules that pass their input's meaning through: the module before them in a Sequential decides
PASS_MODULES = frozenset({"torch.nn.Dropout", "torch.nn.Identity", "torch.nn.Flatten", "torch.nn.Unflatten"})
TENSOR_METHODS = {"softmax": SOFTMAX, "log_softmax": LOG_SOFTMAX, "sigmoid": SIGMOID, "sigmoid_": SIGMOID,
                  "relu": RELU, "relu_": RELU}
# tensor methods and functions that change layout, dtype or device, not what the values mean
KEEP_METHODS = frozenset({"view", "reshape", "squeeze", "unsqueeze", "transpose", "permute", "contiguous",
                          "flatten", "float", "double", "half", "bfloat16", "to", "cuda", "cpu", "clone", "detach",
                          "view_as", "reshape_as", "squeeze_", "unsqueeze_", "t"})
KEEP_FUNCTIONS = frozenset({"torch.flatten", "torch.reshape", "torch.squeeze", "torch.unsqueeze", "torch.transpose",
                            "torch.permute", "torch.clone"})
EXP = frozenset({"torch.exp", "torch.special.exp"})
# nn.Module methods that return the module itself
MODULE_MOVES = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16",
                          "requires_grad_", "to_empty", "share_memory"})
DEPTH = 32


def kind_of(expr: ast.AST, ctx, depth: int = DEPTH) -> str | None:
    """The kind of `expr` where it stands: 'softmax', 'sigmoid', 'log_softmax', 'relu', 'logits' or None."""
    return _Kinds(ctx).kind(expr, None, depth)


def output_kind(module: ast.AST, ctx) -> str | None:
    """The kind of what calling `module` returns: a module instance, a model class, a function."""
    return _Kinds(ctx).callee(module, None, DEPTH)


def returned_kind(owner: ast.AST, ctx) -> str | None:
    """The kind a function (or a class's forward) returns, every return agreeing."""
    kinds = _Kinds(ctx)
    if isinstance(owner, ast.ClassDef):
        return kinds.model(owner, None, None, DEPTH)
    return kinds.returned(owner, None, None, DEPTH)


def project_facts(ctx, hints: tuple[str, ...] = ("oftmax", "igmoid", "relu", "ReLU", "Linear", "expit")) -> dict:
    """Kind returned by each top-level function and each class's forward: what other files may ask."""
    if not any(h in ctx.source for h in hints):  # nothing here can return a known kind
        return {}
    found = {}
    for name, func in ctx.functions.items():
        kind = returned_kind(func, ctx)
        if kind:
            found[name] = kind
    for name, cls in ctx.classes.items():
        kind = returned_kind(cls, ctx)
        if kind:
            found[name] = kind
    return found


def parameter_of(name: ast.AST, ctx) -> tuple[ast.AST, int | None, str] | None:
    """(function, position, name) when `name` is a parameter of its function that is never reassigned."""
    if not isinstance(name, ast.Name):
        return None
    func = ctx.scope_of(name)
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    if ctx.bindings.get(func, {}).get(name.id, None) != []:
        return None
    positional = [a.arg for a in func.args.posonlyargs + func.args.args]
    if name.id in positional:
        return func, positional.index(name.id), name.id
    if name.id in [a.arg for a in func.args.kwonlyargs]:
        return func, None, name.id
    return None


def parameter_default(name: ast.AST, ctx) -> ast.expr | None:
    """The default value of a parameter never reassigned in its function: `loss_fn=nn.CrossEntropyLoss()`."""
    found = parameter_of(name, ctx)
    if found is None:
        return None
    func, _, arg = found
    args = func.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults,
                        strict=False))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=False) if d is not None})
    return defaults.get(arg)


def call_sites(name: ast.AST, ctx) -> list[ast.expr]:
    """The arguments the calls of this module pass for the parameter `name` (a function's or a method's)."""
    found = parameter_of(name, ctx)
    if found is None:
        return []
    func, position, arg = found
    method = isinstance(ctx.parents.get(func), ast.ClassDef)
    if method and position is not None:
        position -= 1  # self
    passed = []
    for call in ctx.memo(("kinds-calls",), lambda: _calls_by_name(ctx)).get(func.name, ()):
        if method != (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                      and call.func.value.id == "self"):
            continue
        if method and ctx.enclosing_class(call) is not ctx.parents.get(func):
            continue
        if not method and func.name not in ctx.functions:
            continue
        value = next((k.value for k in call.keywords if k.arg == arg), None)
        if (value is None and position is not None and 0 <= position < len(call.args)
                and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1])):
            value = call.args[position]
        if value is not None:
            passed.append(value)
    return passed


def _calls_by_name(ctx) -> dict[str, list[ast.Call]]:
    table: dict[str, list[ast.Call]] = {}
    for call in ctx.by_type.get(ast.Call, ()):
        callee = call.func
        name = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else None
        if name is not None:
            table.setdefault(name, []).append(call)
    return table


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _end(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "end_lineno", 0) or 0, getattr(node, "end_col_offset", 0) or 0


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


class _Kinds:
    """One question's walk; answers without an environment are kept on the module (ctx.memo)."""

    __slots__ = ("active", "ctx", "memo")

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.memo = ctx.memo(("kinds",), dict)
        self.active = ctx.memo(("kinds-active",), set)

    # ---- values ----------------------------------------------------------------------

    def kind(self, expr: ast.AST, env: dict | None, depth: int) -> str | None:
        if depth <= 0 or expr is None:
            return None
        if env is None:
            key = ("v", expr)
            if key in self.memo:
                return self.memo[key]
            if key in self.active:
                return None
            self.active.add(key)
            try:
                found = self.memo[key] = self._kind(expr, None, depth)
            finally:
                self.active.discard(key)
            return found
        return self._kind(expr, env, depth)

    def _kind(self, expr: ast.AST, env: dict | None, depth: int) -> str | None:
        if isinstance(expr, ast.Name):
            return self._through_values(expr, env, depth, self.kind, None)
        if isinstance(expr, ast.Attribute):
            values = self._attribute_values(expr)
            return self._agree([self.kind(v, env, depth - 1) for v in values]) if values else None
        if isinstance(expr, ast.Subscript):
            index = expr.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, int) and self._tuple_valued(expr.value):
                return self.element(expr.value, index.value, env, depth - 1)
            return self.kind(expr.value, env, depth - 1)  # indexing a tensor keeps what its values are
        if isinstance(expr, ast.NamedExpr):
            return self.kind(expr.value, env, depth - 1)
        if isinstance(expr, ast.Call):
            return self._call(expr, env, depth)
        return None

    def _call(self, call: ast.Call, env: dict | None, depth: int) -> str | None:
        ctx = self.ctx
        name = ctx.call_name(call)
        first = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None
        if name is not None:
            if name in FUNCTIONS:
                return FUNCTIONS[name]
            if name in KEEP_FUNCTIONS:
                return self.kind(first, env, depth - 1)
            if name in EXP:
                return SOFTMAX if self.kind(first, env, depth - 1) == LOG_SOFTMAX else None
            if name in MODULES or name == "torch.nn.Sequential":
                return None  # nn.Softmax(dim=1) builds a module; its call is the output
        callee = call.func
        if isinstance(callee, ast.Attribute) and name is None and not self._is_member(callee):
            method = callee.attr
            if method in TENSOR_METHODS:
                return TENSOR_METHODS[method]
            if method in KEEP_METHODS:
                return self.kind(callee.value, env, depth - 1)
            if method == "exp":
                return SOFTMAX if self.kind(callee.value, env, depth - 1) == LOG_SOFTMAX else None
            if method == "forward":
                return self.callee(callee.value, env, depth - 1)
        return self.callee(callee, env, depth - 1)

    def _is_member(self, attribute: ast.Attribute) -> bool:
        """`self.softmax(...)` where the class keeps a `softmax` attribute or defines the method."""
        if not (isinstance(attribute.value, ast.Name) and attribute.value.id == "self"):
            return False
        cls = self.ctx.enclosing_class(attribute)
        if cls is None:
            return False
        return attribute.attr in self.ctx.class_attrs.get(cls.name, {}) or method_of(cls, attribute.attr) is not None

    def element(self, expr: ast.AST, index: int, env: dict | None, depth: int) -> str | None:
        """The kind of element `index` of a tuple value: a tuple literal or what a call returns."""
        if depth <= 0:
            return None
        if isinstance(expr, ast.Tuple | ast.List):
            elts = expr.elts
            if any(isinstance(e, ast.Starred) for e in elts) or not -len(elts) <= index < len(elts):
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
        owner = self._owner(value.func)
        if owner is None:
            return False
        func = method_of(owner, "forward") if isinstance(owner, ast.ClassDef) else owner
        return func is not None and any(isinstance(r.value, ast.Tuple) for r in self._returns(func))

    def _through_values(self, name: ast.Name, env, depth: int, ask, index: int | None) -> str | None:
        ctx = self.ctx
        scope = ctx.scope_of(name)
        table = ctx.bindings.get(scope, {})
        if name.id not in table and name.id not in self._unpacked(scope):
            scope = ctx.tree
            table = ctx.bindings.get(scope, {})
        values = [(_position(v), v, None) for v in table.get(name.id, ())]
        values += [(_position(v), v, i) for v, i in self._unpacked(scope).get(name.id, ())]
        if not values:
            if env is not None and (scope, name.id) in env:  # a parameter bound by the caller
                return ask(env[(scope, name.id)], None, depth - 1)
            return None
        start = _position(name)
        before = [v for v in values if _end(v[1]) <= start]
        if scope is ctx.tree and ctx.scope_of(name) is not ctx.tree and not before:
            before = values  # a module-level name used in a function defined above it
        if not before:
            return None
        _, value, element = max(before, key=lambda v: v[0])
        if element is None:
            return ask(value, env, depth - 1)
        if index is None:
            return self.element(value, element, env, depth - 1)
        return None  # an element of an element: not followed

    def _unpacked(self, scope: ast.AST) -> dict[str, list[tuple[ast.expr, int]]]:
        """`a, b = f(x)` in `scope`: name -> (value, position) for tuple targets whose value is not a literal."""
        def build() -> dict:
            table: dict[ast.AST, dict[str, list]] = {}
            for node in self.ctx.by_type.get(ast.Assign, ()):
                if isinstance(node.value, ast.Tuple | ast.List):
                    continue  # context.py binds literal tuples element by element
                for target in node.targets:
                    if isinstance(target, ast.Tuple | ast.List):
                        names = table.setdefault(self.ctx.scope_of(node), {})
                        for position, elt in enumerate(target.elts):
                            if isinstance(elt, ast.Starred):
                                break
                            if isinstance(elt, ast.Name):
                                names.setdefault(elt.id, []).append((node.value, position))
            return table

        return self.ctx.memo(("kinds-unpacked",), build).get(scope, {})

    def _attribute_values(self, expr: ast.Attribute) -> list[ast.expr]:
        if not (isinstance(expr.value, ast.Name) and expr.value.id == "self"):
            return []
        return [v for v in self.ctx.values_of(expr) if not _is_none(v)]

    @staticmethod
    def _agree(kinds: list) -> str | None:
        return kinds[0] if kinds and all(k == kinds[0] for k in kinds) else None

    # ---- callees ------------------------------------------------------------------------

    def callee(self, callee: ast.AST, env: dict | None, depth: int, index: int | None = None) -> str | None:
        """The kind of what calling `callee` returns (element `index` of it for a tuple)."""
        ctx = self.ctx
        value = callee
        for _ in range(8):
            if depth <= 0:
                return None
            if isinstance(value, ast.Name):
                forward = self._own_forward(value)
                if forward is not None:  # self(x) in a module's method runs its forward (Lightning's training_step)
                    return self.returned(forward, None, index, depth - 1)
                if value.id in ctx.functions and not self._bound(value):
                    return self.returned(ctx.functions[value.id], None, index, depth - 1)
                if value.id in ctx.classes and not self._bound(value):
                    return None  # Net(x) builds a model
                bound = self._binding(value, env)
                if bound is None:
                    if env is None and index is None:  # a model handed in: every call in this file must agree
                        passed = call_sites(value, ctx)
                        if passed:
                            return self._agree([self.callee(p, None, depth - 1) for p in passed])
                    break
                value, env = bound
            elif isinstance(value, ast.Attribute):
                values = self._attribute_values(value)
                if len(values) != 1:  # assigned more than once: which module runs is not visible
                    break
                value = values[0]  # env kept: its keys name the __init__ parameters they bind
            elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr in MODULE_MOVES and ctx.call_name(value) is None:
                value = value.func.value
            else:
                break
            depth -= 1
        if isinstance(value, ast.Call):
            return self.built(value, env, depth - 1, index)
        name = ctx.qualname(value)
        if name in FUNCTIONS and index is None:  # act = F.softmax; act(x)
            return FUNCTIONS[name]
        if name and not name.startswith("torch.") and ctx.project is not None and index is None:
            return ctx.project.kind_returned_by(name.rsplit(".", 1)[-1])  # a function of another file
        return None

    def _own_forward(self, name: ast.Name) -> ast.AST | None:
        if name.id != "self":
            return None
        cls = self.ctx.enclosing_class(name)
        return method_of(cls, "forward") if cls is not None else None

    def _bound(self, name: ast.Name) -> bool:
        scope = self.ctx.scope_of(name)
        return name.id in self.ctx.bindings.get(scope, {}) and scope is not self.ctx.tree

    def _binding(self, name: ast.Name, env: dict | None) -> tuple[ast.AST, dict | None] | None:
        """The value a name holds where it is used (latest assignment before), or the caller's argument."""
        ctx = self.ctx
        scope = ctx.scope_of(name)
        table = ctx.bindings.get(scope, {})
        if name.id not in table:
            scope, table = ctx.tree, ctx.bindings.get(ctx.tree, {})
        values = table.get(name.id)
        if values:
            start = _position(name)
            before = [v for v in values if _end(v) <= start] or (values if scope is ctx.tree else [])
            return (before[-1], None) if before else None
        if env is not None and (scope, name.id) in env:
            return env[(scope, name.id)], None
        return None

    def built(self, construction: ast.Call, env: dict | None, depth: int, index: int | None) -> str | None:
        """The kind of the output of the module `construction` builds (`nn.Softmax(1)`, `Net(...)`)."""
        ctx = self.ctx
        name = ctx.call_name(construction)
        if name is None:
            return None
        if name in MODULES:
            return MODULES[name] if index is None else None
        if name == "torch.nn.Sequential":
            for layer in reversed(construction.args):
                if isinstance(layer, ast.Starred):
                    return None
                layer_name = ctx.call_name(ctx.resolve(layer))
                if layer_name in PASS_MODULES:
                    continue
                return self.callee(layer, env, depth - 1, index)
            return None
        simple = name.rsplit(".", 1)[-1]
        if simple in ctx.classes and name == simple:
            return self.model(ctx.classes[simple], construction, index, depth - 1)
        if name in ctx.functions:  # a factory: model = build_model(); model(x)
            func = ctx.functions[name]
            kinds = [self.callee(r.value, None, depth - 1, index) for r in self._returns(func)]
            return self._agree(kinds)
        if ctx.project is not None and simple[:1].isupper() and index is None:
            return ctx.project.kind_returned_by(simple)
        return None

    def model(self, cls: ast.ClassDef, construction: ast.Call | None, index: int | None, depth: int) -> str | None:
        forward = method_of(cls, "forward")
        if forward is None:
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
        return self.returned(forward, env, index, depth)

    def returned(self, func: ast.AST, env: dict | None, index: int | None, depth: int) -> str | None:
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
            kinds = []
            for ret in self._returns(func):
                if index is None:
                    kinds.append(None if isinstance(ret.value, ast.Tuple) else self.kind(ret.value, env, depth - 1))
                else:
                    kinds.append(self.element(ret.value, index, env, depth - 1))
            found = self._agree(kinds)
        finally:
            self.active.discard(key)
        if env is None:
            self.memo[key] = found
        return found

    def _owner(self, callee: ast.AST) -> ast.AST | None:
        """The function or model class a call runs, when visible in this file."""
        ctx = self.ctx
        if isinstance(callee, ast.Name) and callee.id in ctx.functions and not self._bound(callee):
            return ctx.functions[callee.id]
        if isinstance(callee, ast.Attribute) and callee.attr == "forward":
            callee = callee.value
        built = ctx.constructed(callee)
        return ctx.classes.get(built) if built else None

    def _returns(self, func: ast.AST) -> list[ast.Return]:
        return [r for r in self.ctx.in_scope(func, (ast.Return,)) if r.value is not None and not _is_none(r.value)]



def method_of(cls: ast.ClassDef, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The method `name` defined in the body of `cls` (context.py uses it too: it cannot import back)."""
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name), None)


def module_output(module: ast.AST, ctx) -> str | None:
    """The kind a model returns, given as a class (`NeuralNetClassifier(Net, ...)`) or as an instance."""
    value = ctx.resolve(module)
    name = ctx.qualname(value) if isinstance(value, ast.Name | ast.Attribute) else None
    if name is not None:
        simple = name.rsplit(".", 1)[-1]
        if name in ctx.classes:
            return returned_kind(ctx.classes[name], ctx)
        if ctx.project is not None and simple[:1].isupper() and not name.startswith("torch."):
            return ctx.project.kind_returned_by(simple)
        return None
    return output_kind(module, ctx)
