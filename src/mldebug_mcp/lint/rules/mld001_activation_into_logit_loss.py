import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.kinds import (
    ACTIVATIONS,
    FACTORY,
    LOG_SOFTMAX,
    PROBABILITIES,
    RELU,
    SIGMOID,
    Traced,
    each_returned_model,
    project_facts,
    traced_factory,
    traced_method,
    traced_return,
)
from ..helpers.losses import (
    LOGIT_LOSSES,
    LOGIT_TEXTS,
    input_kinds,
    logit_loss,
    loss_inputs,
    loss_source,
)
from ..helpers.losses_branches import (
    branches_on_class_count,
    by_class_count,
    class_count_kinds,
)
from ..helpers.losses_defaults import paired_defaults
from ..helpers.losses_elsewhere import (
    KEYWORD,
    callee_name,
    logits_keyword,
)
from ..helpers.losses_gated import gate, gated_activations, gated_logit_losses
from ..helpers.losses_logged import (
    class_activation_layers,
    logged_probabilities,
    model_activations,
)
from ..helpers.losses_models import inference_forward_call
from ..helpers.losses_sites import (
    helper_call,
    kept_by_other_method,
    loss_handed_with_model,
    silenced,
)
from ..helpers.losses_tabled import tabled_losses
from ..helpers.losses_taken import element_taken, model_taken, registered_models, taken
from ..rule import Hit, Rule

PREDICTION_MESSAGE = ("{call} returns forward's {kind} output (line {line}) to {loss}, which expects raw logits: "
                      "compute the logits here and keep the {kind} in forward for inference")
DEFAULTS_MESSAGE = ("{activation} default for the output activation, and {loss} the default loss of the same "
                    "signature, which expects raw logits: the default network normalises twice")
KEYWORD_MESSAGE = "{activation} output passed as logits= to {loss}, which expects raw logits"
LOG_SOFTMAX_MESSAGE = ("{activation} output passed to {loss}, which applies log_softmax itself: the loss is "
                       "unchanged (log_softmax is idempotent) but the step is redundant and the outputs are not "
                       "logits; return the raw logits, or pair log_softmax with NLLLoss")
LOGGED_MESSAGE = ("log of softmax probabilities passed to {loss}, which applies log_softmax itself: on "
                  "log-probabilities that changes nothing until a probability underflows to 0, then the loss is inf "
                  "and the step NaN; hand the loss the logits, or log_softmax's output to nll_loss")
# Neither of the two above changes a number the loss returns (log_softmax is idempotent, and log(softmax) is
# log_softmax while no probability underflows; tests/lint/test_rule_claims.py runs both): the first is hygiene,
# the second a numerical hazard, so their findings are milder than the rule's silent wrong results.
MILDER = {LOG_SOFTMAX_MESSAGE: "info", LOGGED_MESSAGE: "warning"}
LAYER_MESSAGE = "{activation} output activation of {model}'s layer, whose output goes to {loss}, which expects raw logits"
RELU_MESSAGE = "ReLU output passed to {loss}: the logits are clipped at zero, so no class can be pushed below 0"
# the rule runs in files with a loss (the loss side) or an activation (a model another file's loss takes)
HINTS = ("oftmax", "igmoid", "relu", "ReLU", "expit", "logits=")
SKORCH_TEXT = ("NeuralNet", "skada")
# a loss chosen in another file: kept by a base class in self.<attr> (`self.criterion(out, y)`), built by a
# builder (`criterion = get_loss("bce")`), a loss class built on a logit loss
INHERITED = ("criterion", "loss")


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _template(message: str, kind: str, loss: str) -> str:
    """The message for an activation: the rule's, or the one for log-probabilities into a cross-entropy, told apart
    because log_softmax is idempotent: the loss is unchanged, but the step is redundant and the model's outputs
    are not the logits the code says (maintainers fix it all the same)."""
    if kind == LOG_SOFTMAX and message == ActivationIntoLogitLoss.message and ("ross" in loss or "nll_loss" in loss) \
            and "binary" not in loss.lower():
        return LOG_SOFTMAX_MESSAGE
    return message


def _text(message: str, kind: str, loss: str, of: str = "") -> str:
    """The rule's message for an activation (`of`: whose output it is), or the ReLU one."""
    message = _template(message, kind, loss)
    text = RELU_MESSAGE.format(loss=loss) if kind == RELU else message.format(activation=kind, loss=loss)
    return text.replace(" output passed", f" output{of} passed", 1)


def _branched(arg: ast.expr, loss: str, ctx: ModuleContext) -> list[tuple[ast.expr, Traced]]:
    """The activation a class-count branch applies to the loss input, asked only when the kinds find none."""
    return [(where, found) for where, found in class_count_kinds(arg, ctx) if _paired(found.kind, loss)]


def _activation_hit(node: ast.AST, message: str, kind: str, loss: str, of: str = "") -> Hit:
    """A finding with _text's message, as mild as its template is (MILDER)."""
    severity = None if kind == RELU else MILDER.get(_template(message, kind, loss))
    return Hit(node, _text(message, kind, loss, of), severity)


class ActivationIntoLogitLoss(Rule):
    """What it does: flags softmax, log_softmax or sigmoid outputs passed to a loss that applies
    its own (log-)softmax or sigmoid: CrossEntropyLoss, F.cross_entropy, BCEWithLogitsLoss. The
    finding points at the activation (where the fix goes), naming the loss; a model of another
    file is reported at the loss, and in its own file at its activation. A model's name links two
    files only where the file using it can reach the one defining it: it imports the name from there
    (directly, through a package's `__init__`, or a module alias), or, for a model handed in
    (`net(x)`, `output['exist']`), the defining file lies in the using file's own project and no
    other file there defines that name; a same-named class of another script or sub-project of the
    repository (each book chapter's `Net`) is left quiet. The model is followed
    through factories, wrappers (DataParallel, torch.compile), a replaced pretrained head
    (`model.fc = nn.Sequential(..., nn.Softmax(1))`), frameworks it is handed to (skorch, skada),
    a base class's training step, and a dict entry or part (`transformer.decoder`) of a model
    handed in. Also flags probabilities handed as `logits=`, a signature whose defaults pair
    an output Softmax with a CrossEntropyLoss, the log of softmax probabilities (or of a mixture
    of them, `torch.log(F.softmax(z, 1) @ T)`) handed to a cross-entropy, and a library layer built
    with a softmax/sigmoid output activation (`GraphConv(h, c, activation=partial(F.softmax, dim=1))`,
    `smp.Unet(..., activation="sigmoid")`) in the model whose output the loss takes. The loss may be chosen
    among logit losses by branches, a dict or the callers, or kept on an arguments object (`args.loss_fn`,
    also by another file); the activation may be applied on the branch a class-count test picks
    (`if self.num_classes > 1: F.log_softmax(...)`), or kept on self by another method (then also reported
    at the loss argument, where the logits could go), or applied by a scoring helper of the class that the
    training step calls (`y = self.predict_on_batch(x)`, also reported there). The loss may be picked from a
    table by a config string (`LOSSES[name]()`, when the table's classification losses for the activation all
    expect logits), built by a registry from a config dict (`MODELS.build(dict(type="CrossEntropyLoss"))`), or
    be one entry of a dict of per-output losses a loss class applies to the model's output dict; the model may
    be any entry of a registry a factory picks from by name (`return _entrypoints[name](**kwargs)`).

    Why is this bad: the activation is applied twice. Training still runs and the loss still
    falls, but gradients shrink and the loss cannot reach its minimum. The activation may be
    hidden in the model's forward, in a helper, or in another file of the same run. log_softmax into a
    cross-entropy is the mild case: the loss is unchanged, and the finding says the step is redundant.
    """

    code = "MLD001"
    name = "activation-into-logit-loss"
    category = "loss"
    severity = "error"
    message = "{activation} output passed to {loss}, which expects raw logits"
    why = "The loss applies its own softmax/sigmoid, so the activation is applied twice and training silently degrades."
    fix = "Pass the raw logits to the loss; apply softmax/sigmoid only for predictions or metrics."
    evidence = "karpathy-mistakes/overfit-single-batch-first"
    node_types = (ast.Call,)
    requires_text = (*LOGIT_TEXTS, "NeuralNetBinaryClassifier", "skada", *HINTS)  # skip modules that cannot hold the pattern
    BAD = (
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "criterion = nn.CrossEntropyLoss()\n"
        "def step(model, x, y):\n"
        "    probs = F.softmax(model(x), dim=1)\n"
        "    return criterion(probs, y)\n"
    )
    GOOD = (
        "import torch.nn as nn\n"
        "criterion = nn.CrossEntropyLoss()\n"
        "def step(model, x, y):\n"
        "    logits = model(x)\n"
        "    return criterion(logits, y)\n"
    )

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not ctx.memo(("mld001", "loss-text"), lambda: any(map(ctx.has_text, LOGIT_TEXTS + SKORCH_TEXT + INHERITED + (KEYWORD,)))):
            return
        source = logit_loss(node, ctx)
        if source is None:
            yield from self._handed(node, ctx)
            yield from self._as_logits(node, ctx)
            yield from self._gated(node, ctx)
            yield from self._tabled(node, ctx)
            return
        loss = _short(source.name)
        if silenced(node, ctx, self.code):
            return
        if not any(input_kinds(arg, ctx) for arg in loss_inputs(node)):
            yield from self._gated(node, ctx)  # an output whose kind differs by branch: the loss's own test decides
        for arg in loss_inputs(node):
            yield from self._hidden(node, arg, loss, ctx)
            for where, found in input_kinds(arg, ctx) or _branched(arg, loss, ctx):
                if found.kind not in ACTIVATIONS and found.kind != RELU:
                    continue
                if found.origins:  # the fix goes where the activation is applied
                    for origin in found.origins:
                        at = f" (line {node.lineno})" if origin.lineno != node.lineno else ""
                        yield _activation_hit(origin, self.message, found.kind, loss + at)
                    kept = kept_by_other_method(node, where, found, ctx)
                    if kept:  # or here, where the loss could take the logits instead
                        yield _activation_hit(where, self.message, found.kind, loss, kept)
                    yield from _at_helper_call(node, where, found, self.message, loss, ctx)
                    predicted = inference_forward_call(where, found, ctx)
                    if predicted is not None:  # or where the step asks forward, meant for inference
                        call = "self.forward(...)" if isinstance(predicted.func, ast.Attribute) else "self(...)"
                        yield Hit(predicted, PREDICTION_MESSAGE.format(
                            call=call, kind=found.kind, line=found.origins[0].lineno, loss=f"{loss} (line {node.lineno})"))
                else:  # an activation in another file's model: reported here at the loss, there at the activation
                    yield _activation_hit(where, self.message, found.kind, loss, f" of {found.via} (another file)")

    def _tabled(self, call: ast.Call, ctx: ModuleContext) -> Iterator[Hit]:
        """A loss picked from a table of losses by a configuration string (helpers/losses_tabled): reported at the
        activation when every classification loss the table offers for it expects logits."""
        names = tabled_losses(call, ctx, loss_source) if call.args else None
        if not names or silenced(call, ctx, self.code):
            return
        for _, found in input_kinds(call.args[0], ctx):
            fits = {n for n in names if _classifying(n) and _paired(found.kind, _short(n))}
            if found.kind not in ACTIVATIONS or found.kind == LOG_SOFTMAX or not fits or not fits <= LOGIT_LOSSES:
                continue
            loss = f"{_short(min(fits))} (line {call.lineno}, the table's choice for a {found.kind})"
            yield from (_activation_hit(o, self.message, found.kind, loss) for o in found.origins)
            yield from _at_helper_call(call, call.args[0], found, self.message, loss, ctx)

    def _gated(self, call: ast.Call, ctx: ModuleContext) -> Iterator[Hit]:
        """A loss that is a logit loss on one branch of a test (`if self.task == "class"`), given an output
        softmaxed on the same branch of the same test (helpers/losses_gated): reported at the activation."""
        chosen = gated_logit_losses(call, ctx)
        if not chosen or silenced(call, ctx, self.code):
            return
        for arg in loss_inputs(call):
            found = input_kinds(arg, ctx)
            for name, where in chosen:
                loss = f"{_short(name)} (line {call.lineno}, on the same test)"
                origins = [(o, f.kind) for _, f in found if f.kind in ACTIVATIONS
                           and {gate(p, ctx) for p in f.origins} == {where} for o in f.origins]
                # an output shaped per task by a method of the class, with other activations on other tasks
                origins = origins or ([] if found else gated_activations(arg, call, where, ctx))
                hits = [_activation_hit(o, self.message, kind, loss) for o, kind in origins if _paired(kind, _short(name))]
                if hits:
                    yield from hits
                    return

    def _hidden(self, call: ast.Call, arg: ast.expr, loss: str, ctx: ModuleContext) -> Iterator[Hit]:
        """Probabilities the kinds do not show: logged before a cross-entropy (`torch.log(softmax(z) @ T)`), or
        made by a layer of the model built with a softmax/sigmoid output activation (helpers/losses_logged)."""
        at = f" (line {call.lineno})"
        if "ross" in loss and "inary" not in loss:
            for log in logged_probabilities(arg, ctx):
                yield Hit(log, LOGGED_MESSAGE.format(loss=loss + (at if log.lineno != call.lineno else "")), MILDER[LOGGED_MESSAGE])
        model, layers = model_activations(arg, ctx)
        for kind, value in layers:
            if _paired(kind, loss):
                yield Hit(value, LAYER_MESSAGE.format(activation=kind, model=model, loss=loss + at))

    def _handed(self, call: ast.Call, ctx: ModuleContext) -> Iterator[Hit]:
        """A loss handed over with a model that returns probabilities (skorch's `NeuralNetClassifier(module,
        criterion=nn.CrossEntropyLoss)`, a base class given its layers and `loss=`): reported at the loss."""
        handed = loss_handed_with_model(call, ctx)
        if handed is None:
            return
        name, node, found = handed
        if name not in LOGIT_LOSSES or found is None or (found.kind not in ACTIVATIONS and found.kind != RELU):
            return
        lines = sorted({o.lineno for o in found.origins if o.lineno != node.lineno})
        of = f" (line {', '.join(map(str, lines))})" if lines else ""
        yield _activation_hit(node, self.message, found.kind, _short(name), of)

    def _as_logits(self, call: ast.Call, ctx: ModuleContext) -> Iterator[Hit]:
        """Probabilities handed as `logits=` (`ce_loss(logits=probs, labels=y)`, `Categorical(logits=probs)`): the
        keyword says the callee normalises them itself. Log-probabilities are fine there."""
        value = logits_keyword(call) if call.keywords else None
        if value is None or silenced(call, ctx, self.code):
            return
        name = callee_name(call, ctx)
        for where, found in input_kinds(value, ctx):
            if found.kind not in PROBABILITIES:
                continue
            if not found.origins:
                yield _activation_hit(where, KEYWORD_MESSAGE, found.kind, name, f" of {found.via} (another file)")
            for origin in found.origins:
                at = f" (line {call.lineno})" if origin.lineno != call.lineno else ""
                yield _activation_hit(origin, KEYWORD_MESSAGE, found.kind, name + at)

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        """A model of this file whose activation reaches a logit loss in another file (the project index)."""
        if ctx.has_text("=nn.") or ctx.has_text("= nn."):  # a signature's defaults pair an activation and the loss
            for value, kind, loss in paired_defaults(ctx):
                yield Hit(value, DEFAULTS_MESSAGE.format(activation=kind, loss=_short(loss)))
        project = ctx.project
        if project is None:
            return
        facts = project_facts(ctx)
        for name, cls in ctx.classes.items() if ctx.has_text("oftmax") or ctx.has_text("igmoid") else ():
            layers = class_activation_layers(cls, ctx)  # a layer's output activation, the loss in another file
            fed = taken(project, name) if layers else None
            for kind, value in layers if fed is not None else ():
                if _paired(kind, fed):
                    yield Hit(value, LAYER_MESSAGE.format(activation=kind, model=name, loss=fed))
            if layers or name in facts or not branches_on_class_count(cls):
                continue
            fed = taken(project, name)  # the multi-class branch of a forward that branches on the class count
            found = traced_return(cls, ctx, lenient=True) if fed is not None else None
            if by_class_count(found, ctx) and _paired(found.kind, fed):
                yield from _at_origins(found, self.message, fed, f" of {name}")
        for name, func in ctx.functions.items():  # a factory choosing among models: each one it may return
            fed = None if name in facts or name + FACTORY in facts else taken(project, name + FACTORY)
            for found in each_returned_model(func, ctx) if fed is not None else ():
                if found.kind in ACTIVATIONS:
                    yield from _at_origins(found, self.message, fed, f" of a model {name}() returns")
            for entry, found in registered_models(func, ctx) if fed is not None else ():  # or each registry entry
                yield from _at_origins(found, self.message, fed, f" of the model {entry} picked by {name}()")
        for name, kind in facts.items():
            if kind not in ACTIVATIONS and kind != RELU:
                continue
            if "/" in name:  # an element of the tuple it returns, unpacked by the file whose loss takes it
                fed, found = element_taken(name, ctx)
                yield from _at_origins(found, self.message, fed, f" of {name.split('/', 1)[0]}")
                continue
            if "." in name:  # a method other than forward (`model.project(x)`), of a class or a factory's model
                fed = taken(project, name)  # or of a model handed to a trainer (`self.model.predict(x)`)
                found = traced_method(name, ctx) if fed is not None else None
                yield from _at_origins(found, self.message, fed, f" of {name}")
                continue
            if name.endswith(FACTORY):  # a factory whose model another file's loss takes (`build_model()`)
                fed = taken(project, name)
                found = traced_factory(ctx.functions[name[:-len(FACTORY)]], ctx) if fed is not None else None
                yield from _at_origins(found, self.message, fed, f" of the model {name} builds")
                continue
            owner = ctx.classes.get(name) or ctx.functions.get(name)
            fed = model_taken(project, name, owner, kind, ctx)
            message = self.message
            if fed is not None and fed.startswith(KEYWORD):  # handed as logits=: log-probabilities are fine there
                fed, message = (fed[len(KEYWORD):], KEYWORD_MESSAGE) if kind in PROBABILITIES else (None, message)
            found = traced_return(owner, ctx) if fed is not None else None
            yield from _at_origins(found, message, fed, f" of {name}")


def _paired(kind: str, loss: str) -> bool:
    """A layer's softmax meets a cross-entropy, its sigmoid a binary one: a sigmoid may be a hidden activation."""
    binary = "inary" in loss or "BCE" in loss or "oftMargin" in loss or "oft_margin" in loss
    return binary == (kind == SIGMOID)


def _at_helper_call(call: ast.Call, where: ast.expr, found: Traced, message: str, loss: str,
                    ctx: ModuleContext) -> Iterator[Hit]:
    """Also where the step calls the method of its class that applies the activation (a scoring helper shared
    with prediction): there the step could take the logits instead."""
    helper = helper_call(call, where, found, ctx)
    if helper is not None:
        yield _activation_hit(helper[0], message, found.kind, loss, helper[1])


def _classifying(name: str) -> bool:
    """A classification loss (a cross-entropy, an NLL, a soft margin), as opposed to a regression loss."""
    short = _short(name)
    return any(word in short for word in ("ross", "BCE", "NLL", "nll", "oftMargin", "oft_margin"))


def _at_origins(found: Traced | None, message: str, loss: str, of: str) -> Iterator[Hit]:
    """A finding at each origin of a model's activation `found` (none when it is None), naming the loss."""
    for origin in found.origins if found is not None else ():
        yield _activation_hit(origin, message, found.kind, loss, of)
