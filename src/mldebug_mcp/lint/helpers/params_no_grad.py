"""A module's own parameter handed to a module whose forward computes its output under torch.no_grad() (MLD030).

`kernel = self._kernel_constraint(self._kernel)` with a constraint class whose forward returns from inside
`with torch.no_grad():`: the returned tensor carries no graph, so the loss sends nothing back to the parameter
and it never trains. A frozen feature extractor called on the input (`self.backbone(x)`) is not this: the
parameter must be one the calling module itself holds.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .optim_params import self_attribute

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
NO_GRAD = {"torch.no_grad", "torch.inference_mode"}


def parameters_through_no_grad(ctx: ModuleContext) -> list[tuple[ast.Call, str, str]]:
    """(the call, `self.<parameter>`, the no-grad class) for each such hand-off in the module."""
    if not any(ctx.call_name(i.context_expr) in NO_GRAD for w in ctx.by_type.get(ast.With, ()) for i in w.items
               if isinstance(i.context_expr, ast.Call)) and not any(
            f.name == "forward" and f.decorator_list for f in ctx.by_type.get(ast.FunctionDef, ())):
        return []  # no `with torch.no_grad():` block and no decorated forward: no forward runs without grad
    no_grad_classes = {c.name for c in ctx.by_type.get(ast.ClassDef, ()) if _forward_without_grad(c, ctx)}
    if not no_grad_classes:
        return []
    found = []
    for cls in ctx.by_type.get(ast.ClassDef, ()):
        built, parameters = {}, set()
        for node in ast.walk(cls):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and self_attribute(node.targets[0]) \
                    and isinstance(node.value, ast.Call):
                called = ctx.call_name(node.value) or ""
                if called.rsplit(".", 1)[-1] in no_grad_classes:
                    built[node.targets[0].attr] = called.rsplit(".", 1)[-1]
                elif called.endswith("Parameter"):
                    parameters.add(node.targets[0].attr)
        if not built or not parameters:
            continue
        for node in ast.walk(cls):
            if isinstance(node, ast.Call) and self_attribute(node.func) and node.func.attr in built:
                for arg in node.args:
                    if self_attribute(arg) and arg.attr in parameters:
                        found.append((node, f"self.{arg.attr}", built[node.func.attr]))
    return found


def _forward_without_grad(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """The class's forward returns only from inside `with torch.no_grad():` (or is decorated with it)."""
    forward = next((m for m in cls.body if isinstance(m, FUNCTIONS) and m.name == "forward"), None)
    if forward is None:
        return False
    if any(ctx.call_name(d.func if isinstance(d, ast.Call) else d) in NO_GRAD or ctx.qualname(d) in NO_GRAD
           for d in forward.decorator_list):
        return True
    returns = [n for n in ast.walk(forward) if isinstance(n, ast.Return) and n.value is not None]
    return bool(returns) and all(_under_no_grad(r, forward, ctx) for r in returns)


def _under_no_grad(node: ast.AST, function: ast.AST, ctx: ModuleContext) -> bool:
    for ancestor in ctx.ancestors(node):
        if ancestor is function:
            return False
        if isinstance(ancestor, ast.With | ast.AsyncWith) and any(
                isinstance(i.context_expr, ast.Call) and ctx.call_name(i.context_expr) in NO_GRAD
                for i in ancestor.items):
            return True
    return False
