"""A bootstrapped TD target that still carries the online network's graph (MLD043).

`y = rewards + gamma * q_next * (1 - dones)` with `q_next = self.q(next_states).gather(...)`, while the loss
compares y with `self.q(states)...`, the same network's estimate: nothing detaches q_next and no no_grad() is
around it, so the loss back-propagates through the target as well (a residual gradient, not the semi-gradient
TD update DQN and its relatives use). AgileRL's double-DQN branch did this (blind split 13).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import ident, tokens, under_no_grad

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
DISCOUNTS = {"gamma", "discount", "discounts", "gammas"}
TARGET_WORDS = {"target", "targ", "tgt", "old", "frozen", "ema", "avg", "slow"}
CUT = {"detach", "detach_", "item", "numpy", "tolist"}  # each ends the graph


def undetached_bootstrap(assign: ast.Assign, ctx: ModuleContext) -> tuple[ast.Call, str] | None:
    """For `y = r + gamma * q_next * (1 - done)`: (the online network's call on the next states that the target
    is built from, that network's name) when it is not detached and the function's other use of the same
    network (its estimate on the current states) meets y in a subtraction or a loss call."""
    if not (isinstance(assign.value, ast.BinOp) and isinstance(assign.value.op, ast.Add) and _discounted(assign.value)):
        return None
    function = ctx.enclosing(assign, FUNCTIONS)
    if function is None or len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
        return None
    found = _next_state_call(assign.value, assign, ctx, 4)
    if found is None:
        return None
    call, network = found
    if any(word in TARGET_WORDS for word in tokens(network.rpartition(".")[2])) or under_no_grad(call, ctx):
        return None
    target = assign.targets[0].id
    if not _compared_with_estimate(target, network, assign, function, ctx):
        return None
    return call, network


def _discounted(expr: ast.BinOp) -> bool:
    """A term of the sum is a product with a discount factor (`gamma * q`, `self.gamma * q * (1 - d)`)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
                (ident(side) or "").lower() in DISCOUNTS or (ident(side) or "").lower().endswith("gamma")
                for side in (node.left, node.right)):
            return True
    return False


def _next_state_call(expr: ast.AST, at: ast.AST, ctx: ModuleContext, depth: int) -> tuple[ast.Call, str] | None:
    """The network call on a `next_*` input that `expr` is built from, through names bound before `at` in the same
    function; None when a detach (or .item(), a numpy copy) cuts the chain first."""
    if depth <= 0:
        return None
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in CUT:
            if any(sub is not node and _is_next_call(sub) for sub in ast.walk(node.func.value)):
                return None  # `self.q(next_s).detach().max(1)[0]`: cut
        if _is_next_call(node):
            network = _network(node)
            if network is not None and not _cut_above(node, expr, ctx):
                return node, network
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            values = [v for v in ctx.values_of(node, at=at) if getattr(v, "lineno", 0) < at.lineno
                      and ctx.scope_of(v) is ctx.scope_of(at)]
            for value in values:  # each branch's value (`if self.double: ... else: ...`)
                found = _next_state_call(value, value, ctx, depth - 1)
                if found is not None:
                    return found
    return None


def _is_next_call(node: ast.AST) -> bool:
    """A call of a network (a name or `self.x`, not a method of a tensor) whose argument names the next state."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    return any("next" in tokens(ident(a) or "") for a in node.args if isinstance(a, ast.Name | ast.Attribute))


def _network(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        return f"self.{func.attr}"
    return None


def _cut_above(call: ast.Call, top: ast.AST, ctx: ModuleContext) -> bool:
    """A `.detach()` (or .item()) between the call and the expression it feeds."""
    for anc in ctx.ancestors(call):
        if anc is top:
            return False
        if isinstance(anc, ast.Attribute) and anc.attr in CUT:
            return True
    return False


def _compared_with_estimate(target: str, network: str, assign: ast.Assign, function: ast.AST,
                            ctx: ModuleContext) -> bool:
    """After the target is built, the function calls the same network on another input (the estimate), and the
    target meets it in a loss call or a difference, and something runs a backward."""
    if function not in ctx.backward_scopes:
        return False
    later = [n for n in ast.walk(function) if getattr(n, "lineno", 0) >= assign.lineno]
    estimates = [n for n in later if isinstance(n, ast.Call) and _network(n) == network and not _is_next_call(n)]
    if not estimates:
        return False
    for node in later:
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == target for a in node.args) \
                and len(node.args) >= 2:
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and any(
                isinstance(side, ast.Name) and side.id == target for side in (node.left, node.right)):
            return True
    return False
