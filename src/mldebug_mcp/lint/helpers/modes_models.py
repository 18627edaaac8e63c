"""Which calls run a model, and whether its train/eval mode matters there (MLD020).

The mode does not matter, or is someone else's business, when the call passes it (`training=False`), the
model is kept frozen on purpose (a teacher, an EMA or target copy), it is `self` inside a model, it holds
no dropout or BatchNorm, it comes from_pretrained (in eval mode), or a project's loader in another file
built it from the weights (the loader sets the mode, out of sight). No dropout or BatchNorm: a class of the
file built only of layers whose output eval() does not change (Linear, Conv, Embedding, LayerNorm, GroupNorm,
an InstanceNorm without running statistics, an LSTM/GRU/RNN of one layer whatever its dropout=, which acts
only between stacked layers), holding no module handed in and naming no dropout, batch norm or self.training.
A method that switches the mode itself (`trainer.generate()` calling `self.GAN.eval()`, in this file or
another of the run) leaves nothing to its caller. A model unpacked from this file's loader that returns it
from_pretrained in a tuple, or from a parameter (the caller's), is in eval mode or the caller's.
"""

from __future__ import annotations

import ast
import re

from ..context import ModuleContext
from .evaluation import (
    ident,
    model_call,
    model_like,
    plainly_no_model,
    scope_calls,
    state_dict_owners,
    strip_calls,
    tokens,
)
from .modes import SETUP, key_of, local_targets
from .modes_facts import RUNS, callee_mode, method_mode

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
# methods that run a model's forward
# a diffusion model's sampling loop (`prior.p_sample_loop(shape)`, `self.diffusion.ddim_sample(...)`) runs the
# whole denoiser many times: inference, like generate()
SAMPLERS = {"p_sample_loop", "p_sample", "ddim_sample", "ddpm_sample", "sample_loop", "ddim_sample_loop",
            "p_sample_loop_progressive"}
FORWARDS = {"forward", "generate", "encode_image", "encode_text", "get_image_features", "get_text_features", *SAMPLERS}
MODE_KEYWORDS = {"training", "train", "is_training", "is_train", "deterministic"}
# models kept in eval mode (or in train mode) on purpose by code this rule does not see
FROZEN = {"teacher", "ema", "target", "frozen", "ref", "reference", "swa", "avg", "averaged", "old", "momentum",
          "shadow"}
# libraries whose constructors return a model in training mode, weights or not (torchvision's resnet50(weights=...),
# timm.create_model(pretrained=True)); torch.load keeps the mode the model was saved in
MODEL_ZOOS = {"torch", "torchvision", "timm", "torchaudio", "torchtext", "segmentation_models_pytorch"}
WEIGHTS = re.compile(r"weight|ckpt|checkpoint|pretrained|model_path|state_dict|resume")
# nn layers whose output does not depend on train/eval mode
MODE_FREE = re.compile(r"torch\.nn\.(Linear|Bilinear|Conv\w*|ReLU\d?|LeakyReLU|GELU|SiLU|ELU|Tanh|Sigmoid|Softmax"
                       r"|LogSoftmax|Softplus|Mish|Embedding\w*|Flatten|Unflatten|\w*Pool\w*|Sequential|ModuleList"
                       r"|ModuleDict|Identity|LayerNorm|RMSNorm|GroupNorm|LocalResponseNorm|Upsample\w*|PixelShuffle"
                       r"|Parameter|PReLU|Hardtanh|Hardswish|ReLU6|Softsign|Tanhshrink|Threshold|LSTMCell|GRUCell"
                       r"|RNNCell|\w+Loss)$")  # a criterion held on the model (`self.loss = nn.MSELoss()`) has no mode
CONTAINERS = {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}
# wrappers that run the module they are given: `nn.DataParallel(model)` holds no layer of its own
PARALLEL_WRAPPERS = {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
                     "torch.nn.parallel.DistributedDataParallel"}
# recurrent layers: dropout= acts only between stacked layers, so one layer (the default) has none in either mode
RECURRENT = re.compile(r"torch\.nn\.(LSTM|GRU|RNN)$")
# InstanceNorm follows the mode only when it keeps running statistics (track_running_stats=True)
INSTANCE_NORM = re.compile(r"torch\.nn\.(InstanceNorm\w*|LazyInstanceNorm\w*)$")
# names in a class that tell it follows the mode (dropout, BatchNorm, self.training), unless they are the
# mode-free layers it builds or weight initialisation (`nn.init.normal_`) and tensor norms (`x.norm()`)
MODE_WORDS = re.compile(r"(?i)drop|norm|training")
MODE_FREE_WORDS = re.compile(r"(?i)^((de|un|re)?normal\w*|layer_?norm|rms_?norm|group_?norm|local_?response_?norm|"
                             r"weight_norm|spectral_norm|clip_grad_norm_?)$")


def frozen(key: str) -> bool:
    return bool(FROZEN & {t for part in key.split(".") for t in tokens(part)})


def forward_receiver(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The model a call runs, when its output is used: a forward run for its side effects only
    (calibrating observers, refreshing BatchNorm statistics, warming up) is not evaluation, unless the
    file registers forward hooks (activations are read by the hook)."""
    if not (call.args or call.keywords):
        return None
    if type(ctx.parents.get(call)) is ast.Expr and not _hooks(ctx):
        return None
    receivers = ctx.memo(("modes", "forward"), dict)  # MLD020 asks about every call of every scope
    found = receivers.get(call, receivers)  # the table itself: not asked yet (None is an answer)
    if found is receivers:
        func = call.func
        # most callees are plainly no model, nor a forward method or something moved to a device and called
        plain = type(func) is not ast.Attribute or (func.attr not in FORWARDS and func.attr != "forward")
        found = receivers[call] = None if plain and plainly_no_model(func, ctx) else _receiver(call, ctx)
    return found


def _hooks(ctx: ModuleContext) -> bool:
    return ctx.memo(("modes", "hooks"), lambda: any(
        isinstance(c.func, ast.Attribute) and c.func.attr.startswith("register_forward")
        for c in ctx.by_type.get(ast.Call, ())))


def bare_switch(stmt: ast.AST, attr: str, ctx: ModuleContext) -> str | None:
    """`model.eval` written as a statement without the call: it does nothing. The model's key, or None."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Attribute) and stmt.value.attr == attr):
        return None
    return key_of(stmt.value.value) if model_like(stmt.value.value, ctx) else None


def _receiver(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    if ctx.call_name(call) is not None:
        return None  # an imported or local callable (and so is what it is an attribute of): never a model
    if _class_by_name(call.func):
        return None  # `agent = Model(envs).to(device)` of a class handed in (cleanrl's ppo_eval): a construction
    if model_call(call, ctx):
        func = call.func
        return func.value if isinstance(func, ast.Attribute) and func.attr == "forward" else func
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in FORWARDS and model_like(func.value, ctx):
        return func.value
    return func if _moved_and_called(func, ctx) else None


DEVICE_MOVES = {"to", "cuda", "cpu"}


def _class_by_name(func: ast.AST) -> bool:
    """A bare name written as a class is (`Model`, `QNetwork`): capitalised, more than one letter and not a constant;
    one capital letter (`G(z)`, `D(x)`) is a GAN's network as often as a class."""
    return isinstance(func, ast.Name) and len(func.id) > 1 and func.id[0].isupper() and not func.id.isupper()


def _moved_and_called(func: ast.AST, ctx: ModuleContext) -> bool:
    """`embedder = loaded["embeddings"].cuda()` then `embedder(x)`: moved to a device and called, so a
    module (a tensor is not callable, a function has no .cuda())."""
    if not isinstance(func, ast.Name | ast.Attribute) or ctx.qualname(func) is not None:
        return False
    if NOT_A_MODEL.search((ident(func) or "").lower()):
        return False  # criterion = nn.CrossEntropyLoss().cuda(): moved and called, but a loss
    values = ctx.values_of(func, func)
    return bool(values) and all(isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                                and v.func.attr in DEVICE_MOVES and not _loss_built(v, ctx) for v in values)


NOT_A_MODEL = re.compile(r"loss|criterion|metric|objective")


def _loss_built(move: ast.Call, ctx: ModuleContext) -> bool:
    base = strip_calls(move.func.value, SETUP)
    name = ctx.call_name(base) if isinstance(base, ast.Call) else None
    return bool(name) and name.endswith("Loss")


def mode_given(call: ast.Call, receiver: ast.AST, key: str, ctx: ModuleContext) -> bool:
    """The mode does not matter or is handled elsewhere: passed explicitly, a model kept frozen on purpose,
    `self(x)` inside a model, or a model with no dropout/BatchNorm (or one from_pretrained, in eval)."""
    if key == "self" or (any(k.arg in MODE_KEYWORDS for k in call.keywords) and not _eval_switched(call, key, ctx)):
        return True  # a mode flag (`train=False`) counts unless this file also calls key.eval(): then the flag
        # is the model's own argument (which branch to take), and dropout/BatchNorm still follow eval()
    if frozen(key):
        return True
    return mode_free(receiver, ctx) or ready_from_loader(receiver, ctx) or switches_itself(
        call, receiver, ctx) or unpacked_ready(receiver, ctx)


def unpacked_ready(receiver: ast.AST, ctx: ModuleContext) -> bool:
    """`text_model, vis_model = prepare_clip(name)`, where this file's function returns a tuple whose element
    at that place comes from_pretrained (in eval mode), or `text_model, vis_model = clip_sets`, a parameter
    (the caller's models): so on every assignment of the name in its scope."""
    if not isinstance(receiver, ast.Name) or ctx.values_of(receiver, receiver):
        return False  # a name bound otherwise is followed by mode_free
    scope = ctx.scope_of(receiver)
    args = getattr(scope, "args", None)
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} if args is not None else set()
    found = False
    for node in ctx.in_scope(scope, (ast.Assign,)):
        for target in node.targets:
            if not isinstance(target, ast.Tuple | ast.List):
                continue
            place = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == receiver.id),
                         None)
            if place is None:
                continue
            value = node.value
            if not (isinstance(value, ast.Name) and value.id in params or _returns_pretrained(value, place, ctx)):
                return False
            found = True
    return found


def _returns_pretrained(value: ast.AST, place: int, ctx: ModuleContext) -> bool:
    """A call of this file's function whose every return is a tuple with a from_pretrained model at `place`."""
    func = ctx.functions.get(value.func.id) if isinstance(value, ast.Call) and isinstance(
        value.func, ast.Name) else None
    if not isinstance(func, FUNCS):
        return False
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return)]
    return bool(returns) and all(
        isinstance(r.value, ast.Tuple) and len(r.value.elts) > place and _pretrained(r.value.elts[place], ctx)
        for r in returns)


def _pretrained(expr: ast.AST, ctx: ModuleContext) -> bool:
    value = ctx.resolve(expr)
    return isinstance(value, ast.Call) and ctx.method_name(value) == "from_pretrained"


def switches_itself(call: ast.Call, receiver: ast.AST, ctx: ModuleContext) -> bool:
    """`trainer.generate(name, n)` on an object built from a class of this file or of another file of the run
    whose method switches the mode of a model it holds (`self.GAN.eval()` inside generate()): the callee
    sets the mode, not its caller."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr == "forward":
        return False
    value = ctx.resolve(receiver)
    for _ in range(4):  # Trainer(cfg).to(device)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in SETUP):
            break
        value = _moved_from(value, ctx)
    if not isinstance(value, ast.Call):
        return False
    mode = method_mode(value, func.attr, ctx)
    return mode is not None and mode != RUNS


def _eval_switched(call: ast.Call, key: str, ctx: ModuleContext) -> bool:
    """`key.eval()` is called on the same object elsewhere: in a method of the same class for `self.*`, in
    the same scope for any other name (a `model` parameter of another function is another object)."""
    def compute() -> set:
        found = set()
        for c in ctx.by_type.get(ast.Call, ()):
            if type(c.func) is ast.Attribute and c.func.attr == "eval" and not c.args:
                k = key_of(c.func.value) or ""
                found.add((k, id(ctx.enclosing_class(c)) if k.startswith("self.") else id(ctx.scope_of(c))))
        return found
    switched = ctx.memo(("modes", "eval-switched-keys"), compute)
    where = id(ctx.enclosing_class(call)) if key.startswith("self.") else id(ctx.scope_of(call))
    return (key, where) in switched


def _off(value: ast.AST) -> bool:
    return isinstance(value, ast.Constant) and value.value in (False, None, "")  # pretrained=False


def untrained_here(receiver: ast.AST, key: str, scope: ast.AST, ctx: ModuleContext) -> bool:
    """A model built in this very scope from a class, given no weights and not trained here: a smoke test
    of shapes (`enc = EncoderRNN(10, 10); print(enc(x).size())`), whose numbers mean nothing either way."""
    root = key.split(".")[0]
    if isinstance(scope, ast.Module):
        return _module_smoke_test(receiver, root, ctx)
    if not ctx.bindings.get(scope, {}).get(root):
        return False
    value = ctx.resolve(receiver)
    if not isinstance(value, ast.Call) or ctx.scope_of(value) is not scope:
        return False
    name = (ctx.call_name(value) or ident(value.func) or "").rsplit(".", 1)[-1]
    if not name[:1].isupper():
        return False  # a function may load weights inside
    if isinstance(receiver, ast.Name) and any(
            isinstance(v, ast.Call) and any(w in (ident(v.func) or "").lower() for w in ("pretrained", "load"))
            for v in ctx.values_of(receiver, at=receiver)):
        return False  # a branch loads trained weights (`if name: model = X.from_pretrained(...) else: X(...)`)
    inner = strip_calls(value.args[0], SETUP) if value.args else None
    if isinstance(inner, ast.Name) and model_like(inner, ctx):
        return False  # a wrapper (MMDataParallel(model.cuda())) of a model set up before it
    for call in scope_calls(scope, ctx):
        func = call.func
        if isinstance(func, ast.Attribute) and "load" in func.attr and key_of(func.value) == key:
            return False  # model.load_state_dict(...)
        if "load" in (ident(func) or "") and call.args and key_of(call.args[0]) == key:
            return False  # load_checkpoint(model, path)
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            return False
    return True


def _module_smoke_test(receiver: ast.AST, root: str, ctx: ModuleContext) -> bool:
    """A script's global built from a class at module level and only ever run, moved or read there
    (`decoder_test = Decoder(...)`, `decoder_test.cuda()`, `decoder_test(x)`, `decoder_test.hidden_size`):
    no weights, no optimiser, no function of the file is handed it, so its outputs are a check of shapes."""
    if not isinstance(receiver, ast.Name) or receiver.id != root:
        return False
    value = ctx.resolve(receiver)
    if not (isinstance(value, ast.Call) and ctx.scope_of(value) is ctx.tree and (
            ident(value.func) or "")[:1].isupper()):
        return False
    arguments = [*value.args, *(k.value for k in value.keywords)]
    if any(k.arg and WEIGHTS.search(k.arg) and not _off(k.value) for k in value.keywords) or any(
            isinstance(a, ast.Name | ast.Attribute) and model_like(a, ctx) for a in arguments):
        return False  # given weights (pretrained=...), or a wrapper of another model (MCD(model))
    for name in ctx.by_type.get(ast.Name, ()):
        if name.id != root or isinstance(name.ctx, ast.Store) and ctx.scope_of(name) is ctx.tree:
            continue
        parent = ctx.parent(name)
        if isinstance(parent, ast.Call) and parent.func is name:
            continue  # run
        if isinstance(parent, ast.Attribute) and parent.value is name and not (
                parent.attr in {"parameters", "named_parameters", "state_dict", "train", "eval", "apply"}
                or "load" in parent.attr):
            continue  # moved (.cuda()) or read (.hidden_size)
        return False  # handed on, loaded, optimised, switched, or bound elsewhere
    return True


def ready_from_loader(receiver: ast.AST, ctx: ModuleContext) -> bool:
    """Built by a project's wrapper class from another file that is handed the weights
    (`DetectMultiBackend(weights)`): putting the model in eval mode is the wrapper's job, out of sight here.
    A loader function (`load_model(ckpt_path)`) returns the model as built, unless another file of the run
    defines it and it switches to eval mode (project facts).
    Model zoos (torchvision, timm) build in training mode whatever the weights, and torch.load keeps the
    mode the model was saved in: they do not count."""
    value = ctx.resolve(receiver)
    for _ in range(4):  # model = Loader(w).to(device)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in SETUP):
            break
        value = _moved_from(value, ctx)
    if not isinstance(value, ast.Call) or (ctx.call_name(value) or "").split(".")[0] in MODEL_ZOOS:
        return False
    name = ident(value.func) or ""
    if name in ctx.classes or name in ctx.functions or local_targets(value, ctx):
        return False  # this file's loader: the switches it makes are followed where it is called
    known = callee_mode(value, ctx)
    if known is not None:
        return known == "eval"  # another file of the run defines the loader
    if not name[:1].isupper():
        return False  # a loader function returns the model as it built it (load_model(path), load_clip(...))
    if key_of(receiver) in state_dict_owners(ctx):
        return False  # GPT(GPTConfig(**ckpt["model_args"])) then gpt.load_state_dict(...): built from a config
    if any(k.arg and WEIGHTS.search(k.arg) and not _off(k.value) for k in value.keywords):
        return True
    return any(WEIGHTS.search((ident(n) or "").lower()) for a in [*value.args, *(k.value for k in value.keywords)]
               for n in ast.walk(a) if isinstance(n, ast.Name | ast.Attribute))


def _moved_from(move: ast.Call, ctx: ModuleContext) -> ast.AST:
    """What `x.to(device)` moves: the value `x` held before, also when the move is assigned back to `x`
    (`net = net.to(device)`, where the latest assignment of `net` is the move itself)."""
    moved = move.func.value
    for value in ctx.values_of(moved, moved):
        if value is not move:
            return ctx.resolve(value) if isinstance(value, ast.Name | ast.Attribute) else value
    return moved


def mode_free(func: ast.AST, ctx: ModuleContext, depth: int = 0) -> bool:
    """The called model is known to hold no dropout/BatchNorm (or starts in eval mode: from_pretrained,
    also through a function that wraps it: get_peft_model(base), torch.compile(model))."""
    value = ctx.resolve(func)
    for _ in range(4):  # Pipeline.from_pretrained(path).to(device)
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in SETUP):
            break
        value = _moved_from(value, ctx)
    if not isinstance(value, ast.Call):
        return False
    if ctx.method_name(value) == "from_pretrained" or "pretrained" in (ident(value.func) or "").lower():
        return not _own_loader_in_train_mode(value, ctx)
    wrapped = value.args[0] if value.args and isinstance(value.args[0], ast.Name | ast.Attribute) else None
    keeps_mode = not (ident(value.func) or "")[:1].isupper() or ctx.call_name(value) in PARALLEL_WRAPPERS
    if wrapped is not None and depth < 3 and keeps_mode and wrapped is not func:
        if ctx.resolve(wrapped) is value:  # `model = nn.DataParallel(model)`: what the name held before
            others = [v for v in ctx.values_of(wrapped) if v is not value]
            if others and all(isinstance(v, ast.Call) and _free_build(v, ctx, 0) for v in others):
                return True
        elif mode_free(wrapped, ctx, depth + 1):
            return True  # a wrapper function keeps the mode of the model it wraps
    return _free_build(value, ctx, 0)


def _own_loader_in_train_mode(value: ast.Call, ctx: ModuleContext) -> bool:
    """`HyenaDNAPreTrainedModel.from_pretrained(path)` of a class of this file whose from_pretrained builds the
    model and loads its weights without eval(): unlike the libraries' from_pretrained, it returns it training."""
    func = value.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ctx.classes):
        return False
    method = next((m for m in ctx.classes[func.value.id].body
                   if isinstance(m, ast.FunctionDef) and m.name == func.attr), None)
    return method is not None and not any(
        isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in ("eval", "train")
        for c in ast.walk(method))


def _free_build(value: ast.AST, ctx: ModuleContext, depth: int, needs: set[str] | None = None) -> bool:
    """What the call builds computes the same in both modes. A class of another file of the run counts as the
    project fact (modes_facts.free_keys) says; while that fact is computed (`needs` given), such classes are collected."""
    name = ctx.call_name(value)
    if name in ctx.classes and depth < 3:
        return _class_free(ctx.classes[name], ctx, depth, needs)
    if free_layer(value, name, ctx):
        return True
    other = _other_files_class(value, name, ctx)
    if other is None:
        return False
    if needs is not None:
        needs.add(other)
        return True
    return external_free(other, ctx, 3)


# `mode:@~free:<module>.<Class>@<scope>` -> 'free' for a model class built only of mode-free layers, or
# 'needs:<m.C>,...' when that holds once the classes of other files it builds are mode-free too; told for the
# telling file's project only (modes_facts.free_keys)
NOT_PROJECT = {"torch", "torchvision", "torchaudio", "torchtext", "timm", "transformers", "numpy", "scipy",
               "sklearn", "segmentation_models_pytorch", "diffusers", "builtins"}


def _other_files_class(value: ast.AST, name: str | None, ctx: ModuleContext) -> str | None:
    """'model.RecurrentAttention' for `RecurrentAttention(...)` imported from the project's model.py."""
    from .modes_facts import relative_import  # modes_facts imports this module
    qualname = name or (relative_import(value.func, ctx) if isinstance(value, ast.Call) else None) or ""
    parts = qualname.lstrip(".").split(".")
    if len(parts) < 2 or parts[0] in NOT_PROJECT or parts[0] in NO_LAYER_ROOTS or not parts[-1][:1].isupper():
        return None
    return f"{parts[-2]}.{parts[-1]}"


def external_free(other: str, ctx: ModuleContext, depth: int) -> bool:
    """Another file of the run says its class `other` is built only of mode-free layers."""
    from .modes_facts import free_told  # modes_facts imports this module
    told = free_told(ctx, other)
    if told == "free":
        return True
    return bool(told) and told.startswith("needs:") and depth > 0 and all(
        external_free(n, ctx, depth - 1) for n in told[6:].split(","))


def class_needs(cls: ast.ClassDef, ctx: ModuleContext) -> frozenset[str] | None:
    """None when the class holds a mode-dependent layer; else the classes of other files it builds (empty:
    mode-free whatever they are)."""
    def compute():
        needs: set[str] = set()
        return frozenset(needs) if _class_free(cls, ctx, 0, needs) else None
    return ctx.memo(("modes", "class-needs", id(cls)), compute)


def free_layer(value: ast.Call, name: str | None, ctx: ModuleContext | None = None) -> bool:
    """A torch layer whose output does not depend on the mode: Linear, Conv, Embedding, LayerNorm, an
    LSTM/GRU of one layer whatever its dropout=, an InstanceNorm without running statistics, and containers
    of such layers."""
    if not name:
        return False
    if RECURRENT.match(name):
        return _one_layer_or_no_dropout(value)
    if INSTANCE_NORM.match(name):
        tracks = next((k.value for k in value.keywords if k.arg == "track_running_stats"), None)
        return tracks is None or _off(tracks)
    if not MODE_FREE.match(name):
        return False
    if name not in CONTAINERS:
        return True  # nn.Parameter(torch.randn(d)): what it is built from is no layer
    return all(isinstance(a, ast.Call) and _free_layer_call(a, ctx) for a in value.args if isinstance(a, ast.Call))


def _free_layer_call(call: ast.Call, ctx: ModuleContext | None = None) -> bool:
    return free_layer(call, _torch_nn_name(call)) or _data_transform(call, ctx)


def _data_transform(call: ast.Call, ctx: ModuleContext | None) -> bool:
    """`torchaudio.transforms.TimeMasking(...)`, `transforms.RandomCrop(...)` in a container: a data transform or
    augmentation, which reads no training flag (it augments in eval mode too)."""
    name = (ctx.qualname(call.func) if ctx is not None else None) or ast.unparse(call.func)
    return bool(re.search(r"(^|\.)transforms\.\w+$", name))


def _torch_nn_name(call: ast.Call) -> str | None:
    """`nn.Linear(...)` / `torch.nn.Linear(...)` -> 'torch.nn.Linear' (inside a container, without the context)."""
    func = call.func
    if isinstance(func, ast.Attribute) and (
            isinstance(func.value, ast.Name) and func.value.id == "nn" or isinstance(func.value, ast.Attribute)
            and func.value.attr == "nn" and isinstance(func.value.value, ast.Name) and func.value.value.id == "torch"):
        return f"torch.nn.{func.attr}"
    return None


def _one_layer_or_no_dropout(call: ast.Call) -> bool:
    """nn.LSTM(in, hidden, num_layers, bias, batch_first, dropout, ...): PyTorch applies dropout= to the
    outputs of each layer except the last, so with one layer (or no dropout) train and eval compute the same."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    dropout = keywords.get("dropout", call.args[5] if len(call.args) > 5 else None)
    if dropout is None or (isinstance(dropout, ast.Constant) and dropout.value in (0, 0.0)):
        return True
    layers = keywords.get("num_layers", call.args[2] if len(call.args) > 2 else None)
    return layers is None or (isinstance(layers, ast.Constant) and layers.value == 1)


MODULE_BASES = {"Module", "nn.Module", "torch.nn.Module", "object"}


def class_mode_free(cls: ast.ClassDef, ctx: ModuleContext, depth: int = 0) -> bool:
    """A model class of this file built only of layers whose output does not depend on the mode (Linear,
    Conv, Embedding, LayerNorm, a one-layer LSTM whatever its dropout=, classes of this file or of another
    file of the run built so), that never reads self.training nor names dropout or a batch norm: eval()
    changes nothing it computes."""
    return ctx.memo(("modes", "class-mode-free", id(cls), depth), lambda: _class_free(cls, ctx, depth, None))


def _class_free(cls: ast.ClassDef, ctx: ModuleContext, depth: int, needs: set[str] | None) -> bool:
    if depth >= 3 or not all(ast.unparse(b) in MODULE_BASES or (
            isinstance(b, ast.Name) and b.id in ctx.classes and ctx.classes[b.id] is not cls
            and _class_free(ctx.classes[b.id], ctx, depth + 1, needs)) for b in cls.bases):
        return False  # another file's base class may hold dropout or BatchNorm
    if _runs_handed_module(cls):
        return False  # `self.encoder = encoder` from the caller, then self.encoder(x): any layers
    free_calls = [n for n in ast.walk(cls) if isinstance(n, ast.Call) and free_layer(n, ctx.call_name(n), ctx)]
    inside = {id(m) for c in free_calls for m in ast.walk(c)}
    free_attrs = _attrs_assigned_only(cls, free_calls)
    for node in ast.walk(cls):
        if id(node) in inside:
            continue
        word = ident(node) or ""
        if not MODE_WORDS.search(word) or MODE_FREE_WORDS.match(word):
            continue
        if isinstance(node, ast.Attribute) and (word in free_attrs or word == "norm" and not (
                isinstance(node.value, ast.Name) and node.value.id == "self")):
            continue  # self.norm = nn.LayerNorm(d); x.norm(dim=-1) of a tensor
        return False
    # the layers it builds: classes, and whatever a builder function returns into an attribute
    # (`self.backbone = torchvision.models.resnet50()` holds BatchNorm whatever its lower-case name)
    raised = {id(n.exc) for n in ast.walk(cls) if isinstance(n, ast.Raise)}  # ValueError(...): no layer
    built = [n for n in ast.walk(cls) if isinstance(n, ast.Call) and id(n) not in inside and (
        ident(n.func) or "")[:1].isupper() and id(n) not in raised and not _no_layer(n, ctx)] + [
        n.value for n in ast.walk(cls) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and any(
            isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
            for t in n.targets) and not (ident(n.value.func) or "")[:1].isupper() and id(n.value) not in inside
        and not _own_method(n.value, cls) and not _no_layer(n.value, ctx)]  # `self.device = torch.device(...)`
    return all(_free_build(b, ctx, depth + 1, needs) for b in built)


def _runs_handed_module(cls: ast.ClassDef) -> bool:
    """A method calls `self.x(...)` where x is assigned a parameter of a method (a module handed in)."""
    handed = set()
    for method in cls.body:
        if not isinstance(method, FUNCS):
            continue
        params = {a.arg for a in [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs]}
        for node in ast.walk(method):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in params:
                handed |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)
                           and isinstance(t.value, ast.Name) and t.value.id == "self"}
    return bool(handed) and any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and (
            n.func.attr in handed and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"
            or n.func.attr == "forward" and isinstance(n.func.value, ast.Attribute) and n.func.value.attr in handed)
        for n in ast.walk(cls))


def _own_method(call: ast.Call, cls: ast.ClassDef) -> bool:
    """`self._make_layer(...)`: a method of the class, whose body the walk of the class already read."""
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and any(
        isinstance(m, FUNCS) and m.name == func.attr for m in cls.body)


NO_LAYER_ROOTS = {"numpy", "math", "collections", "typing", "dataclasses", "functools", "itertools", "pathlib",
                  "logging", "warnings", "re", "os", "sys",
                  # non-torch libraries: an estimator or a frame is no layer (`LinearRegression().fit(...)`)
                  "sklearn", "scipy", "pandas", "statsmodels", "xgboost", "lightgbm", "PIL", "cv2"}


def _no_layer(call: ast.Call, ctx: ModuleContext) -> bool:
    """A tensor or a plain value (`torch.FloatTensor(x)`, `Variable(t)`, `np.Array`, `OrderedDict()`): torch's
    names outside torch.nn (and torch.hub) build no layer."""
    name = ctx.call_name(call) or ""
    root = name.split(".")[0]
    return root in NO_LAYER_ROOTS or root == "torch" and not name.startswith(("torch.nn.", "torch.hub."))


def _attrs_assigned_only(cls: ast.ClassDef, free_calls: list[ast.Call]) -> set[str]:
    """Attribute names of self that the class assigns only mode-free layers (`self.norm = nn.LayerNorm(d)`)."""
    free = {id(c) for c in free_calls}
    assigned: dict[str, bool] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    assigned[t.attr] = assigned.get(t.attr, True) and id(node.value) in free
    return {name for name, only in assigned.items() if only}


def handed_in(receiver: ast.AST, scope: ast.AST, ctx: ModuleContext) -> bool:
    """The model comes from a caller: a parameter of the scope, or `self.x` that its class only assigns from
    a parameter (or never assigns: a framework sets it)."""
    key = key_of(receiver) or ""
    root, _, rest = key.partition(".")
    if root != "self":
        args = getattr(scope, "args", None)
        return args is not None and root in {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    cls = ctx.enclosing_class(scope)
    values = ctx.class_attrs.get(cls.name, {}).get(rest.split(".")[0], []) if cls is not None and rest else []
    return not any(isinstance(v, ast.Call) for v in values)
