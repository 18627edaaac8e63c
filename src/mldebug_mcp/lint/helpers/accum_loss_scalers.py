"""Project facts (MLD014): the module-level functions of a file that rescale a loss they are handed, by the
position of that parameter (`def mean_global_loss(losses, tokens, total): ... cur_loss = cur_loss * tokens /
total`). A loop of another file whose micro-batch loss passes through such a function before backward()
(`loss_dict = mean_global_loss(loss, n, total)`) scales it there."""

from __future__ import annotations

import ast

SCALES_LOSS = "scales-loss:"  # project-index key prefix: scales-loss:<function> -> '0' or '0,2' (its loss slots)
RESCALING = (ast.Mult, ast.Div)
ROUNDS = 3  # passes over the assignments: enough for `for key, cur_loss in losses.items(): cur_loss = cur_loss * k`


def loss_scaler_facts(ctx) -> dict[str, str]:
    """`scales-loss:<name>` for each module-level function with a loss parameter (`loss`, `losses`) that it
    multiplies or divides, directly or through the names it derives from it."""
    if not ctx.has_text("loss"):
        return {}
    found = {}
    for func in ctx.by_type.get(ast.FunctionDef, ()):
        if not isinstance(ctx.parent(func), ast.Module):
            continue
        params = [a.arg for a in func.args.posonlyargs + func.args.args]
        slots = [str(i) for i, p in enumerate(params) if "loss" in p.lower() and _rescales(func, p)]
        if slots:
            found[SCALES_LOSS + func.name] = ",".join(slots)
    return found


def _rescales(func: ast.FunctionDef, param: str) -> bool:
    """A `*` or `/` with a name derived from `param` as one side (`cur_loss * cur_token_len`)."""
    derived = _derived(func, param)
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, RESCALING) and any(
        isinstance(side, ast.Name) and side.id in derived for side in (n.left, n.right)) for n in ast.walk(func))


def _derived(func: ast.FunctionDef, param: str) -> set[str]:
    """`param` and the names assigned from it or looping over it (`for key, cur_loss in losses.items()`)."""
    derived = {param}
    for _ in range(ROUNDS):
        grown = False
        for node in ast.walk(func):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                source, targets = node.value, node.targets if isinstance(node, ast.Assign) else [node.target]
            elif isinstance(node, ast.For):
                source, targets = node.iter, [node.target]
            else:
                continue
            if not _names(source) & derived:
                continue
            new = {n for t in targets for n in _names(t)} - derived
            if new:
                derived |= new
                grown = True
        if not grown:
            break
    return derived


def _names(expr: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
