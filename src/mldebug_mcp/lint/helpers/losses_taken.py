"""Where another file's logit loss takes a model of this file (MLD001's finish, from the project index): the
loss told for the model's name (losses_chosen.fed_loss), or after a third file hands the model over
(losses_elsewhere.handed_over); for a class also under the names other files call it by, or picked by name from
this module; an element of the tuple or dict it returns; each model of a registry a factory picks from."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .kinds import (
    ACTIVATIONS,
    ANY_MODEL,
    Traced,
    class_aliases,
    module_names,
    traced_element,
    traced_factory,
    traced_return,
)
from .losses_chosen import fed_loss
from .losses_elsewhere import handed_over, resolved_fed
from .losses_models import top_level_model
from .models_registry import registered_entries


def taken(project, name: str) -> str | None:
    """Where another file's logit loss takes the output of the model `name`, directly or after a third file
    hands the model over (helpers/losses_elsewhere.handed_over)."""
    return fed_loss(project, name) or handed_over(project, name)


def model_taken(project, name: str, owner: ast.AST | None, kind: str, ctx: ModuleContext) -> str | None:
    """`taken` for a class or function `name` of this file; for a class also a model handed to a function of
    another file (under any name it goes by), picked by name from this module (`getattr(models, args.model)()`),
    or a trainer's default loss."""
    fed = taken(project, name)
    if fed is None and isinstance(owner, ast.ClassDef):  # a model handed to a function of another file
        fed = next(filter(None, (resolved_fed(fed_loss(project, alias), owner, ctx)
                                 for alias in class_aliases(owner, ctx))), None)
        if fed is None and kind in ACTIVATIONS and top_level_model(owner, ctx):
            # picked by name from this module (`getattr(models, args.model)()`), or a trainer's default
            fed = next(filter(None, (taken(project, m) for m in module_names(ctx.path))), None)
            default = fed_loss(project, ANY_MODEL) if fed is None else None
            fed = fed or (f"a trainer's default loss, {default}" if default else None)
    return fed


def element_taken(name: str, ctx: ModuleContext) -> tuple[str | None, Traced | None]:
    """(the loss, the element traced) for `Net/0` (`Net/logits`) whose activation another file's logit loss takes
    (`pred, aux = net(x)`; `loss(pred, y)`, or `loss(out["logits"], y)`)."""
    fed = fed_loss(ctx.project, name) or handed_over(ctx.project, name)  # `train(net, criterion)` of another file
    owner_name, index = name.split("/", 1)
    if fed is None and not index.isdigit():  # out["exist"] of a model handed to the loss's file
        fed = fed_loss(ctx.project, f"{ANY_MODEL}/{index}")
    owner = ctx.classes.get(owner_name) or ctx.functions.get(owner_name)
    key = int(index) if index.isdigit() else index  # a tuple element or a dict entry
    return fed, traced_element(owner, key, ctx) if fed is not None and owner is not None else None


def registered_models(factory: ast.AST, ctx: ModuleContext) -> Iterator[tuple[str, Traced]]:
    """(the entry, its activation traced) for each model of the registry `factory` picks from by name whose
    output is an activation (helpers/models_registry), each activation once."""
    seen = set()
    for entry in registered_entries(factory, ctx):
        owner = ctx.functions.get(entry)
        found = traced_factory(owner, ctx) if owner is not None else traced_return(ctx.classes[entry], ctx)
        if found is None or found.kind not in ACTIVATIONS or any(o in seen for o in found.origins):
            continue
        seen.update(found.origins)
        yield entry, found
