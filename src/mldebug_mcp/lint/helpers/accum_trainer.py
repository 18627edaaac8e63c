"""A Trainer subclass's compute_loss() that drops the normaliser the Trainer hands it.

transformers' Trainer (4.46 and later) passes `num_items_in_batch` to compute_loss() and, when it does,
back-propagates the returned loss without dividing it by gradient_accumulation_steps: the loss is expected
to be normalised by the item count of the whole accumulated batch. An override that takes the argument,
never reads it and never divides by the accumulation steps returns a per-micro-batch mean, so the
accumulated gradient is gradient_accumulation_steps times too large.

The Trainer counts num_items_in_batch only from a "labels" key of the first micro-batch (get_batch_samples);
without one it hands None and divides by the accumulation steps itself (training_step: `if (not
self.model_accepts_loss_kwargs or num_items_in_batch is None) and self.compute_loss_func is None: loss = loss /
self.current_gradient_accumulation_steps`). An override whose batches show no "labels" key is scaled there.
"""

from __future__ import annotations

import ast

from ..context import ModuleContext

NORMALISER = "num_items_in_batch"
LABELS = "labels"  # the batch key the Trainer counts num_items_in_batch from


def unscaled_trainer_loss(function: ast.AST, ctx: ModuleContext) -> ast.Return | None:
    """The last `return <loss>` of such an override, or None."""
    if function.name != "compute_loss" or ctx.enclosing_class(function) is None:
        return None
    cls = ctx.enclosing_class(function)
    if not cls.bases:
        return None
    if any(isinstance(n, ast.Name | ast.Attribute) and (n.id if isinstance(n, ast.Name) else n.attr)
           == "model_accepts_loss_kwargs" for n in ast.walk(cls)):
        return None  # the class tells the Trainer whether to divide: it decided on purpose
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    if NORMALISER not in names:
        return None
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and node.id == NORMALISER and isinstance(node.ctx, ast.Load):
            return None  # handed on or used: the override normalises (or lets the model do it)
        if isinstance(node, ast.Name | ast.Attribute) and "accumulation" in (
                node.id if isinstance(node, ast.Name) else node.attr).lower():
            return None
        if isinstance(node, ast.keyword) and node.arg is None and arguments.kwarg is not None and isinstance(
                node.value, ast.Name) and node.value.id == arguments.kwarg.arg:
            return None  # the override's own **kwargs handed on may carry it
    own = {n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for node in ast.walk(function):
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and "loss" in func.attr.lower() and func.attr not in own:
            return None  # an inherited loss helper (GRPO's _compute_loss) may normalise for accumulation itself
    if _batches_without_labels(function, cls, ctx):
        return None
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return) and n.value is not None
               and ctx.enclosing(n, (ast.FunctionDef, ast.AsyncFunctionDef)) is function]
    return max(returns, key=lambda n: n.lineno) if returns else None


def _batches_without_labels(function: ast.AST, cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    """The Trainer hands num_items_in_batch=None, and then divides the loss by the accumulation steps itself,
    whenever the first micro-batch has no "labels" key (get_batch_samples counts `batch["labels"]`): an override
    (or the method of its class it hands the batch to) that reads the batch by its own keys (`inputs["input_ids"]`,
    `inputs["rewards"]`), in a module that never names a "labels" key, and whose loss is not a model's own `.loss`
    (a model computes that from labels it is handed)."""
    if any(n.value == LABELS for n in ctx.by_type.get(ast.Constant, ())):
        return False
    readers = _batch_readers(function, cls)
    if any(_model_loss(n) for func, _ in readers for n in ast.walk(func)):
        return False
    return any(_keyed_read(n, batch) for func, batch in readers for n in ast.walk(func))


def _batch_readers(function: ast.AST, cls: ast.ClassDef) -> list[tuple[ast.AST, str]]:
    """(function, the name it holds the batch under): compute_loss's `inputs`, and each method of the class it
    hands them to (TPO's `return self._compute_loss(model, inputs, return_outputs)`)."""
    params = [a.arg for a in function.args.posonlyargs + function.args.args]
    if len(params) < 3:
        return []
    batch = params[2]  # compute_loss(self, model, inputs, ...)
    readers = [(function, batch)]
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    for call in ast.walk(function):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(
                call.func.value, ast.Name) and call.func.value.id == "self" and call.func.attr in methods):
            continue
        method = methods[call.func.attr]
        names = [a.arg for a in method.args.posonlyargs + method.args.args][1:]
        slot = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == batch), None)
        if slot is not None and slot < len(names):
            readers.append((method, names[slot]))
    return readers


def _keyed_read(node: ast.AST, batch: str) -> bool:
    """`batch["input_ids"]`, `batch.get("rewards")`, `batch.pop("start_positions")`."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Name) and node.value.id == batch and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"get", "pop"} \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == batch and bool(node.args) \
        and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)


def _model_loss(node: ast.AST) -> bool:
    """`outputs.loss`, `outputs["loss"]`: the loss a model computed from the labels in its inputs."""
    if isinstance(node, ast.Attribute):
        return node.attr == "loss" and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "loss"
