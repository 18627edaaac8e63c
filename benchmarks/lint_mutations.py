"""How much of the linter's recall survives code that says the same thing in other words.

A rule fitted to the exact shape of the cases it was written for stops firing when a project names things
differently. This benchmark takes every buggy case of the lint corpora that the linter finds (a finding of the
right class anywhere in the case's files), rewrites the case's files in ways that keep the bug and the program's
meaning, lints the rewritten copy, and counts the cases still found. Rewrites (each on its own, on top of a
reformatting by `ast.unparse`, which drops comments):

  - `unparsed`: the reformatting alone (the baseline the others are compared with);
  - `locals`: every local variable and parameter of a function renamed to an opaque name (`v1`, `v2`, ...), the
    keywords of calls to that function in the same file with it;
  - `globals`: every module-level variable renamed the same way (names another file of the case mentions kept);
  - `attributes`: every attribute a class of the file assigns on `self` renamed (`self.criterion` -> `self.a3`),
    with every `.criterion` of the file; names another file mentions, or that torch gives meaning to (`weight`,
    `training`, ...), are kept, and so is a use on another receiver that may be the library's (`F.softmax`, or a
    name torch.Tensor or nn.Module has, as in `x.softmax()`);
  - `aliases`: import aliases renamed (`import torch.nn.functional as F` -> `as m1`, `nn` -> `m2`);
  - `main` (structure): the statements a script runs at its top level (all but imports, defs, classes, the
    docstring, `__all__` and literal constants; an `if __name__ == "__main__":` block too) moved, in order, into
    `def _script_main():` at the module's end and called there; the names it binds that a def or class of the
    module reads (or another file names, or a staying statement binds) declared `global` in it;
  - `outlined` (structure, "extract method"): in each top-level function, method and the module's top level,
    the innermost loop calling `.backward(` (the batch loop) and each innermost loop under `with torch.no_grad()`
    / `inference_mode()` (the evaluation loop) moved into a module-level `def _loop_N(...)` (after the function,
    after the class for a method, before the statement for the top level) and replaced by `a, b = _loop_N(x, y)`:
    the scope's locals it reads (`self` too) passed in, the names it binds that the scope reads elsewhere handed
    back. A loop is left where moving it could change the program (a `return`/`yield`/`await`, `global`,
    zero-argument `super()`, a `del` of a name, a private `__name`, a name passed in that some path leaves unbound,
    a name handed back that an iteration may not bind, a rebound name a def of the scope reads).

Both structural rewrites keep the program's meaning (tests/benchmarks/test_lint_mutations_rewrites.py runs
original and rewritten programs and compares their output), but for one corner: an outlined loop that runs zero
times fails at its `return` for a name it would first bind, where the original fails only where that name is read.

    python benchmarks/lint_mutations.py [--corpus DIR ...] [--show lost] [--case ID ...] [--keep DIR]

A case lost under a rewrite is a shape the rule only knows under one spelling (or, for `main` and `outlined`, only
when the training step sits in one function). The corpora (the dev corpus and blind1-9) are development data;
the rewrites are mechanical, so this is a check of how the rules generalise, not of recall on new projects.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import functools
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lint_corpus import accepted_codes, case_folder, extracted, load_cases

from mldebug_mcp.services.lint import lint

HERE = Path(__file__).resolve().parent
CORPORA = ["lint_corpus", *(f"lint_corpus_blind{n}" for n in ("", "2", "3", "4", "5", "6", "7", "8", "9"))]
BUILTINS = frozenset(dir(builtins)) | {"self", "cls", "__name__", "__file__"}
# attribute names torch's classes (or Python's) give meaning to: renaming them would change the program
KEPT_ATTRIBUTES = frozenset({
    "training", "weight", "bias", "data", "grad", "device", "dtype", "shape", "forward", "parameters", "state_dict",
    "module", "modules", "children", "train", "eval", "cuda", "cpu", "to", "step", "zero_grad", "backward",
    "param_groups", "defaults", "state", "running_mean", "running_var", "num_batches_tracked", "dataset",
    "batch_size", "sampler", "optimizer", "scheduler", "lr_scheduler", "model", "config", "args", "hparams",
    "trainer", "log", "logger", "current_epoch", "global_step", "automatic_optimization", "loss",
})


def _words_in(texts: list[str]) -> set[str]:
    """Every identifier-like word of the texts: the names other files of a case may use, kept by each rewrite."""
    words: set[str] = set()
    for text in texts:
        words.update(re.findall(r"[A-Za-z_]\w*", text))
    return words


def _identifiers(tree: ast.AST) -> set[str]:
    """Every name, attribute, parameter and def or class name the tree spells: what a new name must not be."""
    return {getattr(n, attr) for n in ast.walk(tree) for attr in ("id", "attr", "arg", "name")
            if isinstance(getattr(n, attr, None), str)}


class _Namer:
    """Opaque new names (`v1`, `v2`, ...) that no identifier of the file already uses."""

    def __init__(self, prefix: str, tree: ast.Module) -> None:
        self.prefix, self.count, self.names = prefix, 0, {}
        self.taken = _identifiers(tree)

    def __call__(self, old: str) -> str:
        if old not in self.names:
            new = old
            while new in self.taken or new == old:
                self.count += 1
                new = f"{self.prefix}{self.count}"
            self.names[old] = new
            self.taken.add(new)
        return self.names[old]


def _imported_and_defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
    return names


# classes whose methods a library calls by keyword are kept out of parameter renaming: only these bases are ours
OWN_BASES = frozenset({"Module", "object"})


def _library_methods(tree: ast.Module) -> set[ast.AST]:
    """Methods of classes with a base other than nn.Module: an override a library may call by keyword."""
    found: set[ast.AST] = set()
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "?") for b in cls.bases}
        if bases - OWN_BASES:
            found.update(n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return found


def rename_locals(tree: ast.Module, keep: set[str]) -> None:
    fixed = _imported_and_defined(tree) | BUILTINS | keep
    module_level = {t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
                    for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    library = _library_methods(tree)
    namer = _Namer("v", tree)  # one old name -> one new name in the whole file, so closures stay consistent
    params_of: dict[str, dict[str, str]] = {}  # function, method or class (its __init__) -> renamed parameters
    owners = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]:
        args = func.args
        params = [a for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a]
        param_names = {a.arg for a in params}
        local = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        # a library-called override keeps its parameters' names, even where the body reassigns one
        local = (local - param_names if func in library else local | param_names) - fixed - module_level
        renamed = {name: namer(name) for name in sorted(local)}  # sorted: the same names on every run
        for a in params:
            if a.arg in renamed:
                a.arg = renamed[a.arg]
        for node in ast.walk(func):
            if isinstance(node, ast.Name) and node.id in renamed:
                node.id = renamed[node.id]
        owner = owners.get(func)
        key = owner.name if func.name == "__init__" and isinstance(owner, ast.ClassDef) else func.name
        params_of.setdefault(key, {}).update({k: v for k, v in renamed.items() if k in param_names})
    for call in [n for n in ast.walk(tree) if isinstance(n, ast.Call)]:
        callee = call.func
        if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Call) \
                and getattr(callee.value.func, "id", None) == "super":
            continue  # a base class's method, in another file or library
        name = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else ""
        table = params_of.get(name) if not name.startswith("__") else None
        for keyword in call.keywords if table else ():
            if keyword.arg in table:
                keyword.arg = table[keyword.arg]


def rename_globals(tree: ast.Module, keep: set[str]) -> None:
    fixed = _imported_and_defined(tree) | BUILTINS | keep
    stored = {t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For
                                                       | ast.With | ast.If | ast.While | ast.Try)
              for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    # a name stored inside a function is that function's local unless declared global: keep those out
    in_functions = {t.id for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                    for t in ast.walk(f) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    in_functions |= {a.arg for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                     for a in ast.walk(f.args) if isinstance(a, ast.arg)}
    namer = _Namer("g", tree)
    renamed = {name: namer(name) for name in sorted(stored - fixed - in_functions) if not name.startswith("__")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]


def rename_attributes(tree: ast.Module, keep: set[str]) -> None:
    assigned = {t.attr for t in ast.walk(tree) if isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store)
                and isinstance(t.value, ast.Name) and t.value.id == "self"}
    methods = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    # a string naming the attribute (getattr, a config key, an argparse option '--lr') ties it to that spelling
    strings = {n.value.lstrip("-").replace("-", "_") for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    imported = _imported_and_defined(tree)
    namer = _Namer("a", tree)
    renamed = {name: namer(name) for name in sorted(assigned - KEPT_ATTRIBUTES - keep - methods - strings)
               if not name.startswith("__")}
    library = _library_attributes()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in renamed:
            continue
        on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
        # `F.softmax`, `torch.softmax`: an attribute of an imported module is the library's, whatever self holds;
        # `x.softmax()` on another receiver may be a tensor's own method
        if on_self or not (isinstance(node.value, ast.Name) and node.value.id in imported or node.attr in library):
            node.attr = renamed[node.attr]


@functools.cache
def _library_attributes() -> frozenset[str]:
    import torch

    return frozenset(dir(torch.Tensor)) | frozenset(dir(torch.nn.Module))


def rename_aliases(tree: ast.Module, keep: set[str]) -> None:
    namer = _Namer("m", tree)
    renamed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.asname not in keep:
                    renamed[alias.asname] = alias.asname = namer(alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*" and (alias.asname or alias.name) not in keep and alias.name[:1].islower():
                    old = alias.asname or alias.name
                    renamed[old] = alias.asname = namer(old)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]


# ---- structural rewrites: the same program with its code moved into functions ----

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.While)


def _walk_scope(nodes):
    """Every node of these statements in their own scope: a nested def, lambda or class is entered only for what
    the enclosing scope evaluates (decorators, defaults, bases)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            children = [*node.decorator_list, *node.args.defaults, *[d for d in node.args.kw_defaults if d]]
        elif isinstance(node, ast.Lambda):
            children = [*node.args.defaults, *[d for d in node.args.kw_defaults if d]]
        elif isinstance(node, ast.ClassDef):
            children = [*node.decorator_list, *node.bases, *node.keywords]
        else:
            children = list(ast.iter_child_nodes(node))
        stack.extend(reversed(children))


def _comprehension_targets(nodes) -> set[int]:
    return {id(t) for n in nodes if isinstance(n, ast.comprehension) for t in ast.walk(n.target)}


def _stores(nodes: list) -> list[tuple[str, ast.AST]]:
    """(name, node) for every binding these statements make in their own scope."""
    walked = list(_walk_scope(nodes))
    in_comprehension = _comprehension_targets(walked)
    out = []
    for node in walked:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del) and id(node) not in in_comprehension:
            out.append((node.id, node))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append((node.name, node))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            out.extend(((a.asname or a.name).split(".")[0], node) for a in node.names if a.name != "*")
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            out.append((node.name, node))
    return out


def _free_names(scope: ast.AST) -> set[str]:
    """Names a nested def, lambda or class may read from the scopes around it (all its names less its own locals)."""
    args = scope.args if not isinstance(scope, ast.ClassDef) else None
    own = {a.arg for a in ast.walk(args) if isinstance(a, ast.arg)} if args else set()
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    if not isinstance(scope, ast.ClassDef):
        own |= {name for name, _ in _stores(body)}
    declared = {n for node in ast.walk(scope) if isinstance(node, ast.Global | ast.Nonlocal) for n in node.names}
    return {n.id for n in ast.walk(scope) if isinstance(n, ast.Name)} - (own - declared)


def _loads(nodes: list) -> set[str]:
    """Names these statements read in their own scope, with those their nested defs, lambdas and classes may read."""
    names = set()
    for node in _walk_scope(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, _SCOPES):
            names |= _free_names(node)
    return names


def _is_literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _stays_at_top(index: int, stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return True
    if index == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
            and isinstance(stmt.value.value, str):
        return True  # the docstring
    if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if all(isinstance(t, ast.Name) for t in targets):
            return any(t.id == "__all__" for t in targets) or _is_literal(stmt.value)
    return False


def wrap_main(tree: ast.Module, keep: set[str]) -> None:
    """Move the statements a script runs at its top level into `def _script_main():`, called at the module's end."""
    stays = [_stays_at_top(i, s) for i, s in enumerate(tree.body)]
    moved = [s for s, stay in zip(tree.body, stays) if not stay]
    if not moved:
        return
    walked = list(_walk_scope(moved))
    if any(isinstance(n, ast.Return | ast.Yield | ast.YieldFrom | ast.Await | ast.Global | ast.Nonlocal)
           for n in walked) or any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
                                   for n in walked):
        return
    staying = [s for s, stay in zip(tree.body, stays) if stay]
    bound = {name for name, _ in _stores(moved)}
    # what a def or class of the module reads, what the staying statements bind (a literal constant the script
    # rebinds), and what the other files name: these stay module globals
    shared = _loads(staying) | {name for name, _ in _stores(staying)} | keep
    if any(isinstance(n, ast.Call) and getattr(n.func, "id", None) in {"globals", "locals", "vars", "exec", "eval"}
           for n in walked):
        shared |= bound
    declared = sorted(bound & shared)
    body: list[ast.stmt] = ([ast.Global(names=declared)] if declared else []) + moved
    taken = _identifiers(tree)
    name = next(n for n in ["_script_main", *(f"_script_main{i}" for i in range(1, 1000))] if n not in taken)
    func = ast.FunctionDef(name=name, args=ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_params=[])
    call = ast.Expr(ast.Call(func=ast.Name(func.name, ast.Load()), args=[], keywords=[]))
    tree.body = staying + [func, call]


def _parents(body: list) -> dict[int, ast.AST]:
    """id(node) -> the node holding it, for every node of these statements in their own scope."""
    return {id(c): p for p in _walk_scope(body) for c in ast.iter_child_nodes(p)}


def _is_no_grad(item: ast.withitem) -> bool:
    expr = item.context_expr
    callee = expr.func if isinstance(expr, ast.Call) else expr
    name = callee.attr if isinstance(callee, ast.Attribute) else getattr(callee, "id", "")
    return name in {"no_grad", "inference_mode"}


def _has_backward(loop: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward"
               for n in _walk_scope([loop]))


def _candidate_loops(body: list) -> list[ast.AST]:
    """The innermost loops calling .backward( and the innermost loops under `with torch.no_grad()`, deepest first."""
    parents = _parents(body)
    loops = [n for n in _walk_scope(body) if isinstance(n, _LOOPS)]

    def inner_loops(loop):
        return [n for n in _walk_scope([loop]) if n is not loop and isinstance(n, _LOOPS)]

    def ancestors(node):
        while id(node) in parents:
            node = parents[id(node)]
            yield node

    def depth(node):
        return sum(1 for _ in ancestors(node))

    backward = [lp for lp in loops if _has_backward(lp) and not any(_has_backward(i) for i in inner_loops(lp))]
    evaluation = [lp for lp in loops if not inner_loops(lp) and any(
        isinstance(a, ast.With) and any(_is_no_grad(i) for i in a.items) for a in ancestors(lp))]
    chosen = {id(lp): lp for lp in evaluation + backward}
    return sorted(chosen.values(), key=depth, reverse=True)


def _container(body: list, target: ast.AST) -> list | None:
    """The statement list holding target, among these statements of one scope."""
    if any(s is target for s in body):
        return body
    for node in _walk_scope(body):
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            seq = getattr(node, field, None)
            if isinstance(seq, list) and any(s is target for s in seq):
                return seq
    return None


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _target_names(target: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _surely_bound(stmts: list) -> set[str]:
    """Names these statements bind whenever they run to their end (not a loop's body, a branch both sides of)."""
    names: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, ast.Assign):
            names |= set().union(*(_target_names(t) for t in stmt.targets))
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign) and stmt.value is not None:
            names |= _target_names(stmt.target)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"}
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.With):
            names |= {n for i in stmt.items if i.optional_vars for n in _target_names(i.optional_vars)}
            names |= _surely_bound(stmt.body)
        elif isinstance(stmt, ast.If) and stmt.orelse:
            names |= _surely_bound(stmt.body) & _surely_bound(stmt.orelse)
    return names


def _surely_bound_before(scope: ast.AST, target: ast.AST) -> set[str]:
    """Names bound on every path from the start of the scope to target (a statement of the scope)."""
    parents = _parents(scope.body)
    names: set[str] = set()
    node = target
    while True:
        parent = parents.get(id(node), scope)
        for field in ("body", "orelse", "finalbody"):
            seq = getattr(parent, field, None)
            if isinstance(seq, list) and any(s is node for s in seq):
                names |= _surely_bound(seq[:next(i for i, s in enumerate(seq) if s is node)])
                if field == "body" and isinstance(parent, ast.For):
                    names |= _target_names(parent.target)
                if isinstance(parent, ast.With):
                    names |= {n for i in parent.items if i.optional_vars for n in _target_names(i.optional_vars)}
        if isinstance(parent, ast.ExceptHandler) and parent.name:
            names.add(parent.name)
        if parent is scope:
            return names
        node = parent


def _outline(scope, loop, namer, tree_free: set[str]) -> tuple[ast.FunctionDef, ast.stmt] | None:
    """The new function for this loop and the statement calling it, or None where moving it would change meaning."""
    is_module = isinstance(scope, ast.Module)
    body = scope.body
    in_loop = list(_walk_scope([loop]))
    loop_ids = {id(n) for n in in_loop}
    everywhere = list(ast.walk(loop))
    if any(isinstance(n, ast.Return | ast.Yield | ast.YieldFrom | ast.Await | ast.Global | ast.Nonlocal
                      | ast.AsyncFor | ast.AsyncWith) for n in in_loop):
        return None
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "super" and not n.args
           for n in everywhere):
        return None  # zero-argument super() needs the method's __class__ cell
    if any(isinstance(n, ast.Call) and getattr(n.func, "id", None) in {"locals", "vars", "exec", "eval"}
           for n in in_loop):
        return None
    if any(isinstance(n, ast.Delete) and any(isinstance(t, ast.Name) for t in n.targets) for n in in_loop):
        return None
    words = {getattr(n, a) for n in everywhere for a in ("id", "attr") if isinstance(getattr(n, a, None), str)}
    if any(w.startswith("__") and not w.endswith("__") for w in words) or "__class__" in words:
        return None  # a private name mangled by the class it is written in
    outside = [n for n in _walk_scope(body) if id(n) not in loop_ids]
    declared = {name for n in ast.walk(scope) if isinstance(n, ast.Global | ast.Nonlocal) for name in n.names} \
        if not is_module else {name for n in ast.walk(scope) if isinstance(n, ast.Global) for name in n.names}
    stored = _stores([loop])
    binds = {name for name, _ in stored}
    reads = _loads([loop])
    if (binds | reads) & declared:
        return None
    # a def or lambda of the scope (outside the loop) that sees what the loop rebinds would see a stale value
    nested_free = set()
    for n in outside:
        if isinstance(n, _SCOPES):
            nested_free |= _free_names(n)
    if is_module:
        nested_free |= tree_free
    if binds & nested_free:
        return None
    params_of_scope = [] if is_module else [a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)]
    scope_stores = [(name, node) for name, node in _stores(body) if id(node) not in loop_ids]
    local = set(params_of_scope) | {name for name, _ in scope_stores} | binds
    start = _position(loop)
    before = set(params_of_scope) | {name for name, node in scope_stores if _position(node) < start}
    # names read elsewhere in the scope (before the loop too: an outer loop comes back to them); one only stored
    # elsewhere needs nothing back
    used_outside = {n.id for n in outside if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} | nested_free
    used_outside |= {n.target.id for n in outside if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    returned = sorted(binds & used_outside & local)
    wanted = (reads | set(returned)) if not is_module else (reads & binds) | set(returned)
    wanted &= local
    if any(name not in before and name not in binds for name in wanted):
        return None  # read before any binding: the original would fail (or read a global) differently
    # a name passed in must be bound on every path to the loop, and one handed back must be bound on every path
    # through an iteration (or passed in): else the call or the return fails where the original went on
    surely = _surely_bound_before(scope, loop) | set(params_of_scope)
    every_iteration = _surely_bound(loop.body) | (_target_names(loop.target) if isinstance(loop, ast.For) else set())
    if any(name in before and name not in surely for name in wanted):
        return None
    if any(name not in surely and name not in every_iteration for name in returned):
        return None
    params = sorted(name for name in wanted if name in before)
    name = namer(f"<loop {id(loop)}>")  # a new name for each loop
    args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    new_body: list[ast.stmt] = [loop]
    if returned:
        value = ast.Name(returned[0], ast.Load()) if len(returned) == 1 else \
            ast.Tuple([ast.Name(r, ast.Load()) for r in returned], ast.Load())
        new_body.append(ast.Return(value))
    func = ast.FunctionDef(name=name, args=args, body=new_body, decorator_list=[], returns=None, type_params=[])
    call = ast.Call(func=ast.Name(name, ast.Load()), args=[ast.Name(p, ast.Load()) for p in params], keywords=[])
    if not returned:
        stmt: ast.stmt = ast.Expr(call)
    elif len(returned) == 1:
        stmt = ast.Assign(targets=[ast.Name(returned[0], ast.Store())], value=call)
    else:
        stmt = ast.Assign(targets=[ast.Tuple([ast.Name(r, ast.Store()) for r in returned], ast.Store())], value=call)
    ast.fix_missing_locations(ast.copy_location(stmt, loop))
    return func, stmt


def outline_loops(tree: ast.Module, keep: set[str]) -> None:
    """Move each batch loop (the innermost loop calling `.backward()`) and each evaluation loop (innermost under
    `with torch.no_grad()`) into a module-level function `_loop_N(...)`, called where the loop was."""
    namer = _Namer("_loop_", tree)
    tree_free = {n for stmt in tree.body if isinstance(stmt, _SCOPES)
                 for node in _walk_scope([stmt]) if isinstance(node, _SCOPES) for n in _free_names(node)}
    tree_free |= {name for n in ast.walk(tree) if isinstance(n, ast.Global) for name in n.names}
    scopes = [(tree, None)]
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            scopes.append((stmt, stmt))
        elif isinstance(stmt, ast.ClassDef):
            scopes.extend((m, stmt) for m in stmt.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef))
    after: dict[int, list[ast.stmt]] = defaultdict(list)  # anchor statement -> new functions after it
    before: dict[int, list[ast.stmt]] = defaultdict(list)  # top-level statement -> new functions before it
    for scope, anchor in scopes:
        for loop in _candidate_loops(scope.body):
            seq = _container(scope.body, loop)
            made = _outline(scope, loop, namer, tree_free) if seq is not None else None
            if made is None:
                continue
            func, stmt = made
            seq[next(i for i, s in enumerate(seq) if s is loop)] = stmt
            if anchor is not None:
                after[id(anchor)].append(func)
            else:  # a script's loop: the function must exist before the top-level statement that calls it
                top = next(s for s in tree.body if any(n is stmt for n in ast.walk(s)))
                before[id(top)].append(func)
    body = []
    for stmt in tree.body:
        body.extend(before.get(id(stmt), []))
        body.append(stmt)
        body.extend(after.get(id(stmt), []))
    tree.body = body


REWRITES = {"unparsed": None, "locals": rename_locals, "globals": rename_globals, "attributes": rename_attributes,
            "aliases": rename_aliases, "main": wrap_main, "outlined": outline_loops}


def rewritten(texts: dict[str, str], rewrite) -> dict[str, str] | None:
    out = {}
    for rel, text in texts.items():
        if not rel.endswith(".py"):
            out[rel] = text
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return None
        if rewrite is not None:
            others = [t for r, t in texts.items() if r != rel]
            rewrite(tree, _words_in(others))
        out[rel] = ast.unparse(ast.fix_missing_locations(tree))
    return out


def found(case: dict, folder: Path, codes: set[str]) -> bool:
    report = lint([str(folder / p) for p in case["paths"]])
    return any(f.code in codes for f in report.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", help="corpus folders (default: the dev corpus and blind1-9)")
    parser.add_argument("--show", choices=["lost"], help="list the cases each rewrite loses")
    parser.add_argument("--case", action="append", help="only these case ids")
    parser.add_argument("--keep", help="write the rewritten copies under this folder (kept) instead of a temporary one")
    args = parser.parse_args()
    corpora = [Path(c) for c in args.corpus] if args.corpus else [HERE / c for c in CORPORA]
    kept: dict[str, Counter] = defaultdict(Counter)
    lost: dict[str, list[str]] = defaultdict(list)
    total: Counter = Counter()
    unparsable: set[str] = set()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="lint-mutations-"))
    try:
        for corpus in corpora:
            for case in load_cases(corpus):
                if args.case and case["id"] not in args.case:
                    continue
                if case["kind"] != "buggy" or not extracted(case, corpus) or not (codes := accepted_codes(case)):
                    continue
                source = case_folder(case, corpus)
                if not found(case, source, codes):
                    continue
                texts = {p: (source / p).read_text(encoding="utf-8", errors="replace") for p in case["paths"]}
                total[case["class"]] += 1
                for name, rewrite in REWRITES.items():
                    new = rewritten(texts, rewrite)
                    if new is None:  # a file Python 3's own parser rejects (lint reads old `async=` itself)
                        unparsable.add(case["id"])
                        continue
                    folder = work / case["id"] / name
                    for rel, text in new.items():
                        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                        (folder / rel).write_text(text, encoding="utf-8")
                    if found(case, folder, codes):
                        kept[name][case["class"]] += 1
                    else:
                        lost[name].append(f"{corpus.name}/{case['id']} ({case['class']})")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    cases = sum(total.values())
    print(f"{cases} buggy cases the linter finds, in {len(corpora)} corpora ({len(unparsable)} not rewritten: a file "
          "ast.parse rejects); kept under each rewrite:")
    for name in REWRITES:
        print(f"  {name:11s} {sum(kept[name].values()):4d} / {cases}  ({100 * sum(kept[name].values()) / cases:5.1f}%)")
    print("per class (found; kept under " + ", ".join(REWRITES) + "):")
    for cls in sorted(total):
        print(f"  {cls:28s} {total[cls]:3d}: " + " ".join(f"{kept[n][cls]:3d}" for n in REWRITES))
    if args.show:
        for name in REWRITES:
            print(f"lost under {name}: {len(lost[name])}")
            for item in lost[name]:
                print(f"    {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
