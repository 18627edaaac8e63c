import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.evaluation import (
    ident,
    is_eval_call,
    is_train_call,
    mode_helper,
    model_like,
    tokens,
    uses_torch,
)
from ..helpers.loops import LOOPS, calls_in_order, is_backward
from ..helpers.modes import (
    branch_taken,
    constant_arguments,
    position,
    update_step,
)
from ..helpers.modes_anchor import LastLine
from ..helpers.modes_callback_hooks import dispatched_hook, hook_mode, hook_model_node
from ..helpers.modes_epochs import (
    object_leaving_eval,
    training_helper_names,
    trains_through_helper,
)
from ..helpers.modes_eval_callbacks import eval_callbacks_for_trainer
from ..helpers.modes_factories import builders_for_a_trainer, built_in_eval
from ..helpers.modes_facts import callee_mode, handed_models
from ..helpers.modes_handed_models import calls_by_ident
from ..helpers.modes_hidden import function_of, helper_end, own_targets
from ..helpers.modes_hooks import validation_hook_left_in_eval
from ..helpers.modes_models import bare_switch
from ..rule import Hit, Rule

TRAINED = re.compile(r"model|net|backbone|encoder|decoder|classifier|generator|discriminator|policy|actor|critic")
# models kept in eval mode on purpose while another one trains
FROZEN = {"teacher", "ema", "target", "frozen", "ref", "reference", "swa", "avg", "averaged", "old", "base"}


MODE_TEXTS = ('eval', 'train(False', 'valid', 'test')
FACTORY_MESSAGE = ("{factory}() returns {model} in eval mode ({where}) and the training loop at line {loop} trains it "
                   "without .train(): every step trains in eval mode; drop the eval() from the builder or call "
                   "{model}.train() before the loop")
BUILDER_MESSAGE = ("{factory}() returns the model in eval mode, and {trainer} trains a model it is handed without "
                   "switching it to train mode: handed this one, every step trains in eval mode; drop the eval() "
                   "from the builder or call .train() when training starts")
CALLBACK_MESSAGE = ("{func}() leaves {model} in eval mode and runs here as a callback of {trainer}, which switches "
                    "{model} to train() only when it is built: every step after the first evaluation trains in "
                    "eval mode; restore the mode at the end of {func}() (model.train(was_training))")
HOOK_MESSAGE = ("{model}.eval() in {hook}() is undone only by {epoch_hook}(): a validation in mid-epoch leaves the "
                "rest of that epoch training in eval mode; switch back with .train() when validation ends")


class TrainModeNotRestored(Rule):
    """What it does: flags model.eval() inside a training loop (one that calls backward() and an
    optimizer step, or an update op built from model.parameters()) when no .train() follows it in the
    loop body and none runs at the top of each iteration, e.g. periodic validation that never switches
    back; a call of a function whose last mode switch is .eval() (of this file, also two helpers down,
    or of another file of the run: `utils.validate(model, val_loader)`) counts as the eval(), and one that
    leaves the model in training mode (`train_one_epoch()` of another file) as the train(). Also flags an eval() repeated after the evaluation where train() was meant
    (`if eval_: net.eval()` before and after), and an evaluation function handed the model and the
    current training step (called every n steps) that returns with the model still in eval mode (unless each
    of its callers in this file restores training mode in the loop around the call: `for epoch: train(...)`
    whose train() calls model.train()), and a
    model put in eval mode and evaluated before a training loop (a probe, a baseline score) that then trains
    it without train(). An epoch loop whose training step is a helper of this file (`self.train_epoch()`,
    that sets no mode itself) and whose evaluation is an object built with the model whose method leaves it in
    eval mode (`Evaluator(model).get_scores()`, this file or another file of the run) is checked the same way.
    A model is trained when named like one, built as one, or run in the training step
    (G, D). Also: a model a builder returns in eval mode (`model.eval(); return model`) that a loop
    trains without train(), or that a framework module of the run trains as handed (reported at the
    builder's eval()), and a training-logic class whose validation-begin hook calls eval() while only
    its epoch-begin hook calls train(). A trainer that dispatches a hook to the callbacks it is handed
    (`self._cb("on_epoch_end")`, `cb.after_epoch(self)`) switches its model as the callback classes of the run
    do in that hook (`learn.model.eval()` leaves it in eval mode; `learn.model.train()` restores). A trainer
    class of the file that switches train() only when built, handed an evaluation callback (`lambda:
    evaluate(model, loader)`, `partial(test, model)`) whose function leaves the model in eval mode, is reported
    at that callback. Reported where train() goes: at the top of each iteration when a train() sits right before the
    loop, else after the periodic evaluation block (or the call); when the loop calls a helper not named for
    evaluation that evaluates through another one (`self.log_and_save()` -> `self.evaluate()`) or switches as
    a side effect of running the model (a trigger or attack search), before that function returns. A step
    helper handed the optimizer (`strategy.optimizer_step(optimizer, model)`) counts as the update.

    Why is this bad: every later step trains with dropout off and BatchNorm frozen on its
    running statistics. Nothing fails; the model just converges to something worse.
    """

    code = "MLD021"
    name = "train-mode-not-restored"
    category = "modes"
    severity = "error"
    message = "{model}.eval() in a training loop is never undone by .train(); later steps train in eval mode"
    why = "After the first evaluation, training runs without dropout and with frozen BatchNorm statistics."
    fix = "Call model.train() after evaluating (or in a finally), or at the top of every training iteration."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (*LOOPS, ast.FunctionDef, ast.AsyncFunctionDef)
    # an eval() here, a call of another file's validate(), or a model another file's factory returns in eval mode
    requires_text = (*MODE_TEXTS, 'backward')
    BAD = (
        "import torch\n"
        "def fit(model, opt, loader, loss_fn, validate):\n"
        "    model.train()\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        opt.zero_grad()\n"
        "        loss_fn(model(x), y).backward()\n"
        "        opt.step()\n"
        "        if step % 500 == 0:\n"
        "            model.eval()\n"
        "            validate(model)\n"
    )
    GOOD = (
        "import torch\n"
        "def fit(model, opt, loader, loss_fn, validate):\n"
        "    model.train()\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        opt.zero_grad()\n"
        "        loss_fn(model(x), y).backward()\n"
        "        opt.step()\n"
        "        if step % 500 == 0:\n"
        "            model.eval()\n"
        "            validate(model)\n"
        "            model.train()\n"
    )

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        if uses_torch(ctx):  # a builder of this file returning eval mode, a module of the run training it as handed
            for func, switch, trainer in builders_for_a_trainer(ctx):
                yield Hit(switch, BUILDER_MESSAGE.format(factory=func.name, trainer=trainer))
            for call, func, model, trainer in eval_callbacks_for_trainer(ctx):
                yield Hit(call, CALLBACK_MESSAGE.format(func=func, model=model, trainer=trainer))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if uses_torch(ctx):
                yield from _eval_again(node, ctx)
                yield from _periodic_evaluation_left_in_eval(node, ctx)
                hook = validation_hook_left_in_eval(node, ctx)
                if hook is not None:
                    where, key, epoch_hook = hook
                    yield Hit(where, HOOK_MESSAGE.format(
                        model=key, hook=node.name, epoch_hook=epoch_hook))
            return
        if not uses_torch(ctx):
            return
        if not ctx.memo(("mld021", "mode-text"), lambda: any(map(ctx.has_text, MODE_TEXTS))):
            # no eval() here: only a model another file's factory returns in eval mode can be left in it
            # or one another file's evaluation helper leaves in eval mode (`perform_val(..., backbone, ...)`),
            # or a callback's hook the loop dispatches (`self._cb("on_epoch_end")`)
            if ctx.project is None or (node not in ctx.backward_scopes and not training_helper_names(ctx)):
                return  # most loops train nothing, here or through a helper of this file
            calls = list(calls_in_order(node.body))
            if not any(_hook_leaving_eval(c, ctx) is not None for c in calls):
                if node not in ctx.backward_scopes:
                    return
                built = _built_in_eval(node, calls, ctx)
                if built is not None:
                    yield built
                    return
                if not any(_foreign_leaving_eval(c, ctx) is not None for c in calls):
                    return
        if node in ctx.backward_scopes:
            calls = list(calls_in_order(node.body))
            backward = next((i for i, c in enumerate(calls) if is_backward(c)), None)
            if backward is None or not any(update_step(c, ctx) for c in calls):
                return
        else:  # an epoch loop whose training step is a helper of this file (self.train_epoch(loader))
            if not training_helper_names(ctx):
                return  # no function of this file calls backward()
            calls = list(calls_in_order(node.body))
            backward = trains_through_helper(calls, ctx)
            if backward is None:
                return
        bare = [(s, k) for s in ast.walk(node) if (k := bare_switch(s, "train", ctx))]
        if bare:  # `model.train` without the call: the restore the author meant never happens
            stmt, key = bare[0]
            yield Hit(stmt, f"{key}.train without parentheses does nothing: after the first evaluation {key} "
                            f"trains in eval mode; write {key}.train()")
            return
        restores = [i for i, c in enumerate(calls) if _restores_train(c, ctx)]
        if any(i < backward for i in restores):
            return  # train() at the top of every iteration
        if not restores and not any(isinstance(a, LOOPS) and a in ctx.backward_scopes for a in ctx.ancestors(node)):
            built = _built_in_eval(node, calls[:backward], ctx)
            if built is not None:
                yield built
                return
            probe = _evaluated_before(node, calls, ctx)
            if probe is not None:
                key, where = probe
                yield Hit(where, f"{key} was put in eval mode and evaluated before this training loop, and nothing "
                                 f"calls {key}.train() before it trains: every step trains in eval mode; call "
                                 f"{key}.train() after the evaluation")
                return
        reported: set[int] = set()
        for i, call in enumerate(calls):
            if i in restores:
                continue  # model.train() itself, even where a class of this file defines a train() method
            evaluation = call if is_eval_call(call) else _helper_leaving_eval(call, ctx)
            model_node = evaluation.func.value if evaluation is not None else (
                _foreign_leaving_eval(call, ctx) or object_leaving_eval(call, ctx) or _hook_leaving_eval(call, ctx))
            if model_node is None or any(j > i for j in restores) or not (
                    _trained_model(model_node, ctx) or _runs_in_step(model_node, calls[:backward], ctx)):
                continue
            if evaluation is not None and evaluation is not call and _evaluation_copy(
                    _argument_for(call, model_node, ctx), calls[:backward], ctx):
                continue  # evaluate(eval_model, ...) of a copy loaded from the trained model's state_dict()
            # an unconditional eval() before backward trains in eval mode on purpose (frozen BN), unless a
            # helper switches as a side effect of running the model (an attack crafting each batch)
            unconditional = i < backward and not _conditional(call, node, ctx)
            if unconditional and (evaluation is None or evaluation is call):
                continue
            if not _leaves_loop(call, node, ctx):
                model = ast.unparse(model_node)
                caller = ast.unparse(call.func) + "()"
                if evaluation is None and _hook_leaving_eval(call, ctx) is not None:
                    caller = f"the callbacks' {dispatched_hook(call)}() hook"  # a callback class of the run
                message = self.message.format(model=model) if evaluation is call else (
                    f"{caller} sets {model}.eval() and nothing in this training loop calls .train() "
                    "again; later steps train in eval mode")
                where = _where_train_goes(call, node, ctx)
                if isinstance(where, LastLine) and evaluation is not call:
                    where = call  # an evaluation helper called under an if: train() goes right after it
                helper = helper_end(evaluation, call, where, node, ctx)
                if helper is None:
                    if unconditional:
                        continue
                    yield Hit(where, message)
                    return
                # each helper that leaves the model in eval mode gets its own train() (the loop may call two)
                if helper.lineno not in reported:
                    reported.add(helper.lineno)
                    yield Hit(helper, message + f"; call {model}.train() before {function_of(evaluation, ctx)}() "
                                                "returns")


def _built_in_eval(loop: ast.AST, step_calls: list[ast.Call], ctx: ModuleContext) -> Hit | None:
    """A model a factory returns in eval mode (`model = build_model(cfg)`, whose builder ends in model.eval()),
    trained by this loop with no train() or mode helper in between: reported at the factory's eval() when it is
    in this file, else at the assignment."""
    if any(_restores_train(c, ctx) for c in calls_in_order(loop.body)):
        return None
    for key, assign, switch in built_in_eval(loop, ctx):
        if not any(_runs(c, key) for c in step_calls):
            continue
        between = [c for c in calls_in_order(ctx.scope_of(loop).body) if position(assign) < position(c) < position(loop)]
        if any(is_train_call(c) or mode_helper(c) or is_eval_call(c) or _restores_train(c, ctx) for c in between):
            continue  # switched after it is built (a deliberate eval() for frozen BatchNorm included)
        factory = ast.unparse(assign.value.func) if isinstance(assign.value, ast.Call) else "the factory"
        where = f"line {switch.lineno}" if switch is not None else "in its file"
        return Hit(switch or assign, FACTORY_MESSAGE.format(
            factory=factory, model=key, where=where, loop=loop.lineno))
    return None


def _evaluated_before(loop: ast.AST, loop_calls: list[ast.Call], ctx: ModuleContext):
    """(model, where train() goes) when, in the code before this training loop, a trained model is put in
    eval mode and then run (a probe of its output shape, a baseline evaluation) and the loop trains it
    with no train() in between: an eval() kept for training on purpose (frozen BatchNorm) runs nothing."""
    scope = ctx.scope_of(loop)
    body = scope.body if isinstance(scope, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) else []
    state: dict[str, ast.Call | None] = {}
    probes: dict[str, ast.Call] = {}
    for call in calls_in_order(body):
        if position(call) >= position(loop):
            break
        if is_eval_call(call) and (key := _receiver_key(call)) and _trained_model(call.func.value, ctx):
            state[key], probes[key] = call, None
        elif is_train_call(call) or mode_helper(call) or _restores_train(call, ctx):
            key = _receiver_key(call) if is_train_call(call) else None
            for k in ([key] if key else list(state)):
                state[k] = None
        else:
            for key, switched in state.items():
                if switched is not None and (_runs(call, key) or _hands(call, key)):
                    probes[key] = call
    for key, switched in state.items():
        probe = probes.get(key)
        if switched is None or probe is None or not any(_runs(c, key) or _hands(c, key) for c in loop_calls):
            continue
        top = next(a for a in [probe, *ctx.ancestors(probe)] if ctx.parent(a) is scope or a is scope)
        return key, LastLine(top)
    return None


def _argument_for(call: ast.Call, model: ast.AST, ctx: ModuleContext) -> ast.AST | None:
    """What `call` hands a helper of this file as its parameter `model` (`evaluate(eval_model, ...)`)."""
    if not isinstance(model, ast.Name):
        return None
    for target in own_targets(call, ctx):
        params = [a.arg for a in [*target.args.posonlyargs, *target.args.args]]
        if params[:1] == ["self"] and isinstance(call.func, ast.Attribute):
            params = params[1:]
        if model.id in params and params.index(model.id) < len(call.args):
            return call.args[params.index(model.id)]
        found = next((k.value for k in call.keywords if k.arg == model.id), None)
        if found is not None:
            return found
    return None


def _evaluation_copy(model: ast.AST | None, step_calls: list[ast.Call], ctx: ModuleContext) -> bool:
    """A model built from a class for the evaluation and loaded from another model's state_dict()
    (`eval_model = Yolov4(...)`; `eval_model.load_state_dict(model.state_dict())`), not run in the training
    step: switching it leaves the trained model alone."""
    if not isinstance(model, ast.Name):
        return False
    values = ctx.values_of(model, model)
    if not values or not all(isinstance(v, ast.Call) and (ident(v.func) or "")[:1].isupper() for v in values):
        return False
    scope = ctx.scope_of(model)
    loads = [c for c in ctx.in_scope(scope, (ast.Call,)) if isinstance(c.func, ast.Attribute)
             and c.func.attr == "load_state_dict" and isinstance(c.func.value, ast.Name)
             and c.func.value.id == model.id and c.args]
    copied = any(isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "state_dict"
                 and ast.unparse(a.func.value) != model.id for c in loads for a in ast.walk(c.args[0]))
    return copied and not _runs_in_step(model, step_calls, ctx)


def _runs_in_step(model: ast.AST, step_calls: list[ast.Call], ctx: ModuleContext) -> bool:
    """Whatever its name (G, D, f), the module runs in the training step before backward(), unless it is
    named as a frozen copy (teacher, EMA, target)."""
    key = ast.unparse(model)
    return not FROZEN & set(tokens(ident(model) or "")) and any(_runs(c, key) and (c.args or c.keywords)
                                                                for c in step_calls)


def _hands(call: ast.Call, key: str) -> bool:
    return any(isinstance(a, ast.Name | ast.Attribute) and ast.unparse(a) == key for a in call.args)


def _helper_leaving_eval(call: ast.Call, ctx: ModuleContext, depth: int = 3) -> ast.Call | None:
    """The eval() call of a function of this file (validate(), self._eval_epoch(), or one it calls:
    eval_model() -> self.evaluate() -> model.eval()) that ends in eval mode: its last mode switch is
    .eval() on a trained model."""
    if isinstance(call.func, ast.Attribute) and call.func.attr in {"train", "eval"}:
        return None  # a mode switch, even where a class of this file defines a train() method
    for target in own_targets(call, ctx):
        last = None
        bound = constant_arguments(call, target, ctx)  # `self.net_mode(train=True)`: only that branch runs
        for inner in calls_in_order(target.body):
            if bound and not branch_taken(inner, target, bound, ctx):
                continue
            if is_eval_call(inner):
                last = inner
            elif is_train_call(inner) or mode_helper(inner):
                last = None
            elif depth > 1 and inner is not call:
                last = _helper_leaving_eval(inner, ctx, depth - 1) or (
                    None if _restores_train(inner, ctx) else last)
        if last is not None:
            return last
    return None


def _eval_again(function: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
    """`net.eval()`, the net runs, then `net.eval()` again where nothing runs it any more: the second call
    was meant to put it back in training mode (`if eval_: net.eval()` ... `if eval_: net.eval()`)."""
    if sum(is_eval_call(c) for c in ctx.in_scope(function, (ast.Call,))) < 2:
        return  # most functions switch to eval once or never
    calls = list(calls_in_order(function.body))
    last_eval: dict[str, int] = {}
    for i, call in enumerate(calls):
        key = _receiver_key(call) if is_eval_call(call) or is_train_call(call) else None
        if key is None:
            continue
        if is_train_call(call):
            last_eval.pop(key, None)
            continue
        first = last_eval.get(key)
        last_eval[key] = i
        if first is None or not _trained_model(call.func.value, ctx):
            continue
        ran = any(_runs(c, key) for c in calls[first + 1:i])
        if ran and not any(_runs(c, key) for c in calls[i + 1:]):
            yield Hit(call, f"{key}.eval() again after the evaluation: {key} is already in eval mode, so "
                            f"nothing puts it back in training mode; this was meant to be {key}.train()")


# parameters that say the function runs in the middle of training, every so many steps
STEP_PARAMS = {"step", "steps", "global_step", "train_step", "train_step_id", "iteration", "num_updates",
               "cur_step", "current_step", "update_step"}
EVAL_WORDS = {"evaluate", "eval", "evaluation", "validate", "validation", "test"}


def _periodic_evaluation_left_in_eval(function: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
    """An evaluation function handed the model and the current training step (so it is called every n
    steps from a training loop) whose last switch of that model is eval(): training goes on in eval mode
    after it returns unless every caller restores it; reported at its last statement, where train() goes."""
    params = [a.arg for a in [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]]
    if not (EVAL_WORDS & set(tokens(function.name)) and STEP_PARAMS & set(params)):
        return
    last: dict[str, ast.Call] = {}
    for call in calls_in_order(function.body):
        if is_eval_call(call) or is_train_call(call):
            key = _receiver_key(call)
            if key in params:
                last[key] = call
        elif mode_helper(call):
            return
    if last and _callers_restore(function, ctx):
        return
    for key, call in last.items():
        if is_eval_call(call) and _trained_model(call.func.value, ctx):
            yield Hit(function.body[-1], f"{function.name}() takes the training step and leaves {key} in eval "
                                         f"mode: the training after it runs without dropout and with frozen "
                                         f"BatchNorm; call {key}.train() before returning")


def _callers_restore(function: ast.AST, ctx: ModuleContext) -> bool:
    """Every call of `function` in this file (at least one) is followed by a restore of training mode before
    the next training: in the loop around it (`for epoch: train(...)` whose train() calls model.train() at
    its top, run again after validate()), or after it in its scope when no loop encloses it."""
    calls = [c for c in calls_by_ident(ctx).get(function.name, ()) if ctx.scope_of(c) is not function
             and isinstance(c.func, ast.Name | ast.Attribute)]
    if not calls:
        return False
    for call in calls:
        scope = ctx.scope_of(call)
        loop = None
        for a in ctx.ancestors(call):
            if a is scope:
                break
            if isinstance(a, LOOPS):
                loop = a  # the innermost loop around the call, inside the caller
                break
        body = loop.body if loop is not None else getattr(scope, "body", [])
        around = [c for c in calls_in_order(body) if c is not call]
        if loop is None:
            around = [c for c in around if position(c) > position(call)]
        if not any(_restores_train(c, ctx) for c in around):
            return False
    return True


def _where_train_goes(call: ast.Call, loop: ast.AST, ctx: ModuleContext) -> ast.AST:
    """The model's train() sits right before the loop (or before the outer loop this one opens): it was
    meant to be the first statement of each iteration, reported there. Otherwise a periodic evaluation
    (under an if) is reported at the end of its block, right after which train() goes (the block may log,
    save and stop early after the evaluation; the caller reports an evaluation helper called there at its
    call instead), and an eval() on every iteration at the call."""
    if not loop.body:
        return call
    key = _receiver_key(call) if is_eval_call(call) else None
    if key is None:  # a helper leaves the model in eval mode: the model it is handed
        models = [a for a in call.args if isinstance(a, ast.Name | ast.Attribute)]
        key = next((ast.unparse(a) for a in models if _trained_model(a, ctx)), None)
    if key is not None and _trains_just_before(loop, key, ctx):
        # after a leading `if stop: break`: an iteration that leaves trains nothing
        return next((s for s in loop.body if not _exit_guard(s)), loop.body[0])
    if _conditional(call, loop, ctx):
        block = next(a for a in _between(call, loop, ctx) if isinstance(a, ast.If))
        return LastLine(block)
    return call


def _exit_guard(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.If) and not stmt.orelse and all(
        isinstance(s, ast.Break | ast.Continue | ast.Return) for s in stmt.body)


def _trains_just_before(loop: ast.AST, key: str, ctx: ModuleContext) -> bool:
    """`model.train()` right before the loop, or before the outer loop it opens: moved into the loop, it
    runs on every iteration."""
    for _ in range(2):
        parent = ctx.parent(loop)
        block = next((getattr(parent, f) for f in ("body", "orelse", "finalbody")
                      if isinstance(getattr(parent, f, None), list) and loop in getattr(parent, f)), [])
        before = block[max(0, block.index(loop) - 1):block.index(loop)] if loop in block else []
        if any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and is_train_call(s.value)
               and _receiver_key(s.value) == key for s in before):
            return True
        if not (isinstance(parent, LOOPS) and block and block[0] is loop):
            return False
        loop = parent
    return False


def _receiver_key(call: ast.Call) -> str | None:
    value = call.func.value if isinstance(call.func, ast.Attribute) else None
    return ast.unparse(value) if isinstance(value, ast.Name | ast.Attribute) else None


def _runs(call: ast.Call, key: str) -> bool:
    func = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr == "forward" else call.func
    return isinstance(func, ast.Name | ast.Attribute) and ast.unparse(func) == key


def _trained_model(receiver: ast.AST, ctx: ModuleContext) -> bool:
    """Named like a trained model, or holding one whatever its name (`score = Net(...)`, `.parameters()`
    handed to the optimiser), unless named as a frozen copy (teacher, EMA, target)."""
    name = ident(receiver) or ""
    if name == "self":
        return True
    if FROZEN & set(tokens(name)):
        return False
    return bool(TRAINED.search(name.lower())) or model_like(receiver, ctx)


def _foreign_leaving_eval(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The model handed to a function of another file of the run whose last switch is eval()
    (`utils.validate(model, val_loader)`), by the project facts."""
    models = handed_models(call, ctx)  # first: asking the project about every call costs second passes
    return models[0] if models and callee_mode(call, ctx) == "eval" else None


def _hook_leaving_eval(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """`self._cb("on_epoch_end")` (or `cb.on_epoch_end(self)`) when a callback class of the run leaves the model
    of the trainer it is handed in eval mode in that hook (`learn.model.eval()`): the trainer's `self.model`."""
    hook = hook_mode(call, ctx)
    return hook_model_node(call, hook[1]) if hook is not None and hook[0] == "eval" else None


def _restores_train(call: ast.Call, ctx: ModuleContext) -> bool:
    """`.train()`, a mode helper, or a call to a function/method of this module that calls .train(), or to
    a function of another file of the run that leaves the model in training mode (train_one_epoch())."""
    if is_train_call(call) or mode_helper(call):
        return True
    if isinstance(call.func, ast.Attribute) and call.func.attr in {"train", "eval"}:
        return False  # net.train(False): a mode switch, not a call of a train() method of this file
    if handed_models(call, ctx) and callee_mode(call, ctx) in {"train", "set"}:
        return True
    hook = hook_mode(call, ctx)  # `self._cb("on_epoch_begin")`: a callback's hook of the run calls train()
    if hook is not None and hook[0] in {"train", "set"}:
        return True
    for target in own_targets(call, ctx):
        bound = constant_arguments(call, target, ctx)  # `self.net_mode(train=False)` does not restore
        if any(is_train_call(c) and (not bound or branch_taken(c, target, bound, ctx))
               for c in calls_in_order(target.body)):
            return True
    return False


def _conditional(call: ast.AST, loop: ast.AST, ctx: ModuleContext) -> bool:
    return any(isinstance(a, ast.If) for a in _between(call, loop, ctx))


def _between(node: ast.AST, loop: ast.AST, ctx: ModuleContext) -> Iterator[ast.AST]:
    for anc in ctx.ancestors(node):
        if anc is loop:
            return
        yield anc


def _leaves_loop(call: ast.AST, loop: ast.AST, ctx: ModuleContext) -> bool:
    """A break/return/raise after the eval() (final evaluation), or an `if i == n - 1:` guard."""
    node = call
    for parent in [*_between(call, loop, ctx), loop]:
        if isinstance(parent, ast.If) and _last_iteration(parent.test) and node in parent.body:
            return True
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            # only an unconditional exit in the same block: `if stop: break` still lets training go on
            if isinstance(block, list) and node in block and any(
                    isinstance(s, ast.Break | ast.Return | ast.Raise) for s in block[block.index(node) + 1:]):
                return True
        node = parent
    return False


def _last_iteration(test: ast.AST) -> bool:
    if not (isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.Eq)):
        return False
    return any(isinstance(s, ast.BinOp) and isinstance(s.op, ast.Sub) for s in [test.left, *test.comparators])
