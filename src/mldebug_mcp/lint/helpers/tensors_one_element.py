"""Whether a row of a two-size view must hold a single element, so one of the two axes it swaps is 1 (MLD040).

`labels.append(t.reshape(t.shape[1], t.shape[0])[0])`, later `torch.tensor(labels)` (MultiBench's collate):
torch.tensor converts a list of tensors only when each holds one element, so the row `[0]` has one element, the
view's last size (`t.shape[0]`) is 1, and `reshape(c, 1)` of a (1, c) tensor lays out the same memory a transpose
would. `.item()`, `float()` and `int()` of the row say the same.
"""

from __future__ import annotations

import ast

# build a tensor from a list of tensors only when each holds one element
FROM_NUMBERS = {"torch.tensor", "torch.as_tensor"}
TO_NUMBER = {"float", "int"}


def row_of_one_element(call: ast.Call, sizes: list[ast.expr], ctx) -> bool:
    """`call` (a view to two sizes) is indexed at one row, and that row is read as a single number."""
    row = ctx.parent(call)
    if len(sizes) != 2 or not (isinstance(row, ast.Subscript) and row.value is call
                               and isinstance(row.slice, ast.Constant) and type(row.slice.value) is int):
        return False
    holder = ctx.parent(row)
    if isinstance(holder, ast.Attribute) and holder.attr == "item":
        return True
    if not isinstance(holder, ast.Call) or holder.args != [row]:
        return False
    if isinstance(holder.func, ast.Name) and holder.func.id in TO_NUMBER:
        return True
    collected = holder.func.value if isinstance(holder.func, ast.Attribute) and holder.func.attr == "append" else None
    return isinstance(collected, ast.Name) and _made_into_numbers(collected.id, ctx.scope_of(call), ctx)


def _made_into_numbers(name: str, scope: ast.AST, ctx) -> bool:
    """`torch.tensor(name)` in the same function."""
    return any(ctx.call_name(c) in FROM_NUMBERS and c.args and isinstance(c.args[0], ast.Name) and c.args[0].id == name
               for c in ctx.in_scope(scope, (ast.Call,)))
