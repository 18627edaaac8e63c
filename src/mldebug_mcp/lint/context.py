"""What rules know about a module, built by one walk over its AST.

The walk records parents, import aliases (so ``F.softmax`` resolves to
``torch.nn.functional.softmax``), the assignments of every scope (simple dataflow:
``criterion = nn.CrossEntropyLoss()`` then ``criterion(out, y)``, and ``self.x = ...``
in any method of a class), the functions and classes defined, and every node grouped
by type so rules are dispatched without walking again.
"""

from __future__ import annotations

import ast
from bisect import bisect_left, bisect_right
from collections import defaultdict
from keyword import iskeyword
from typing import TYPE_CHECKING

from .helpers import kinds
from .project_facts import LocalFacts, ProjectIndex

if TYPE_CHECKING:
    from pathlib import Path

ACTIVATIONS = {
    "torch.softmax": "softmax",
    "torch.nn.functional.softmax": "softmax",
    "torch.special.softmax": "softmax",
    "torch.log_softmax": "log_softmax",
    "torch.nn.functional.log_softmax": "log_softmax",
    "torch.special.log_softmax": "log_softmax",
    "torch.sigmoid": "sigmoid",
    "torch.nn.functional.sigmoid": "sigmoid",
    "torch.special.expit": "sigmoid",
    "torch.nn.Softmax": "softmax",
    "torch.nn.LogSoftmax": "log_softmax",
    "torch.nn.Sigmoid": "sigmoid",
}
# nn.Module methods that return the module itself
SELF_RETURNING = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16",
                            "requires_grad_", "to_empty", "share_memory"})
ACTIVATION_METHODS = {"softmax": "softmax", "log_softmax": "log_softmax", "sigmoid": "sigmoid"}
_MISSING = object()  # memo's marker for "not computed yet" (None and False are answers)
Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef


class ModuleContext:
    """One parsed module with the indexes build_context fills in one walk. A plain class, not a dataclass:
    it is built once per file and the decorator's cost is paid on every `lint` start."""

    def __init__(self, path: str, source: str, tree: ast.Module, lines: list[str] | None = None) -> None:
        self.path, self.source, self.tree, self._lines = path, source, tree, lines
        self.parents: dict[ast.AST, ast.AST] = {}
        self.aliases: dict[str, str] = {}  # local name -> qualified name
        self.by_type: dict[type, list[ast.AST]] = defaultdict(list)
        # scope node -> name -> assigned value expressions in source order
        self.bindings: dict[ast.AST, dict[str, list[ast.expr]]] = {}
        # class name -> attribute -> values assigned as self.<attribute> in its methods
        self.class_attrs: dict[str, dict[str, list[ast.expr]]] = {}
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        # function -> the values it returns that are calls (the only ones that can carry an activation)
        self.returns: dict[ast.AST, list[ast.expr]] = {}
        # loops and functions whose body (at any depth) calls .backward(): training steps
        self.backward_scopes: set[ast.AST] = set()
        self.classes: dict[str, ast.ClassDef] = {}
        # filled by the engine: names defined in other files of the same run
        self.project: ProjectIndex | None = None
        # the run's allow-list (None: unrestricted), for a rule that reads a project file beside the module
        self.roots: tuple[Path, ...] | None = None
        # set by a rule that read such a file: the outcome then depends on more than this module's text
        self.read_beyond = False
        self._resolving: set[str] = set()
        self._scopes: dict = {}
        self._call_names: dict = {}
        self._qualnames: dict = {}
        self._bound: set[str] | None = None
        self._constructed: dict = {}
        self._memo: dict = {}
        self._texts: dict[str, bool] = {}
        self._code_words: str | None = None

    @property
    def lines(self) -> list[str]:
        """The source's lines, split when first asked (noqa comments of a finding): most files have none."""
        if self._lines is None:
            self._lines = self.source.splitlines()
        return self._lines

    def has_text(self, text: str) -> bool:
        """Whether the code contains `text`: looked for once per module, whoever asks (the rules'
        requires_text, the project facts). A name is looked for among the words of the code only (see
        code_words), anything else (`train(False`, a keyword) in the whole source."""
        found = self._texts.get(text)
        if found is None:
            words = self.code_words if among_words(text) else self.source
            found = self._texts[text] = text in words
        return found

    @property
    def code_words(self) -> str:
        """The names the code uses (variables, attributes, definitions, arguments, keywords, imports) and
        its string constants other than bare string statements, one per line. No rule can need a name that
        appears only in a comment or a docstring, and in library code those are most of the text, so a
        name is looked for in a tenth of the characters."""
        if self._code_words is None:
            by_type, parents, expr = self.by_type, self.parents, ast.Expr
            words = {node.id for node in by_type.get(ast.Name, ())}
            words.update(node.attr for node in by_type.get(ast.Attribute, ()))
            words.update(node.arg for node in by_type.get(ast.arg, ()))
            words.update(node.arg for node in by_type.get(ast.keyword, ()) if node.arg)
            for node_type in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                words.update(node.name for node in by_type.get(node_type, ()))
            for node in by_type.get(ast.alias, ()):
                words.add(node.name)
                if node.asname:
                    words.add(node.asname)
            words.update(node.module for node in by_type.get(ast.ImportFrom, ()) if node.module)
            words.update(node.value for node in by_type.get(ast.Constant, ())
                         if type(node.value) is str and type(parents.get(node)) is not expr)
            self._code_words = "\n".join(words)
        return self._code_words

    def memo(self, key: tuple, compute):
        """A value helpers compute once per module (tables, calls per scope): kept with the module, so
        nothing outlives the file or leaks between files."""
        value = self._memo.get(key, _MISSING)
        if value is _MISSING:
            value = self._memo[key] = compute()
        return value

    def memoized(self, key: tuple) -> bool:
        """Whether `memo` has computed the value of `key` for this module."""
        return key in self._memo

    def memo_recursive(self, key: tuple, compute, pending):
        """`memo` for an answer that may ask itself again (helpers calling each other in a cycle): while it
        is being computed the question's answer is `pending`."""
        value = self._memo.get(key, _MISSING)
        if value is _MISSING:
            self._memo[key] = pending
            value = self._memo[key] = compute()
        return value

    # ---- structure ---------------------------------------------------------------

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(node)

    def ancestors(self, node: ast.AST):
        current = self.parents.get(node)
        while current is not None:
            yield current
            current = self.parents.get(current)

    def enclosing(self, node: ast.AST, kinds: tuple[type, ...]) -> ast.AST | None:
        parents = self.parents
        current = parents.get(node)
        while current is not None and not isinstance(current, kinds):
            current = parents.get(current)
        return current

    def scope_of(self, node: ast.AST) -> Scope:
        scopes = self._scopes
        cached = scopes.get(node)
        if cached is not None:
            return cached
        # Up to the first ancestor that is a scope or whose scope is known; every node passed on the way
        # shares that answer, so each node's scope is worked out once per module.
        parents, passed = self.parents, [node]
        current = parents.get(node)
        while current is not None:
            if isinstance(current, _SCOPES):
                cached = current
                break
            cached = scopes.get(current)
            if cached is not None:
                break
            passed.append(current)
            current = parents.get(current)
        if cached is None:
            cached = self.tree
        for passed_node in passed:
            scopes[passed_node] = cached
        return cached

    def in_scope(self, scope: Scope, kinds: tuple[type, ...]) -> list[ast.AST]:
        """The nodes of `kinds` whose scope is `scope`, in walk order: one pass per kinds for the whole
        module, so a rule asking per call does not rescan the module (quadratic on large files)."""
        def index() -> dict[Scope, list[ast.AST]]:
            grouped: dict[Scope, list[ast.AST]] = defaultdict(list)
            for kind in kinds:
                for node in self.by_type.get(kind, ()):
                    grouped[self.scope_of(node)].append(node)
            return grouped

        return self.memo(("in_scope", kinds), index).get(scope, [])

    def within(self, kind: type, definition: ast.AST) -> list[ast.AST]:
        """The nodes of `kind` inside a def or class (decorators included), by line: the lines from its first
        decorator to its end hold nothing else, as no statement shares a line with a compound one. One sort
        per kind and module, then a bisection per question, where a walk of the definition visits every node."""
        def index() -> tuple[list[int], list[ast.AST]]:
            nodes = sorted(self.by_type.get(kind, ()), key=_line)
            return [n.lineno for n in nodes], nodes
        lines, nodes = self.memo(("within", kind), index)
        first = min([definition.lineno, *(d.lineno for d in getattr(definition, "decorator_list", ()))])
        return nodes[bisect_left(lines, first):bisect_right(lines, definition.end_lineno)]

    def enclosing_class(self, node: ast.AST) -> ast.ClassDef | None:
        found = self.enclosing(node, (ast.ClassDef,))
        return found if isinstance(found, ast.ClassDef) else None

    # ---- names ---------------------------------------------------------------------

    def qualname(self, expr: ast.AST | None) -> str | None:
        """The dotted name an expression refers to, through import aliases; None if unknown."""
        if isinstance(expr, ast.Name):
            found = self.aliases.get(expr.id, expr.id if expr.id in self.classes or expr.id in self.functions else None)
            return found if found is not None or "*" not in self.aliases else self._star_imported(expr.id)
        if isinstance(expr, ast.Attribute):
            # kept per node: rules ask about the same callee many times, and aliases, classes and functions
            # are fixed once the module is indexed
            found = self._qualnames.get(expr, _MISSING)
            if found is _MISSING:
                base = self.qualname(expr.value)
                found = self._qualnames[expr] = f"{base}.{expr.attr}" if base else None
            return found
        return None

    def _star_imported(self, name: str) -> str | None:
        """The torch modules research code reaches through `from model import *` (`nn`, `F`, `optim`, `torch`
        imported in the other file) as their usual torch names, when this module never binds the name. Other
        names stay unknown: rules read an unresolved bare call as a project function, and a star-imported one is."""
        if name not in _REEXPORTED:
            return None

        def bound() -> frozenset[str]:
            names = {n.id for n in self.by_type.get(ast.Name, ()) if not isinstance(n.ctx, ast.Load)}
            names |= {a.arg for a in self.by_type.get(ast.arg, ())}
            names |= {d.name for kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                      for d in self.by_type.get(kind, ())}
            names |= {n for kind in (ast.Global, ast.Nonlocal) for g in self.by_type.get(kind, ()) for n in g.names}
            return frozenset(names)

        return None if name in self.memo(("star-import-bound",), bound) else _REEXPORTED[name]

    def call_name(self, call: ast.AST) -> str | None:
        if not isinstance(call, ast.Call):
            return None
        name = self._call_names.get(call, _MISSING)  # many rules ask about the same call
        if name is _MISSING:
            name = self._call_names[call] = self.qualname(call.func)
        return name

    def method_name(self, call: ast.AST) -> str | None:
        """`opt.step()` -> 'step' for any receiver."""
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            return call.func.attr
        return None

    # ---- dataflow ------------------------------------------------------------------

    def values_of(self, expr: ast.AST, at: ast.AST | None = None) -> list[ast.expr]:
        """Expressions a name or self-attribute may hold: assignments in its scope (latest
        one before `at` first) or, for self.x, in any method of the enclosing class."""
        if isinstance(expr, ast.Name):
            bound = self._bound
            if bound is None:  # the names assigned anywhere in the module: most calls are of builtins and imports
                bound = self._bound = {name for table in self.bindings.values() for name, values in table.items()
                                       if values}
            if expr.id not in bound:
                return []
            scope = self.scope_of(at or expr)
            for candidate_scope in (self.closure_scope(scope, expr.id), self.tree):
                values = self.bindings.get(candidate_scope, {}).get(expr.id)
                if values:
                    line = getattr(at or expr, "lineno", 10**9)
                    before = [v for v in values if getattr(v, "lineno", 0) <= line]
                    return list(reversed(before)) or list(reversed(values))
            return []
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            cls = self.enclosing_class(expr)
            if cls is not None:
                return list(self.class_attrs.get(cls.name, {}).get(expr.attr, []))
        return []

    def global_names(self, scope: Scope) -> frozenset[str]:
        """The names a def declares `global` (its assignments to them bind the module's names)."""
        def index() -> dict:
            found: dict = {}
            for declared in self.by_type.get(ast.Global, ()):
                found.setdefault(self.scope_of(declared), set()).update(declared.names)
            return found

        return frozenset(self.memo(("global_names",), index).get(scope, ()))

    def closure_scope(self, scope: Scope, name: str) -> Scope:
        """The scope whose `name` a read in `scope` sees: a def that neither assigns nor takes the name reads its
        enclosing def's (a nested `def train(X, y):` reading the `model` its function built); `scope` itself
        when no enclosing def binds it (scope_of passes over class bodies, as Python's lookup does)."""
        inner = scope
        while name not in self.bindings.get(inner, {}) and isinstance(inner, _SCOPES):
            inner = self.scope_of(inner)
            if inner is self.tree:
                return scope
        return inner if self.bindings.get(inner, {}).get(name) else scope

    def resolve(self, expr: ast.AST, depth: int = 4) -> ast.AST:
        """Follow a name or self-attribute to the value assigned to it (first candidate)."""
        current = expr
        for _ in range(depth):
            values = self.values_of(current, at=expr)
            if not values or values[0] is current:
                break
            current = values[0]
        return current

    def constructed(self, expr: ast.AST) -> str | None:
        """If `expr` holds an object built by `Class(...)`, the class's qualified name.
        Module methods that return the module itself (`Net().to(device)`) are seen through."""
        result = self._constructed.get(expr, _MISSING)
        if result is _MISSING:
            result = self._constructed[expr] = self._constructed_uncached(expr)
        return result

    def _constructed_uncached(self, expr: ast.AST) -> str | None:
        value = self.resolve(expr)
        for _ in range(4):
            if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                    and value.func.attr in SELF_RETURNING):
                value = self.resolve(value.func.value)
            else:
                break
        return self.call_name(value) if isinstance(value, ast.Call) else None

    def activation_of(self, expr: ast.AST) -> str | None:
        """'softmax', 'log_softmax' or 'sigmoid' when `expr` is (or holds) that activation's output."""
        value = self.resolve(expr)
        if not isinstance(value, ast.Call):
            return None
        name = self.call_name(value)
        if name in ACTIVATIONS:
            # F.softmax(x) is an output; nn.Softmax(dim=1) builds a module whose call is the output
            return None if _is_class_name(name) else ACTIVATIONS[name]
        if name is None and self.method_name(value) in ACTIVATION_METHODS:
            return ACTIVATION_METHODS[self.method_name(value)]
        built = self.constructed(value.func)
        if built in ACTIVATIONS:
            return ACTIVATIONS[built]
        target = built or name
        return self.returns_activation(target) if target else None

    def returns_activation(self, name: str) -> str | None:
        """Activation returned by a local or project function, or by a class's forward."""
        simple = name.split(".")[-1]
        if simple in self._resolving:  # recursion between functions: give up, not loop
            return None
        self._resolving.add(simple)
        try:
            if simple in self.classes:
                forward = kinds.method_of(self.classes[simple], "forward")
                return self._returned_activation(forward) if forward else None
            if simple in self.functions:
                return self._returned_activation(self.functions[simple])
            if self.project is not None:  # of the file this one imports it from (helpers/project_reach)
                from .helpers.project_reach import foreign_kind

                found = foreign_kind(self, simple)
                return found if found in kinds.ACTIVATIONS else None
            return None
        finally:
            self._resolving.discard(simple)

    def _returned_activation(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
        for value in self.returns.get(func, ()):
            found = self.activation_of(value)
            if found:
                return found
        return None

    def local_returns(self) -> dict[str, str]:
        """What the project index tells the other files of the run, all of it (LocalFacts computes the costly
        part only when asked): the kind of value (helpers/kinds/) returned by each top-level function and each
        class's forward, and which models of other files feed a loss here (`fed:<Model>`, helpers/losses.py),
        which functions call set_epoch (helpers/loader_sites.py), whether each class's update-like method keeps
        what it is given (helpers/accum_meters.py), and whether each function switches a model to eval mode
        (helpers/modes_facts.py)."""
        facts = LocalFacts(self)
        facts.tell_all()
        return facts.known


def among_words(text: str) -> bool:
    """Whether has_text looks for `text` among the code's words (a name), not in the whole source."""
    return text.isidentifier() and not iskeyword(text)


def _is_class_name(qualname: str) -> bool:
    return qualname.rsplit(".", 1)[-1][:1].isupper()


# torch modules research code imports in one file and reaches through `from that_file import *`
_REEXPORTED = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "optim": "torch.optim"}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_ASSIGNS = (ast.Assign, ast.AnnAssign, ast.NamedExpr)
_TRAINING_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.AsyncFor, ast.While)


def build_context(path: str, source: str, tree: ast.Module) -> ModuleContext:
    """One walk: parents, aliases, bindings, returns, definitions, nodes by type."""
    ctx = ModuleContext(path, source, tree)
    ctx.bindings[tree] = {}
    parents, by_type, bindings = ctx.parents, ctx.by_type, ctx.bindings
    child_fields = _CHILD_FIELDS
    AST, special = ast.AST, _SPECIAL
    # Depth first with an explicit stack of nodes. The (scope, class, function) around the nodes changes
    # only below a def, lambda or class: before its children, a tuple that restores the outer one is
    # pushed, popped once all of them are done.
    around: tuple[ast.AST, ast.ClassDef | None, ast.AST | None] = (tree, None, None)
    stack: list = [tree]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        node_type = type(node)
        if node_type is tuple:
            around = node
            continue
        by_type[node_type].append(node)
        if node_type in special:  # most nodes are names, attributes, constants: nothing to record
            inner = _record(ctx, node, node_type, around)
            if inner is not around:
                push(around)
                around = inner
        fields = child_fields.get(node_type)
        if fields is None:
            fields = child_fields[node_type] = _child_fields(node_type)
        for name in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, AST):
                        parents[item] = node
                        push(item)
            elif isinstance(value, AST):
                parents[value] = node
                push(value)
    for declared in by_type.get(ast.Global, ()):  # `global model` in a def: its assignments bind the module's name
        table = bindings.get(ctx.scope_of(declared), {})
        for name in declared.names:
            if table.get(name):
                bindings[tree].setdefault(name, []).extend(table[name])
    for table in (*bindings.values(), *ctx.class_attrs.values()):
        for values in table.values():
            if len(values) > 1:
                values.sort(key=_line)
    return ctx


def _record(ctx: ModuleContext, node: ast.AST, node_type: type, around: tuple) -> tuple:
    """What build_context keeps of one node of a _SPECIAL type; the (scope, class, function) of its children."""
    scope, cls, func = around
    if node_type is ast.Call:
        ctx._scopes[node] = scope  # what scope_of answers (its first def or lambda above, else the module), known here
        callee = node.func
        if type(callee) is ast.Attribute and callee.attr == "backward":
            _mark_training(ctx, node)
    elif node_type in _ASSIGNS:
        if node.value is not None:
            for target in (node.targets if node_type is ast.Assign else (node.target,)):
                _bind(ctx, scope, cls, target, node.value)
    elif node_type is ast.Return:
        if func is not None and type(node.value) in (ast.Call, ast.Name):
            ctx.returns.setdefault(func, []).append(node.value)
    elif node_type in _SCOPES:
        scope_bindings = ctx.bindings.setdefault(node, {})
        if node_type is ast.Lambda:
            return node, cls, func
        if cls is None and scope is ctx.tree:
            ctx.functions[node.name] = node
        arguments = node.args
        for arg in arguments.args + arguments.kwonlyargs + arguments.posonlyargs:
            scope_bindings.setdefault(arg.arg, [])
        return node, cls, node
    elif node_type is ast.ClassDef:
        ctx.classes[node.name] = node
        return scope, node, func
    elif node_type is ast.Import or node_type is ast.ImportFrom:
        _record_import(ctx, node)
    return around


def _line(node: ast.AST) -> int:
    return getattr(node, "lineno", 0)


_SPECIAL = frozenset({ast.Call, *_ASSIGNS, ast.Return, *_SCOPES, ast.ClassDef, ast.Import, ast.ImportFrom})


# Fields never walked: expression contexts (Load/Store) and operator singletons carry no
# information rules read through the index (they read node.ctx / node.op directly), and
# skipping them saves about a third of the nodes.
_SKIPPED_FIELDS = frozenset({"ctx", "op", "type_comment", "kind"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


# Fields that only ever hold names, numbers or flags, never a node: a Name or a Constant (the most common
# nodes) then has no field to look at.
_SCALAR_FIELDS = {
    ast.Name: {"id"}, ast.Attribute: {"attr"}, ast.Constant: {"value"}, ast.FunctionDef: {"name"},
    ast.AsyncFunctionDef: {"name"}, ast.ClassDef: {"name"}, ast.arg: {"arg"}, ast.keyword: {"arg"},
    ast.alias: {"name", "asname"}, ast.ImportFrom: {"module", "level"}, ast.comprehension: {"is_async"},
    ast.AnnAssign: {"simple"}, ast.FormattedValue: {"conversion"}, ast.Global: {"names"},
    ast.Nonlocal: {"names"}, ast.ExceptHandler: {"name"},
}


def node_fields(node_type: type) -> tuple[str, ...]:
    """The fields of a node type that may hold a node (no context, operator or scalar fields), in `_fields`
    order: walks that look up CHILD_FIELDS first call this for a type not seen yet."""
    fields = _CHILD_FIELDS.get(node_type)
    if fields is None:
        fields = _CHILD_FIELDS[node_type] = _child_fields(node_type)
    return fields


CHILD_FIELDS = _CHILD_FIELDS


def _child_fields(node_type: type) -> tuple[str, ...]:
    scalar = _SCALAR_FIELDS.get(node_type, ())
    return tuple(f for f in node_type._fields if f not in _SKIPPED_FIELDS and f not in ("ops",) and f not in scalar)


def _mark_training(ctx: ModuleContext, call: ast.Call) -> None:
    """Record every loop and function enclosing a .backward() call (parents are set top-down)."""
    node = ctx.parents.get(call)
    while node is not None:
        if isinstance(node, _TRAINING_BLOCKS):
            if node in ctx.backward_scopes:
                return
            ctx.backward_scopes.add(node)
        node = ctx.parents.get(node)


def _bind(ctx: ModuleContext, scope: Scope, cls: ast.ClassDef | None, target: ast.AST, value: ast.expr) -> None:
    if isinstance(target, ast.Name):
        ctx.bindings.setdefault(scope, {}).setdefault(target.id, []).append(value)
    elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        if cls is not None:
            ctx.class_attrs.setdefault(cls.name, {}).setdefault(target.attr, []).append(value)
    elif isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        for t, v in zip(target.elts, value.elts, strict=False):
            _bind(ctx, scope, cls, t, v)


def _record_import(ctx: ModuleContext, node: ast.Import | ast.ImportFrom) -> None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                ctx.aliases[alias.asname] = alias.name
            else:
                top = alias.name.split(".")[0]
                ctx.aliases[top] = top
    elif node.module and node.level == 0:
        for alias in node.names:
            ctx.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
