"""A module with trainable parameters, built and used in training next to an optimiser that never holds it.

Also a project module composed of pieces of the optimised model (`VAE(model.encoder, model.decoder)`), or
another piece imported from the same project module as the optimised model (`ClfHead` next to `Model`).

`crf = CRF(...)` or `criterion = AdaptiveSoftmaxLoss(...)` (a loss with its own weights) called on the way
to the loss while `optimizer = Adam(model.parameters())`: backward fills their gradients and nothing
updates them. Only modules we can see have parameters count (a torch.nn layer that has weights, or a
local nn.Module subclass that builds one); losses without weights (nn.CrossEntropyLoss), modules frozen
or put in eval mode, modules only run under no_grad, and modules handed to anything but their own call
(a wrapper, a helper that may build its own optimiser) stay out.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .graph import GRAPH_CUTS, callee, is_loss_call
from .loops import LOOPS
from .optim_groups import frozen
from .optim_params import dotted, is_optimizer_name, within
from .optim_steps import FUNCTIONS, local_callee, training_blocks

# torch.nn classes without weights of their own (containers hold whatever they are given: not certain)
WITHOUT_OWN_WEIGHTS = re.compile(
    r"Identity|Flatten|Unflatten|\w*Dropout\w*|\w*Pool[123]d|(Leaky)?ReLU6?|R?ReLU|[GS]?ELU|CELU|GELU|SiLU|Mish|"
    r"(Log)?Sigmoid|Tanh|Tanhshrink|(Log)?Softmax2?d?|Softmin|Softplus|Softsign|Hard\w+|Upsample\w*|Pixel(Un)?Shuffle"
    r"|\w*Loss(2d)?|Sequential|Module(List|Dict)|Parameter(List|Dict)|\w*Padding\w*|\w*Pad[123]d|ChannelShuffle|Fold|Unfold"
    r"|CosineSimilarity|PairwiseDistance|\w*Parallel|Module"
)
WEIGHTED_LOSSES = {"AdaptiveLogSoftmaxWithLoss"}
# graph libraries' layers: message-passing convolutions and their linear layers hold weights
GRAPH_LIBRARIES = ("torch_geometric.nn.", "dgl.nn.")
GRAPH_LAYER = re.compile(r"\w*(Conv|Linear|Attention|GRU|LSTM)")
GRAPH_LAYERS_WITHOUT_WEIGHTS = {"LGConv", "SimpleConv"}  # LightGCN's propagation and plain aggregation
NO_GRAD = ("no_grad", "inference_mode")
# libraries whose classes are not the project's own model pieces
THIRD_PARTY = ("torch", "torchvision", "transformers", "timm", "numpy", "sklearn", "peft", "accelerate", "lightning",
               "pytorch_lightning", "datasets", "tokenizers", "diffusers", "trl")


def has_parameters(call: ast.Call, ctx: ModuleContext, depth: int = 3) -> bool:
    """The call builds a module that certainly has trainable parameters."""
    name = ctx.call_name(call) or ""
    simple = name.rsplit(".", 1)[-1]
    if name.startswith("torch.nn.") and simple in CONTAINERS:  # weighted when a module it holds is
        return depth > 0 and any(has_parameters(m, ctx, depth - 1) for m in _held_modules(call))
    if name.startswith("torch.nn.") and simple[:1].isupper():
        return simple in WEIGHTED_LOSSES or not WITHOUT_OWN_WEIGHTS.fullmatch(simple)
    cls = ctx.classes.get(name)
    if cls is not None:
        return _module_class_with_weights(cls, ctx, depth)
    if name.startswith(GRAPH_LIBRARIES) and GRAPH_LAYER.fullmatch(simple) and simple not in GRAPH_LAYERS_WITHOUT_WEIGHTS:
        return True  # PyG's GCNConv, DGL's GraphConv: each holds a weight matrix
    # a class (or a builder returning one) of another file of the run that says it builds weights
    if "." not in name or name.startswith(THIRD_PARTY) or ctx.project is None:
        return False
    told = ctx.project.kind_returned_by(f"weighted:{simple}")
    return bool(told) and told.endswith("/*")


CONTAINERS = {"Sequential", "ModuleList", "ModuleDict"}


def _held_modules(call: ast.Call) -> list[ast.Call]:
    """The module constructions a container is built from: `Sequential(Linear(...), Tanh())`, `ModuleList([...])`,
    `ModuleList([Block() for _ in range(n)])`, `ModuleDict({"a": Linear(...)})`."""
    found: list[ast.Call] = []
    for arg in call.args:
        items = arg.elts if isinstance(arg, ast.List | ast.Tuple) else list(arg.values) if isinstance(arg, ast.Dict) \
            else [arg.elt] if isinstance(arg, ast.ListComp | ast.GeneratorExp) else [arg]
        found.extend(strip_moves(i) for i in items if isinstance(i, ast.Call))
    return found


def strip_moves(value: ast.expr) -> ast.expr:
    """`Loss().to(device)`, `Head().cuda()`: the constructor under calls that return the module itself
    (not `.eval()` or `.requires_grad_(False)`, which say it is not meant to train)."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in MOVES \
            and isinstance(value.func.value, ast.Call):
        value = value.func.value
    return value


MOVES = {"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "train"}


def _module_class_with_weights(cls: ast.ClassDef, ctx: ModuleContext, depth: int) -> bool:
    """A local nn.Module subclass whose methods build a layer with weights or an nn.Parameter, or hold a
    module with weights: a local one, or a model piece the project imports (`self.global_d =
    GlobalDiscriminator()`: a loss module holding discriminators), unless it freezes what it holds."""
    if depth == 0 or not any((ctx.qualname(b) or "").startswith("torch.nn.") or ctx.classes.get(ctx.qualname(b) or "")
                             for b in cls.bases):
        return False
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and node is not cls:
            name = ctx.call_name(node) or ""
            if name == "torch.nn.Parameter" or name.startswith("torch.nn.") and has_parameters(node, ctx, depth - 1):
                return True
            if _held_piece(node, name, cls, ctx, depth):
                return True
    bases = [ctx.classes.get(ctx.qualname(b) or "") for b in cls.bases]
    return any(b is not None and b is not cls and _module_class_with_weights(b, ctx, depth - 1) for b in bases)


def _held_piece(call: ast.Call, name: str, cls: ast.ClassDef, ctx: ModuleContext, depth: int) -> bool:
    """`self.d = Piece(...)` in the class: a local class with weights, or a project class imported from
    another file of the project (not a library, not a loss/metric/config by its name), when the class
    freezes nothing (no requires_grad, eval(), no_grad)."""
    holder = ctx.parent(call)
    if not (isinstance(holder, ast.Assign) and any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                                    and t.value.id == "self" for t in holder.targets)):
        return False
    local = ctx.classes.get(name)
    if local is not None:
        return local is not cls and _module_class_with_weights(local, ctx, depth - 1)
    origin, _, simple = name.rpartition(".")
    if not origin or not simple[:1].isupper() or NOT_MODULES.fullmatch(simple) or name.startswith(THIRD_PARTY):
        return False
    return not _freezes(cls, ctx)


def _freezes(cls: ast.ClassDef, ctx: ModuleContext) -> bool:
    return ctx.memo(("optim_untrained.freezes", cls), lambda: any(
        isinstance(n, ast.Attribute) and n.attr in {"requires_grad", "requires_grad_", "eval", "no_grad", "detach"}
        for n in ast.walk(cls)))


def untrained_modules(optimizer: ast.Call, held: set[str], ctx: ModuleContext) -> list[tuple[str, int]]:
    """(name, line) of weighted modules built in the optimiser's scope (or at module level), called in a
    training step and held by no optimiser nearby (`held`: the modules those optimisers hold)."""
    scope = ctx.scope_of(optimizer)
    found = []
    for assign in [*ctx.in_scope(scope, (ast.Assign,)), *(ctx.in_scope(ctx.tree, (ast.Assign,)) if scope is not ctx.tree
                                                        else [])]:
        if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
            continue
        name = assign.targets[0].id
        value = strip_moves(assign.value)
        if not isinstance(value, ast.Call) or any(within(name, h) or within(h, name) for h in held):
            continue
        if not has_parameters(value, ctx) and not _sibling_of_held(value, held, optimizer, ctx) \
                and not _built_from_held_pieces(value, held, ctx) and not _head_on_held(name, value, held, ctx):
            continue
        weighted = has_parameters(value, ctx)  # certain, not only by its siblings or pieces
        if weighted and _weights_read_detached(value, ctx):
            continue  # `F.cross_entropy(out, y) * self.scale.detach()`: no gradient reaches them, nothing to update
        if _trained(name, ctx.scope_of(assign), ctx, weighted=weighted) and not frozen(name, ctx) \
                and name not in dict(found):
            found.append((name, assign.lineno))
    return found


def _trained(name: str, scope: ast.AST, ctx: ModuleContext, depth: int = 2, weighted: bool = False) -> bool:
    """Called in a training step (a block with a backward), never frozen, only ever called or moved; or handed
    to a helper of this file whose parameter is (`train_one_epoch(vae, loader)`, issue 17)."""
    called = False
    for node in ctx.by_type.get(ast.Name, ()):
        if node.id != name or not isinstance(node.ctx, ast.Load) or not _sees(scope, node, ctx):
            continue
        parent = ctx.parent(node)
        if isinstance(parent, ast.Call) and parent.func is node:
            if _in_training_step(parent, ctx) and not _under_no_grad(parent, ctx):
                called = True
            continue
        if _rewrapped(node, parent, ctx) or _handed_to_evaluation(node, parent, ctx):
            continue  # `vae = nn.DataParallel(vae)`, `evaluate(loader, vae)`: its parameters reach no optimiser
        if depth and _handed_to_training(node, parent, ctx, depth, weighted):
            called = True  # `train_one_epoch(vae, loader)`: the helper's parameter is trained there
            continue
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = ctx.parent(parent)
            if isinstance(parent.ctx, ast.Store):
                continue  # `vae.lm_head = model.lm_head`: a piece set on it, its own parameters stay
            if _logged(parent, ctx):
                continue  # `print(f"temp {criterion.logit_scale.exp()}")`: a value shown, not a use that trains it
            if parent.attr in {"eval", "requires_grad_"} or not (isinstance(call, ast.Call) and call.func is parent):
                return False  # frozen, evaluated, or an attribute read: not sure it should train
            if parent.attr in FITS:
                return False  # `detector.fit(loader)`: fitted by its own method (statistics, its own optimiser)
            continue  # crf.decode(...), criterion.cuda(): its parameters stay where they are
        return False  # handed to a wrapper or a helper, stored, returned: its parameters may reach an optimiser
    return called


def _weights_read_detached(call: ast.Call, ctx: ModuleContext) -> bool:
    """`call` builds a class of this module whose own parameters (`self.w = nn.Parameter(...)`) are read, outside
    `__init__`, only through a graph cut (`self.w.detach()`, `.item()`, `.data`): the loss never reaches them."""
    cls = ctx.classes.get(ctx.call_name(call) or "")
    if cls is None:
        return False
    own = {t.attr for a in ctx.within(ast.Assign, cls) for t in a.targets
           if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
           and isinstance(a.value, ast.Call) and (ctx.call_name(a.value) or "").endswith("Parameter")}
    if not own:
        return False
    reads = [n for n in ctx.within(ast.Attribute, cls) if n.attr in own and isinstance(n.value, ast.Name)
             and n.value.id == "self" and isinstance(n.ctx, ast.Load)
             and getattr(ctx.enclosing(n, FUNCTIONS), "name", "__init__") != "__init__"]
    return bool(reads) and all(isinstance(ctx.parent(n), ast.Attribute) and ctx.parent(n).attr in DETACHING
                               for n in reads)


DETACHING = GRAPH_CUTS | {"data"}


def _logged(node: ast.AST, ctx: ModuleContext) -> bool:
    """The read sits in an f-string or in a call of print() or a logger's method."""
    for above in ctx.ancestors(node):
        if isinstance(above, ast.JoinedStr):
            return True
        if isinstance(above, ast.Call) and (callee(above.func) in LOGGING or callee(above.func.value if isinstance(
                above.func, ast.Attribute) else above.func) in {"logger", "logging", "log", "writer"}):
            return True
        if isinstance(above, ast.stmt):
            return False
    return False


LOGGING = {"print", "info", "debug", "warning", "log", "add_scalar", "log_dict", "set_postfix"}


# an estimator's own fitting (an OOD detector's class means and covariances, a scikit-learn-style API)
FITS = {"fit", "fit_features", "fit_transform", "fit_predict", "partial_fit"}


def _handed_to_training(node: ast.Name, parent: ast.AST, ctx: ModuleContext, depth: int, weighted: bool) -> bool:
    """Handed to a function of this module (a plain-name call) that builds no optimiser and whose parameter
    receiving it is itself only called in a training step there."""
    if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)):
        return False
    helper = local_callee(parent, ctx)
    if helper is None or helper is ctx.scope_of(parent):
        return False
    arguments = helper.args.posonlyargs + helper.args.args
    if node in parent.args:
        index = parent.args.index(node)
        if any(isinstance(a, ast.Starred) for a in parent.args[:index + 1]) or index >= len(arguments):
            return False
        parameter = arguments[index].arg
    else:
        parameter = next((k.arg for k in parent.keywords if k.value is node), None)
        if parameter is None or parameter not in {a.arg for a in arguments + helper.args.kwonlyargs}:
            return False
    if any(is_optimizer_name(ctx.call_name(c)) or ctx.method_name(c) == "add_param_group"
           for c in ctx.within(ast.Call, helper)):
        return False
    if not weighted and any(isinstance(c.func, ast.Name) and c.func.id == parameter and is_loss_call(c, ctx)
                            for c in ctx.in_scope(helper, (ast.Call,))):
        return False  # `criterion(outputs, labels)`: a loss module handed in, not a model (unless it holds weights)
    if any(isinstance(c.func, ast.Attribute) and c.func.attr == "load_state_dict" and isinstance(c.func.value, ast.Name)
           and c.func.value.id == node.id for c in ctx.in_scope(ctx.scope_of(parent), (ast.Call,))):
        return False  # `q_target.load_state_dict(q.state_dict())`: a target network, updated by copying
    return _trained(parameter, helper, ctx, depth - 1, weighted)


def _rewrapped(node: ast.Name, parent: ast.AST, ctx: ModuleContext) -> bool:
    """`x = DataParallel(x)` / `x = DDP(x, ...)`: handed to a wrapper that keeps the name."""
    holder = ctx.parent(parent)
    return (isinstance(parent, ast.Call) and node in parent.args
            and (ctx.call_name(parent) or "").endswith(("DataParallel", "DistributedDataParallel"))
            and isinstance(holder, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in holder.targets))


def _handed_to_evaluation(node: ast.Name, parent: ast.AST, ctx: ModuleContext) -> bool:
    """Handed to a function of this module that neither builds an optimiser nor runs a backward."""
    if not (isinstance(parent, ast.Call) and node in parent.args):
        return False
    helper = local_callee(parent, ctx)
    if helper is None:
        return False
    calls = [c for c in ast.walk(helper) if isinstance(c, ast.Call)]
    return not any(is_optimizer_name(ctx.call_name(c)) or ctx.method_name(c) in {"backward", "step", "add_param_group"}
                   for c in calls)


def _sees(scope: ast.AST, node: ast.AST, ctx: ModuleContext) -> bool:
    """`node` reads the name bound in `scope`: in that scope, or nested in it (a loop's helper closure), unless
    a def between binds the name itself (a script's `criterion` is not another function's parameter)."""
    if scope is not ctx.tree and node.id in ctx.global_names(scope):
        scope = ctx.tree  # `global clf_head` in a script's main(): the module's name, read by its functions
    inner = ctx.scope_of(node)
    while inner is not scope:
        if inner is ctx.tree or node.id in ctx.bindings.get(inner, {}) and node.id not in ctx.global_names(inner):
            return False
        inner = ctx.scope_of(inner)
    return True


def _in_training_step(call: ast.Call, ctx: ModuleContext) -> bool:
    """In a block that backwards, or in a loop whose iteration reaches a backward through a local helper
    (`loss_compute(out, y)`, an object whose __call__ backwards)."""
    if any(a in ctx.backward_scopes for a in ctx.ancestors(call)):
        return True
    loop = ctx.enclosing(call, LOOPS + FUNCTIONS)
    return isinstance(loop, LOOPS) and loop in training_blocks(ctx)


NOT_MODULES = re.compile(r"\w*(Loss|Criterion|Metric|Meter|Logger|Writer|Dataset|Loader|Sampler|Tokenizer|Config|"
                         r"Scheduler|Optimizer|Compute|Iterator|Saver)\w*")


def _sibling_of_held(value: ast.Call, held: set[str], optimizer: ast.Call, ctx: ModuleContext) -> bool:
    """`clf_head = ClfHead(...)` next to `model = Model(...)`, both imported from the project's own model
    module: another piece of the model, which the optimiser over `model` alone leaves out. A piece built
    around the held module (`LMHead(model)`) may share its weights and is left out."""
    name = ctx.call_name(value) or ""
    origin, _, simple = name.rpartition(".")
    if not origin or not simple[:1].isupper() or NOT_MODULES.fullmatch(simple) or name.startswith(THIRD_PARTY):
        return False
    handed = {dotted(a) for a in [*value.args, *(k.value for k in value.keywords)]} - {None}
    if any(within(h, m) or within(m, h) for h in handed for m in held):
        return False
    # the held module as the optimiser's call names it (`encoder.parameters()`), read in its own scope
    for held_name in (n for n in ast.walk(optimizer) if isinstance(n, ast.Name) and n.id in held):
        built = ctx.constructed(held_name)
        if built and built.rpartition(".")[0] == origin and built != name:
            return True
    return False


def _under_no_grad(node: ast.AST, ctx: ModuleContext) -> bool:
    for ancestor in ctx.ancestors(node):
        if isinstance(ancestor, ast.With | ast.AsyncWith) and any(
                isinstance(item.context_expr, ast.Call)
                and (ctx.call_name(item.context_expr) or dotted(item.context_expr.func) or "").endswith(NO_GRAD)
                for item in ancestor.items):
            return True
    return False


def _built_from_held_pieces(value: ast.Call, held: set[str], ctx: ModuleContext) -> bool:
    """`vae = VAE(model.model.encoder, model.model.decoder, ...)`: a project module composed of pieces of the
    optimised model (and, being a new module, layers of its own), while the optimiser holds only `model`."""
    name = ctx.call_name(value) or ""
    simple = name.rpartition(".")[2]
    if not simple[:1].isupper() or NOT_MODULES.fullmatch(simple) or name.startswith(THIRD_PARTY):
        return False
    pieces = {dotted(a) for a in [*value.args, *(k.value for k in value.keywords)]} - {None}
    if pieces & held:
        return False  # `ExactMarginalLogLikelihood(model.likelihood, model)`: built around the whole optimised model
    return any(within(p, h) and p != h for p in pieces for h in held)


def _head_on_held(name: str, value: ast.Call, held: set[str], ctx: ModuleContext) -> bool:
    """`head = ClassificationHead(768, 2)` (a project class) applied to the optimised model's output in
    training (`head(base(**batch).pooler_output)`): a trainable head stacked on the model."""
    built = ctx.call_name(value) or ""
    simple = built.rpartition(".")[2]
    if not simple[:1].isupper() or NOT_MODULES.fullmatch(simple) or built.startswith(THIRD_PARTY):
        return False
    for node in ctx.by_type.get(ast.Name, ()):
        parent = ctx.parent(node)
        if node.id != name or not (isinstance(parent, ast.Call) and parent.func is node) \
                or not _in_training_step(parent, ctx):
            continue
        # a head takes the features alone, or (a margin head) the features and labels and feeds a loss;
        # `loss_fn(logits, labels)` takes a target too and is the loss itself
        if len(parent.args) != 1 and not _feeds_a_loss(parent, ctx):
            continue
        if any(_from_held(arg, held, ctx, 2) for arg in [*parent.args, *(k.value for k in parent.keywords)]):
            return True
    return False


def _from_held(expr: ast.AST, held: set[str], ctx: ModuleContext, depth: int) -> bool:
    """`expr` contains a call of a held module (`base(x)`, `base.encoder(x)`), also through a name
    assigned one (`hidden = base(x)`)."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and any(within(dotted(node.func) or "", h) for h in held):
            return True
        if depth and isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            value = ctx.resolve(node)
            if value is not node and isinstance(value, ast.AST) and _from_held(value, held, ctx, depth - 1):
                return True
    return False


def _feeds_a_loss(call: ast.Call, ctx: ModuleContext) -> bool:
    """The call's output is the input (first argument) of a loss: `criterion(metric_fc(feature, label), label)`,
    also through the name it is assigned to."""
    parent = ctx.parent(call)
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is call:
        return is_loss_call(parent, ctx)
    if not (isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name)):
        return False
    target = parent.targets[0].id
    for use in ctx.in_scope(ctx.scope_of(call), (ast.Call,)):
        if use.lineno >= call.lineno and use.args and isinstance(use.args[0], ast.Name) \
                and use.args[0].id == target and is_loss_call(use, ctx):
            return True
    return False

