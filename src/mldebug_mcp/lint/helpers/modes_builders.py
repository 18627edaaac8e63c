"""A model builder that loads trained weights and returns the model in training mode, for files that predict
with it (MLD020).

`def build_model(arch, checkpoint): model = Net(arch); model.load_state_dict(torch.load(checkpoint));
return model.to(device)` in one file, and an inference script of the run (it trains nothing) that takes
`model = build_model(...)` and predicts without ever calling model.eval(): the fix goes in the builder, right
after the weights are loaded. The script tells, per builder it imports (`from networks import build_model`),
that it evaluates the built model without switching it: `mode:@~evaluated:<module>.<function>@<scope>` ->
'yes'; the builder's file asks.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext
from .evaluation import SETUP_CALLS, strip_calls
from .loader_facts import scoped, told_in_scope
from .modes import key_of, related
from .modes_handed_models import calls_by_ident

MODE_FACT = "mode:"  # modes_facts' family (that module imports this one)
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
GRAD_OFF = ("no_grad", "inference_mode")


def _predicting_file(ctx: ModuleContext) -> bool:
    """Cheap: autograd turned off, and no backward() in the file."""
    return any(map(ctx.has_text, GRAD_OFF)) and not ctx.has_text("backward")


def _imported(ctx: ModuleContext) -> dict[str, str]:
    """Local name -> '<module>.<name>' for each `from <module> import <name>` (the module's last part)."""
    found = {}
    for node in ctx.by_type.get(ast.ImportFrom, ()):
        module = (node.module or "").rsplit(".", 1)[-1]
        if module:
            for alias in node.names:
                found[alias.asname or alias.name] = f"{module}.{alias.name}"
    return found


def evaluated_builder_keys(ctx: ModuleContext) -> set[str]:
    """The keys evaluated_builder_facts may tell, without the analysis (what mode_fact_keys lists)."""
    if not _predicting_file(ctx):
        return set()
    imported = _imported(ctx)
    if not imported:
        return set()
    scopes = [key.rsplit("@", 1)[-1] for key in scoped("~", "", ctx)]  # the folders, worked out once per file
    return {f"{MODE_FACT}@~evaluated:{name}@{scope}" for name in imported.values() for scope in scopes}


def evaluated_builder_facts(ctx: ModuleContext) -> dict[str, str]:
    """'yes' for each imported builder whose result this predicting file assigns to a name it never switches
    with eval() and hands on or runs."""
    if not _predicting_file(ctx):
        return {}
    imported = _imported(ctx)
    evals = [c for c in calls_by_ident(ctx).get("eval", ()) if isinstance(c.func, ast.Attribute)]
    found: dict[str, str] = {}
    for node in ctx.by_type.get(ast.Assign, ()):
        value = strip_calls(node.value, SETUP_CALLS)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name) or not isinstance(value, ast.Call) \
                or not isinstance(value.func, ast.Name) or value.func.id not in imported:
            continue
        key = node.targets[0].id
        if any(related(key_of(c.func.value), key) for c in evals if key_of(c.func.value)):
            continue
        if _used_after(key, node, ctx):
            found.update({f"{MODE_FACT}{k}": "yes" for k in scoped(
                f"~evaluated:{imported[value.func.id]}", "yes", ctx)})
    return found


def _used_after(key: str, assign: ast.Assign, ctx: ModuleContext) -> bool:
    """The name is called or handed to a call later in the same scope."""
    scope = ctx.scope_of(assign)
    for call in ctx.in_scope(scope, (ast.Call,)):
        if call.lineno <= assign.lineno:
            continue
        if (isinstance(call.func, ast.Name) and call.func.id == key) or any(
                isinstance(a, ast.Name) and a.id == key for a in call.args):
            return True
    return False


def builders_evaluated_elsewhere(ctx: ModuleContext) -> list[tuple[ast.AST, str, str]]:
    """(where eval() goes, the model's key, the builder's name) for each top-level function of this file that
    loads weights into a model it returns without eval(), which a predicting file of the run evaluates."""
    if ctx.project is None or not ctx.has_text("load_state_dict"):
        return []
    from .modes_facts import _module_name  # that module imports this one
    module = _module_name(ctx.path)
    found = []
    for name, func in ctx.functions.items():
        if not isinstance(func, FUNCS) or ctx.parent(func) is not ctx.tree:
            continue
        calls = ctx.within(ast.Call, func)
        loads = [c for c in calls if isinstance(c.func, ast.Attribute)
                 and c.func.attr == "load_state_dict" and key_of(c.func.value)]
        if not loads or any(isinstance(c.func, ast.Attribute) and c.func.attr in ("eval", "train") for c in calls):
            continue
        key = key_of(loads[-1].func.value)
        returned = [r for r in ctx.within(ast.Return, func) if r.value is not None
                    and key_of(strip_calls(r.value, SETUP_CALLS)) == key]
        if not returned or told_in_scope(ctx, f"~evaluated:{module}.{name}", MODE_FACT) != "yes":
            continue
        stmt = next((a for a in ctx.ancestors(loads[-1]) if isinstance(a, ast.stmt)), loads[-1])
        found.append((stmt, key, name))
    return found
