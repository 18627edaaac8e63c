import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.evaluation import (
    bound_names,
    ident,
    model_like,
    own_nodes,
    scope_calls,
    tokens,
    uses_torch,
)
from ..helpers.modes import (
    EVAL,
    SET,
    TRAIN,
    direct_switch,
    key_of,
    mode_before,
    position,
    related,
    switches,
)
from ..helpers.modes_anchor import anchor, anchor_after_setup
from ..helpers.modes_brain import brain_switched
from ..helpers.modes_builders import builders_evaluated_elsewhere
from ..helpers.modes_callers_elsewhere import callers_elsewhere_eval
from ..helpers.modes_copies import unswitched_copies_evaluated
from ..helpers.modes_evidence import (
    collected,
    drives_itself,
    enclosing_loops,
    eval_data,
    file_trains,
    framework_managed,
    mc_dropout,
    named_for_evaluation,
    region_trains,
    scope_trains,
    trains,
    unit_test,
)
from ..helpers.modes_factories import built_in_eval
from ..helpers.modes_generation import generates_for_user
from ..helpers.modes_handed_models import calls_by_ident
from ..helpers.modes_handoff import handed_to_evaluation
from ..helpers.modes_indirect import running_scopes, runs_model
from ..helpers.modes_library import scores_callers_model
from ..helpers.modes_loaded import loaded_and_run_in_train_mode
from ..helpers.modes_loading_methods import loaded_before
from ..helpers.modes_mixed_callers import called_after_train, handed_to_another_object
from ..helpers.modes_models import (
    SAMPLERS,
    bare_switch,
    forward_receiver,
    frozen,
    handed_in,
    mode_given,
    ready_from_loader,
    unpacked_ready,
    untrained_here,
)
from ..helpers.modes_nograd import disables_grad, grad_off_at
from ..helpers.modes_outside import set_outside, switching_scopes
from ..helpers.modes_phase import phase_gated_train_switches
from ..helpers.modes_shipped import shipped_weights_without_eval
from ..helpers.modes_siblings import built_after, switched_apart
from ..helpers.modes_train_hooks import train_hook_forwards
from ..helpers.modes_training_pass import in_trainer, run_by_trainers, training_pass
from ..helpers.modes_unswitched import unswitched_models
from ..helpers.private_uses import uncalled_private_method
from ..rule import Hit, Rule

METRIC = re.compile(r"accura|^acc$|f1|precision|recall|auc|metric|score|perplex|bleu|rouge|iou|dice|confusion"
                    r"|^item$|argmax|^eq$|loss|criterion")
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


class EvaluationWithoutEvalMode(Rule):
    """What it does: follows the train/eval mode of each model along a function or script and flags one
    that evaluates in training mode. A model is what is built from a model class or named like one, but
    also what has .parameters() called on it, comes from a model builder (get_model()), or is moved to a
    device and called. Evaluation: its input is val/test data, or it decodes with .generate() or a diffusion
    sampling loop (p_sample_loop, ddim_sample), or it runs
    under no_grad in code named for evaluation or inference that does not train, or in an evaluation
    function (also one whose callers run it with autograd off), or (in a file that never trains) its gathered
    outputs come from a loop, no_grad or prediction/deployment code, or it samples iteratively under no_grad
    (its output fed back as its next input), or it is the pretrained network of a metric class (Inception for
    FID) run by methods whose callers disable autograd. Two models the file switches to train() one by one
    (`model.train(); predictor.train()`), or one to train() and the other to eval() (a student and its teacher),
    are separate: an eval() of one leaves the other in training mode. Training mode: never switched with .eval() (nor by an enclosing function,
    a caller in this file, or a loader of this file or of the run that switches it), or .train() just
    before. Also flagged where the model is set up: a model loaded in an evaluation file that never calls
    .eval(); a model handed to another file's evaluate(model, loader) that never switches a mode, or, with
    autograd off here, to one named for inference (`sliding_window_inference(image, roi, 4, net)`); a model
    class that loads its own shipped weights in __init__ without self.eval(); a step or epoch function shared
    by the training and validation phases that calls model.train() whatever the phase while only the update
    is under a phase test (`if phase == "train":`), reported at that train(). A model run through a helper of
    this file (`self._forward_pass(x)`, `run_batch(net, b)`, one of `self.q_nets`) counts as run where the
    helper is called; the methods of an nn.Module that trains or calibrates itself are driver code, checked
    like a trainer's. Also models no code of the file ever switches: one loaded with trained weights
    (load_state_dict, load_checkpoint(model, path)) and run in a file that trains nothing (a demo; also a
    script's global loaded at module level and handed down to this file's function that runs it); one handed
    to a class that labels training batches with it under no_grad (pseudo-labels, distillation targets); a
    teacher or frozen feature extractor built or loaded by training code and run under no_grad in its step; a
    model class's own public inference method (predict(), encode()) that runs the whole model on inputs it
    prepares; a subclass's public method evaluating through a method it inherits from another file's class
    that loops the model over a loader (an active-learning strategy's select()); a training-phase hook (Lightning's
    on_train_epoch_end/on_train_batch_end of a Callback or LightningModule, a transformers TrainerCallback's
    on_step_end/on_epoch_end) that runs the module, itself or through a method of its class, under no_grad to
    log samples without eval(); an averaging wrapper of the run (EMA, SWA) whose deep copy of the model no
    method switches, its copy handed to a helper that runs it with autograd off without switching it
    (`validate(model_ema.module, loader)` after only the live model's eval()); a builder that loads trained
    weights into the model it returns without eval(), whose model a prediction file of the run (no backward,
    autograd off) runs without switching it, reported after the loading. A from_pretrained model starts in eval mode until this scope (or, for
    self.model, its class) calls train(); another model's eval() says nothing of a model built afterwards
    from a call not handed that model (a best checkpoint reloaded into a fresh instance). The finding goes where the fix
    goes: right after the model is set up in the scope (before a device wrapper), at the top of an evaluating
    function handed the model (past its docstring, argument checks and log lines), after the module-level
    setup of a global model. Quiet for Lightning/HF hooks,
    a model's own methods, unit tests, export code, frozen copies (teacher, EMA, target), models without
    dropout/BatchNorm (a one-layer LSTM's dropout= is none), from_pretrained models, wrapper classes built
    from weights, models handed in by a caller to inference helpers, a library class handed its model that
    scores the inputs of each call (an OOD detector's predict(x): the caller owns the mode), Monte Carlo
    dropout, the methods of a subclass of another module's trainer and the helpers only they call (the base's
    loop sets the phase's mode: on-policy generation, reference log-probs; a pass over validation data is
    still checked), passes of the training step (`enable_grad() if use_grad else no_grad()`, log-probs and
    entropies returned on the graph), test_*() functions of pytest modules, the methods of a SpeechBrain
    `Brain` subclass (also through a base of the file or of another file of the run) running what
    self.modules / self.hparams / self.mods hold (Brain.fit() and evaluate() switch those modules before calling
    compute_forward(), evaluate_batch(), on_stage_end(), and leave them in eval mode for a save_results() after
    evaluate()), a top-level function this file never uses whose every use in the run's other files is a call
    handing it models in eval mode (`model.eval()` before `im_detect_bbox_aug(model, images, device)`, or a
    `self.model` its class puts in eval mode in __init__ and never back), and a private method that no file of
    the run names (`_inference` of a trainer that never calls it; a finding placed where the class loads trained
    weights to predict stays). The finding is where the fix goes.

    Why is this bad: dropout stays active and BatchNorm normalises with batch statistics and
    updates its running averages with evaluation data, so metrics are noisy and pessimistic and
    the model itself drifts. torch.no_grad()/inference_mode() do not switch the mode.
    """

    code = "MLD020"
    name = "evaluation-without-eval-mode"
    category = "modes"
    severity = "warning"  # the mode may be set by a caller in another file, or the model has no dropout/BN
    message = "the model evaluates in training mode: model.eval() is never called before it"
    why = "Dropout and BatchNorm stay in training mode: metrics are noisy and BN running stats absorb evaluation data."
    fix = "Call model.eval() before evaluating (no_grad does not do it) and model.train() before training resumes."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (ast.Module,)
    requires_text = ("eval", "valid", "val_", "_val", "test", "loader", "Loader", "dev", "predict", "infer",
                     "generate", "no_grad", "inference_mode", "load_state_dict", "extract", "feature", "embed",
                     "checkpoint", "ckpt", "load_weights",  # load_checkpoint(model, path): a model loaded to predict
                     "pretrained=True", "weights=")  # resnet50(pretrained=True): built with trained weights
    BAD = (
        "import torch\n"
        "def evaluate(model, val_loader):\n"
        "    correct = 0\n"
        "    with torch.no_grad():\n"
        "        for x, y in val_loader:\n"
        "            correct += (model(x).argmax(1) == y).sum().item()\n"
        "    return correct\n"
    )
    GOOD = (
        "import torch\n"
        "def evaluate(model, val_loader):\n"
        "    model.eval()\n"
        "    correct = 0\n"
        "    with torch.no_grad():\n"
        "        for x, y in val_loader:\n"
        "            correct += (model(x).argmax(1) == y).sum().item()\n"
        "    model.train()\n"
        "    return correct\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not uses_torch(ctx):
            return
        hits: dict[int, Hit] = {}
        # the scopes that run a model, in one pass over the calls (a call without arguments runs none): most
        # scopes run none
        running = running_scopes(ctx)
        for scope in [ctx.tree, *(f for kind in FUNCS for f in ctx.by_type.get(kind, ()))]:
            if scope in running and not framework_managed(scope, ctx) and not run_by_trainers(
                    scope, ctx) and not handed_to_another_object(scope, ctx):
                found = list(_scope_hits(scope, ctx))
                if found and uncalled_private_method(scope, ctx):  # asked last, of the few scopes with a finding
                    # a method no file of the run calls never evaluates; a finding placed where its class loads
                    # trained weights to predict (`self.model = self._load(weights)` in __init__) stands on that
                    found = [h for h in found if not scope.lineno <= h.node.lineno <= scope.end_lineno]
                for hit in found:
                    hits.setdefault(hit.node.lineno, hit)
        loaded = list(_loaded_for_evaluation(ctx))
        for hit in loaded:
            hits.setdefault(hit.node.lineno, hit)
        if not loaded and not hits:
            for call, key, where in loaded_and_run_in_train_mode(ctx):
                run = "handed to this file's functions and run" if where is not None else "run here"
                where = where or anchor_after_setup(call, key, ctx.scope_of(call), ctx)
                hits.setdefault(where.lineno, Hit(where, f"{key} is loaded with trained weights and {run} in "
                                                         f"training mode: nothing in this file calls {key}.eval(); "
                                                         f"call it before predicting"))
        for where, message in unswitched_models(ctx):
            hits.setdefault(where.lineno, Hit(where, message))
        for load in shipped_weights_without_eval(ctx):
            hits.setdefault(load.lineno, Hit(load, "this model loads its own trained weights when built and stays in "
                                                   "training mode: every instance predicts with dropout and batch "
                                                   "statistics; call self.eval() after loading"))
        for where, key, call in handed_to_evaluation(ctx):
            hits.setdefault(where.lineno, Hit(where, f"{key} is handed to {ast.unparse(call.func)}() in training mode: "
                                                    f"that function never calls eval(); call {key}.eval() first"))
        for where, key, hook in train_hook_forwards(ctx):
            hits.setdefault(where.lineno, Hit(where, f"{key} runs in training mode in {hook}(): the trainer calls "
                                                    f"this training-phase hook with the model training, so these "
                                                    f"outputs use dropout and batch statistics; call {key}.eval() "
                                                    f"before (and {key}.train() after)"))
        for where, key, builder in builders_evaluated_elsewhere(ctx):
            hits.setdefault(where.lineno, Hit(where, f"{builder}() loads trained weights into {key} and returns it in "
                                                     f"training mode, and a prediction script of this project runs "
                                                     f"it without eval(): call {key}.eval() after loading"))
        for call, key, wrapper in unswitched_copies_evaluated(ctx):
            hits.setdefault(call.lineno, Hit(call, f"{key} is evaluated in training mode: {wrapper} deep-copies the "
                                                   f"model with its training mode and never calls eval() on the "
                                                   f"copy; call eval() on it after the copy (or {key}.eval() here)"))
        for where, key, evaluation in called_after_train(ctx):
            hits.setdefault(where.lineno, Hit(where, f"{evaluation}() runs {key} in training mode here: {key}.train() "
                                                    f"comes before this call and no eval() (another call of "
                                                    f"{evaluation}() follows {key}.eval()); call {key}.eval() "
                                                    f"first and {key}.train() after"))
        for switch, key in phase_gated_train_switches(ctx):
            hits.setdefault(switch.lineno, Hit(switch, f"{key}.train() runs for every phase, but only the training "
                                                       f"phase updates: the other phase (validation) runs {key} in "
                                                       f"training mode; call {key}.train(is_training) or {key}.eval() "
                                                       f"for that phase"))
        for stmt in ctx.by_type.get(ast.Expr, ()):
            key = bare_switch(stmt, "eval", ctx)
            if key:
                hits[stmt.lineno] = Hit(stmt, f"{key}.eval without parentheses does nothing: {key} stays in "
                                              f"training mode; write {key}.eval()")
        yield from hits.values()


def _scope_hits(scope: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
    reported: set[str] = set()
    for call in scope_calls(scope, ctx):
        receiver = runs_model(call, ctx)
        key = key_of(receiver) if receiver is not None else None
        if key is None or key in reported or (mode_given(call, receiver, key, ctx) and not _trained_pretrained(
                call, receiver, key, scope, ctx)):
            continue
        if training_pass(scope, ctx):
            break  # log-probs for a policy-gradient loss: the training step's mode
        if in_trainer(scope, ctx) and not eval_data(call, scope, ctx):
            continue  # the base trainer's loop set the phase's mode; a pass over validation data is checked
        if untrained_here(receiver, key, scope, ctx) or scores_callers_model(call, key, scope, ctx) \
                or any(k == key for k, _, _ in built_in_eval(call, ctx)) or brain_switched(scope, key, receiver, ctx):
            continue  # (a factory that returns the model in eval mode, or is asked to: `train=False`; the modules
            # a SpeechBrain Brain switches before calling its subclass's methods)
        switch = mode_before(call, key, scope, ctx)
        if switch is not None and switch.mode in (EVAL, SET):
            continue
        strong = eval_data(call, scope, ctx) or (not region_trains(call, scope, ctx) and (
            _generates(call) or (grad_off_at(call, scope, ctx) and (
                named_for_evaluation(scope, ctx, file_too=True) or _samples(call, receiver, scope, ctx)))))
        if switch is None and not strong and not isinstance(ctx.parent(call), ast.Expr) and loaded_before(
                call, key, scope, ctx) and not region_trains(call, scope, ctx):
            strong = True  # trained weights loaded here (self.load_model(path)), then the model runs untrained
        if switch is not None:  # train() before the forward
            strong = strong or _eval_undone_under_no_grad(switch, call, key, scope, ctx)
            if not strong or mc_dropout(scope, ctx):
                continue
            if switch.direct and not _trains_between(switch.node, call, scope, ctx):
                reported.add(key)
                yield Hit(switch.node, f"{key}.train() here, then {key} evaluates: dropout and BatchNorm run in "
                                       f"training mode; call {key}.eval() instead")
                continue
        elif any(s.mode == EVAL and ((s.direct and not switched_apart(key, s.key, ctx) and not built_after(
                key, s.node, scope, ctx, s.key)) or related(s.key, key))
                 for s in switches(scope, ctx) if position(s.node) < position(call)):
            continue  # another name may hold the same model
        elif set_outside(scope, key, ctx) or not (strong or _weak(call, scope, ctx)
                                                  or generates_for_user(call, key, scope, ctx)) \
                or callers_elsewhere_eval(scope, key, ctx):  # asked last: the other files' callers
            continue
        reported.add(key)
        if _runner(receiver, ctx):  # evaluate_model(model, data): a function of this file that runs the model
            message = (f"{key}() runs the model in training mode here: no .eval() is called on the model before "
                       f"this evaluation; call model.eval() first (or inside {key})")
        else:
            message = f"{key} evaluates in training mode: {key}.eval() is never called before this evaluation"
        where = anchor(call, key, scope, ctx)
        if switch is not None and switch.mode == TRAIN and position(where) < position(switch.node):
            where = _after_train_switch(call, switch.node, scope, ctx)  # an eval() above the train() is undone
        yield Hit(where, message)


def _after_train_switch(call: ast.Call, switch: ast.AST, scope: ast.AST, ctx: ModuleContext) -> ast.AST:
    """Where eval() goes when a train() (`train_epoch(model, ...)`) runs between the model's set-up and this
    evaluation: the outermost loop around the call that starts after that train(), else the call's statement."""
    loops = [n for n in enclosing_loops(call, scope, ctx)
             if isinstance(n, ast.For | ast.AsyncFor | ast.While) and position(n) > position(switch)]
    return loops[-1] if loops else next((a for a in ctx.ancestors(call) if isinstance(a, ast.stmt)), call)


def _trained_pretrained(call: ast.Call, receiver: ast.AST, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """`model = Auto...from_pretrained(name)` starts in eval mode, but `model.train()` earlier in this scope (an
    accelerate / no_trainer epoch loop), or for `self.model` in another method of the class (train_epoch()), put
    it in training mode: a later evaluation needs eval() again."""
    switch = mode_before(call, key, scope, ctx)
    if switch is None and key.startswith("self.") and isinstance(scope, FUNCS):
        cls = ctx.enclosing_class(scope)  # `self.model.train()` in the class's train_epoch(), evaluate() apart
        if cls is None or not any(s.mode == TRAIN and s.direct and s.key == key for m in cls.body
                                  if isinstance(m, FUNCS) and m is not scope for s in switches(m, ctx)):
            return False
    elif switch is None or switch.mode != TRAIN:  # its own train(), or a helper's (train_epoch(model, ...))
        return False
    value = ctx.resolve(receiver)
    return ready_from_loader(receiver, ctx) or unpacked_ready(receiver, ctx) or isinstance(value, ast.Call) and (
        ctx.method_name(value) == "from_pretrained" or "pretrained" in (ident(value.func) or "").lower())


def _runner(receiver: ast.AST, ctx: ModuleContext) -> bool:
    """The receiver names a function or method of this file (which runs a model), not a model: the message must not
    tell the user to call .eval() on a function."""
    if isinstance(receiver, ast.Name):  # a def of this file, or a name no scope binds (imported, `from x import *`)
        return receiver.id in ctx.functions or receiver.id not in bound_names(ctx)
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
        return any(isinstance(item, FUNCS) and item.name == receiver.attr
                   for cls in ctx.classes.values() for item in cls.body)
    return False


def _eval_undone_under_no_grad(switch, call: ast.Call, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """`net.eval()`, then under no_grad `net.train()` right before `out = net(x)`: the author meant to evaluate
    (eval() first, autograd off, the output kept), whatever the data or the function is called. A forward
    for its side effects (BatchNorm statistics recomputed under no_grad) discards its output."""
    if isinstance(ctx.parent(call), ast.Expr) or not (
            grad_off_at(call, scope, ctx) and grad_off_at(switch.node, scope, ctx)):
        return False
    return any(s.mode == EVAL and s.key == key and position(s.node) < position(switch.node)
               for s in switches(scope, ctx))


def _in_driver(scope: ast.AST, ctx: ModuleContext) -> bool:
    """A method of a class that trains or calibrates itself: the models it holds are its own to switch."""
    cls = ctx.enclosing_class(scope) if isinstance(scope, FUNCS) else None
    return cls is not None and drives_itself(cls, ctx)


def _samples(call: ast.Call, receiver: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    """Iterative sampling under no_grad in a file that trains nothing and switches no mode: the model's
    output is fed back as its next input (`x = step(x, model(x, t))` over the timesteps of a diffusion
    sampler, a decoding loop), by a model set up here or handed in by this file's own code that loaded it."""
    if file_trains(ctx) or switching_scopes(ctx) or not _feeds_back(call, scope, ctx):
        return False
    if not handed_in(receiver, scope, ctx):
        return True
    callers = calls_by_ident(ctx).get(getattr(scope, "name", ""), ())
    return bool(callers) and all(any(isinstance(a, ast.Name) and any(
        isinstance(v, ast.Call) for v in ctx.values_of(a, a)) for a in c.args) for c in callers)


def _feeds_back(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """In a loop around the call, a name the call reads is reassigned from what its output becomes."""
    parent = ctx.parent(call)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    read = {n.id for a in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(a) if isinstance(n, ast.Name)}
    for loop in enclosing_loops(call, scope, ctx):
        if not isinstance(loop, ast.For | ast.While):
            continue
        derived = {parent.targets[0].id}
        assigns = [n for n in ast.walk(loop) if isinstance(n, ast.Assign) and n is not parent]
        for _ in range(2):  # x_mean from the output, then x from x_mean, whatever order the walk meets them
            for node in assigns:
                if any(isinstance(n, ast.Name) and n.id in derived for n in ast.walk(node.value)):
                    derived |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        if derived & read:
            return True
    return False


def _generates(call: ast.Call) -> bool:
    # decoding and a diffusion sampling loop are inference
    return isinstance(call.func, ast.Attribute) and (call.func.attr == "generate" or call.func.attr in SAMPLERS)


def _trains_between(first: ast.AST, last: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    return trains((c for c in scope_calls(scope, ctx) if position(first) < position(c) < position(last)), ctx)


def _weak(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """An evaluation function that does not train (a loop, no_grad or metrics around the call, or callers
    that run it with autograd off), or, in a
    file that never trains, a call whose outputs are gathered (features, activations, predictions) over a
    loop's batches, under no_grad, or in a function named for inference."""
    if named_for_evaluation(scope, ctx, file_too=False) and not scope_trains(scope, ctx) and (
            enclosing_loops(call, scope, ctx) or grad_off_at(call, scope, ctx)
            or any(_is_metric(n, ctx) for n in own_nodes(scope, ctx)) or _callers_grad_off(scope, ctx, 3)):
        return True
    if _measures(call, scope, ctx):
        return True
    if grad_off_at(call, scope, ctx) and _over_batches(call, scope, ctx) and not region_trains(call, scope, ctx) and (
            not isinstance(ctx.parent(call), ast.Expr)) and (_in_driver(scope, ctx) or not handed_in(
                runs_model(call, ctx), scope, ctx)):
        return True  # a pass over a loader's batches with autograd off, its outputs kept: an evaluation or
        # calibration pass whatever the function is named (a forward for its side effects is not one)
    if file_trains(ctx) or not collected(call, scope, ctx):
        return False
    if _over_batches(call, scope, ctx):
        return True
    # inference in a file that never trains, under no_grad or in code named for it, by a model built or
    # loaded here (one handed in is in the mode its caller chose)
    receiver = forward_receiver(call, ctx)
    return (not isinstance(ctx.parent(call), ast.Expr) and receiver is not None
            and (grad_off_at(call, scope, ctx) or _named_for_inference(scope, ctx))
            and not handed_in(receiver, scope, ctx))


INFERENCE = {"predict", "prediction", "predictor", "inference", "infer", "inferencer", "deploy", "deployment",
             "serve", "serving"}


def _named_for_inference(scope: ast.AST, ctx: ModuleContext) -> bool:
    """The function or its class is named for prediction or deployment (`_inference`, `Predictor.__call__`)."""
    cls = ctx.enclosing_class(scope) if not isinstance(scope, ast.Module) else None
    names = [getattr(scope, "name", ""), cls.name if cls is not None else ""]
    return any(INFERENCE & set(tokens(n)) for n in names if n)


def _over_batches(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The call consumes the items of a `for` loop around it (`for x, _ in loader: model(x)`)."""
    used = {n.id for a in [*call.args, *(k.value for k in call.keywords)] for n in ast.walk(a)
            if isinstance(n, ast.Name)}
    for loop in enclosing_loops(call, scope, ctx):
        if isinstance(loop, ast.For | ast.AsyncFor) and used & {
                n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}:
            return True
    return False


def _is_metric(node: ast.AST, ctx: ModuleContext) -> bool:
    if isinstance(node, ast.Compare) and any(isinstance(op, ast.Eq) for op in node.ops):
        return True
    if isinstance(node, ast.Call):
        name = (ctx.call_name(node) or ident(node.func) or "").rsplit(".", 1)[-1].lower()
        return bool(METRIC.search(name))
    return isinstance(node, ast.AugAssign)


def _measures(call: ast.Call, scope: ast.AST, ctx: ModuleContext) -> bool:
    """`self.inception(images)` in a helper method of a plain class (no base: no model, no framework's) that
    trains nothing, whose callers all run with autograd off (a FID or perceptual metric around a pretrained
    network)."""
    receiver = forward_receiver(call, ctx)
    key = key_of(receiver) if receiver is not None else None
    cls = ctx.enclosing_class(scope) if isinstance(scope, FUNCS) else None
    if key is None or not key.startswith("self.") or cls is None or any(
            (ident(b) or "") not in {"object", "ABC"} for b in cls.bases):
        return False  # a model, or a framework's class (speechbrain's Brain) that may set the modes itself
    return not any(scope_trains(m, ctx) for m in cls.body if isinstance(m, FUNCS)) and _callers_grad_off(
        scope, ctx, 3)


def _callers_grad_off(func: ast.AST, ctx: ModuleContext, depth: int) -> bool:
    """Every call of `func` in this file (at least one) runs with autograd off, or sits in a function whose
    own callers do (`fid_score()` under inference_mode -> `self._features(x)` runs the feature network)."""
    if not isinstance(func, FUNCS):
        return False
    calls = [c for c in calls_by_ident(ctx).get(func.name, ()) if ctx.scope_of(c) is not func]
    return bool(calls) and all(
        grad_off_at(c, ctx.scope_of(c), ctx) or (depth > 1 and _callers_grad_off(ctx.scope_of(c), ctx, depth - 1))
        for c in calls)


def _loaded_for_evaluation(ctx: ModuleContext) -> Iterator[Hit]:
    """An evaluation file (an evaluation function under no_grad, nothing trained) that loads weights into a
    model and never switches any mode: the model evaluates in the training mode it was built in."""
    if not ctx.has_text("load_state_dict"):
        return  # a name the code never uses: no call loads weights
    calls = ctx.by_type.get(ast.Call, ())
    loads = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "load_state_dict"]
    # the cheapest tests first: most files load no weights, or have no evaluation function under no_grad
    if not loads or file_trains(ctx) or not any(
            named_for_evaluation(f, ctx, file_too=False) and disables_grad(f, ctx) and not unit_test(f, ctx)
            for kind in FUNCS for f in ctx.by_type.get(kind, ())):
        return  # a unit test's test_*() is no evaluation
    if any(direct_switch(c) for c in calls) or any(
            n.attr == "training" and isinstance(n.ctx, ast.Store) for n in ctx.by_type.get(ast.Attribute, ())):
        return
    seen = set()
    for call in loads:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "load_state_dict" and model_like(func.value, ctx) and (
                not unit_test(ctx.scope_of(call), ctx)):  # a test loading weights checks the keys or parity
            key = key_of(func.value)
            if key and key not in seen and not frozen(key):
                seen.add(key)
                yield Hit(call, f"{key} is loaded here for evaluation and never put in eval mode "
                                f"(no .eval() in this file): call {key}.eval() after loading")


