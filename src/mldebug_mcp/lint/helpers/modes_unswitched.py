"""MLD020's findings about models no code of the file ever switches, with the message each one reads:
a handed-in model labelling training batches, a teacher giving a training loop its targets (modes_labeller), a subclass evaluating through inherited
methods of another file (modes_inherited), a model class's own inference method (modes_own_predict)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..context import ModuleContext
from .modes_anchor import anchor_after_setup, class_setup_end
from .modes_inherited import inherited_runs_without_eval
from .modes_labeller import labelling_models, teachers_in_training
from .modes_own_predict import inference_methods_without_eval, opening_past_logs


def unswitched_models(ctx: ModuleContext) -> Iterator[tuple[ast.AST, str]]:
    """(where eval() goes, message) for each."""
    for _call, key, function in labelling_models(ctx):
        yield opening_past_logs(function), (
            f"{key} labels batches under no_grad in training mode: nothing in this file calls {key}.eval(), so "
            f"dropout and batch statistics make its targets noisy; call {key}.eval() first")
    for call, key, function in teachers_in_training(ctx):
        yield class_setup_end(function, key, ctx) or anchor_after_setup(call, key, function, ctx), (
            f"{key} is not trained here but runs under no_grad in the training step in training mode (a teacher, a "
            f"frozen feature extractor): nothing calls {key}.eval(), so dropout and batch statistics change what "
            f"it gives the loss and training batches overwrite its BatchNorm averages; call {key}.eval() after "
            f"setting it up")
    for where, cls, method, base, inherited in inherited_runs_without_eval(ctx):
        yield where, (f"{cls.name}.{method.name}() runs the model through {base}.{inherited}(), which never calls "
                      f"eval(): called after training, it runs with dropout and batch statistics; call the "
                      f"model's eval() here")
    for where, cls, method in inference_methods_without_eval(ctx):
        yield where, (f"{cls.name}.{method.name}() runs the model in whatever mode it was left in: called after "
                      f"training, it predicts with dropout and batch statistics; call self.eval() here")
