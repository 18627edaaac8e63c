"""A forward pass of the training step, whatever it is called (MLD020).

`compute_logprobs(model, batch, use_grad)` under `torch.enable_grad() if use_grad else torch.no_grad()` (and
no optimizer step of its own), or PPO's `evaluate_actions(obs, actions)` that re-runs the policy with autograd
on and returns the log-probs and entropies the loss is built from: the function serves the training step (its
caller backpropagates through what it returns, or takes reference log-probs in the same mode), so the mode is
the step's, not an evaluation's. Read per function (training_pass): one that turns autograd on when asked, or
one that turns it off nowhere, takes nothing off the graph (no .item(), .detach(), .numpy(), .tolist()) and
returns tuples that hold values computed from its object's models (`self.actor(obs)`), a log-prob or an
entropy among them.

Also the methods of a subclass of another module's trainer (in_trainer: the base's loop sets the phase's mode)
and the module functions only they call (run_by_trainers).
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import ident, own_nodes, tokens
from .modes import key_of
from .modes_evidence import scope_trains, subclassed_trainer
from .modes_handed_models import calls_by_ident
from .modes_nograd import disables_grad

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
OFF_GRAPH = {"item", "detach", "numpy", "tolist", "detach_"}
LOG_PROB_WORDS = {"logprob", "logprobs", "lgprob", "lgprobs", "logp", "logps", "entropy", "entropies"}
LOG_PROB_CALLS = {"log_prob", "entropy", "log_softmax", "logsumexp"}


def training_pass(scope: ast.AST, ctx: ModuleContext) -> bool:
    if not isinstance(scope, FUNCS):
        return False
    return ctx.memo(("modes", "training-pass", id(scope)), lambda: _enables_grad(scope, ctx) or _returns_graph(
        scope, ctx))


def _enables_grad(func: ast.AST, ctx: ModuleContext) -> bool:
    """`torch.enable_grad() if use_grad else torch.no_grad()` in a function that takes no training step
    itself: it hands its outputs, on the graph or not as asked, to a caller that backpropagates. Not an
    unconditional enable_grad (an adversarial attack inside a robustness evaluation), nor a phase-shared
    epoch function that steps its optimizer under the same flag."""
    if not ctx.has_text("enable_grad"):
        return False
    nodes = own_nodes(func, ctx)
    return any(isinstance(n, ast.IfExp) and any(
        isinstance(b, ast.Call) and (ctx.call_name(b) or "").endswith("enable_grad") for b in (n.body, n.orelse))
        for n in nodes) and not scope_trains(func, ctx)


def _returns_graph(func: ast.AST, ctx: ModuleContext) -> bool:
    """A method that runs held models (`self.actor.encoder(batch)`) with autograd on (no no_grad in it nor on
    it), takes nothing off the graph, and returns a tuple of values computed from their outputs (log-probs and
    entropies)."""
    if disables_grad(func, ctx):
        return False
    nodes = own_nodes(func, ctx)
    if any(isinstance(n, ast.Attribute) and n.attr in OFF_GRAPH for n in nodes):
        return False
    returns = [n for n in nodes if isinstance(n, ast.Return) and n.value is not None]
    if not returns or not all(isinstance(r.value, ast.Tuple) for r in returns):
        return False
    # the names bound from a held model's call, and those computed from them
    derived: set[str] = set()
    assigns = [n for n in nodes if isinstance(n, ast.Assign)]
    for _ in range(3):
        for node in assigns:
            if _from_model(node.value, derived):
                derived |= {t.id for tgt in node.targets for t in ast.walk(tgt) if isinstance(t, ast.Name)}
    return all(any(isinstance(e, ast.Name) and e.id in derived for e in r.value.elts) for r in returns) and any(
        _log_prob(e, assigns) for r in returns for e in r.value.elts)


def _log_prob(element: ast.AST, assigns: list[ast.Assign]) -> bool:
    """A log-probability or an entropy: so named, or computed by .log_prob()/.entropy()/log_softmax."""
    if not isinstance(element, ast.Name):
        return False
    if LOG_PROB_WORDS & set(tokens(element.id)):
        return True
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute | ast.Name) and (
        ident(n.func) or "").rsplit(".", 1)[-1] in LOG_PROB_CALLS for a in assigns if any(
        isinstance(t, ast.Name) and t.id == element.id for tgt in a.targets for t in ast.walk(tgt))
        for n in ast.walk(a.value))


def _from_model(value: ast.AST, derived: set[str]) -> bool:
    for n in ast.walk(value):
        if isinstance(n, ast.Name) and n.id in derived:
            return True
        if isinstance(n, ast.Call) and (key_of(n.func) or "").startswith("self."):
            return True  # self.actor.encoder(x), self._evaluate(scores): the object's models and helpers
    return False


def run_by_trainers(scope: ast.AST, ctx: ModuleContext, depth: int = 3) -> bool:
    """A function of this file called only from methods of subclassed trainers, directly or through other
    such functions (a rollout helper `generate(policy, queries)` of a trainer's step): it runs in the mode
    the trainer's loop set. (Not every caller in a training loop: a per-epoch validate() sits there too.)"""
    if depth == 0 or not isinstance(scope, FUNCS) or ctx.enclosing_class(scope) is not None:
        return False
    calls = [c for c in calls_by_ident(ctx).get(scope.name, ()) if isinstance(c.func, ast.Name)]
    return bool(calls) and all(in_trainer(caller := ctx.scope_of(c), ctx)
                               or run_by_trainers(caller, ctx, depth - 1) for c in calls)


def in_trainer(scope: ast.AST, ctx: ModuleContext) -> bool:
    cls = ctx.enclosing_class(scope) if isinstance(scope, FUNCS) else None
    return cls is not None and subclassed_trainer(cls, ctx)
