"""Where a model is evaluated: evaluation loaders and functions by name, model calls, eval()/train()
switches, no_grad regions written around a node, and the calls of a scope (MLD020-MLD022)."""

import ast
import re
from functools import lru_cache

from ..context import CHILD_FIELDS, ModuleContext, node_fields
from .loops import calls_in_order
from .modes_handed_models import (
    handed_a_model,
    key_of,
    may_be_handed,
    module_statement_owners,
)

EVAL_WORDS = {"val", "valid", "validation", "test", "testing", "eval", "evaluation", "dev", "holdout"}
LOADER_WORD = re.compile(r"(val|valid|test|eval|dev)(loader|dataloader|dl|set|dataset|ds|data|iter|batches)s?")
# named like a model, or for a network architecture whose name lacks "net" (inception_v3, vgg, lpips)
MODEL_NAME = re.compile(r"model|net|backbone|encoder|decoder|classifier|inception|vgg|lpips")
MODE_VERBS = {"set", "eval", "train", "training", "evaluation", "switch", "toggle"}
# a plain callable named after a model: classifier_fn, encoder_func, net_hook
CALLABLE = re.compile(r"(^|_)(fn|func|function|callback|hook)s?$")
MODEL_BASE = re.compile(r"Module|Model|Net")
LOSS_NAME = re.compile(r"loss|criterion")
NOT_MODEL = re.compile(r"^(get|build|create|load|make|init|setup|save|train|eval|test|run|unwrap)_")


CAMEL = re.compile(r"([a-z0-9])([A-Z])")
ACRONYM = re.compile(r"([A-Z]+)([A-Z][a-z])")  # FIDEvaluation -> FID_Evaluation


@lru_cache(maxsize=65_536)  # names repeat across calls and files; the split is pure, so it may outlive a file
def tokens(name: str) -> tuple[str, ...]:
    return tuple(CAMEL.sub(r"\1_\2", ACRONYM.sub(r"\1_\2", name)).lower().replace("-", "_").split("_"))


def is_eval_loader(expr: ast.AST) -> bool:
    """A loop iterable naming a validation/test/dev loader (`val_loader`, `testloader`, `self.val_dl`): a word of
    its names is an evaluation word and none is `train`."""
    evaluation = False
    for name in _names(expr):
        train, named = _loader_words(name)
        if train:
            return False
        evaluation = evaluation or named
    return evaluation


@lru_cache(maxsize=65_536)  # asked of every loop of a file, and names repeat: pure, so it may outlive a file
def _loader_words(name: str) -> tuple[bool, bool]:
    """Whether a name has the word `train`, and whether it has an evaluation or evaluation-loader word."""
    words = tokens(name)
    return "train" in words, any(w in EVAL_WORDS or LOADER_WORD.fullmatch(w) for w in words)


def _names(expr: ast.AST) -> list[str]:
    """The names and attributes in an expression (what ast.walk's nodes have as idents; the other nodes give
    no word that counts), by the fields that may hold a node."""
    found, stack, table = [], [expr], CHILD_FIELDS
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            found.append(node.id)
        elif kind is ast.Attribute:
            found.append(node.attr)
        fields = table.get(kind)
        for field in fields if fields is not None else node_fields(kind):
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
    return found


def ident(node: ast.AST) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def uses_torch(ctx: ModuleContext) -> bool:
    """torch is imported, or reached through a star import (`from project.pytorch.layers import *` and
    then `torch.no_grad()`)."""
    return ctx.memo(("uses-torch",), lambda: any(v.split(".")[0] == "torch" for v in ctx.aliases.values()) or (
        ctx.has_text("import *") and ctx.has_text("torch.") and any(
            any(a.name == "*" for a in n.names) for n in ctx.by_type.get(ast.ImportFrom, ()))))


NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def own_nodes(func: ast.AST, ctx: ModuleContext | None = None) -> list[ast.AST]:
    """Nodes of a function body, not entering nested defs or classes (nor expression contexts and operators,
    which no caller asks about). With `ctx`, walked once per function and module."""
    if ctx is not None:
        return ctx.memo(("own-nodes", id(func)), lambda: own_nodes(func))
    body = getattr(func, "body", [])
    # a lambda's body is one expression; a def or class in the body is its own scope (a closure)
    stack = [n for n in body if not isinstance(n, NESTED)] if isinstance(body, list) else [body]
    found = []
    AST, table = ast.AST, CHILD_FIELDS  # fields that may hold a node: the same nodes, in the same order
    pop, push, keep = stack.pop, stack.append, found.append
    while stack:
        node = pop()
        keep(node)
        fields = table.get(type(node))
        if fields is None:
            fields = node_fields(type(node))
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for child in value:
                    if isinstance(child, AST) and not isinstance(child, NESTED):
                        push(child)
            elif isinstance(value, AST) and not isinstance(value, NESTED):
                push(value)
    return found


def model_call(call: ast.Call, ctx: ModuleContext) -> bool:
    """`model(x)`, `self.net(x)`, `model.forward(x)`, `self(x)` in an nn.Module; not constructors."""
    func = call.func.value if isinstance(call.func, ast.Attribute) and call.func.attr == "forward" else call.func
    return model_like(func, ctx)


def model_like(func: ast.AST, ctx: ModuleContext) -> bool:
    """An expression (in the tree) that holds a model: built from a model class, or named like one."""
    cache = ctx.memo(("model-like",), dict)  # MLD020 and MLD022 ask about every call
    found = cache.get(func)
    if found is None:
        cache[func] = False  # asked again while answering (a parameter handed itself on): not known to be one
        found = cache[func] = _model_like(func, ctx)
    return found


def _model_like(func: ast.AST, ctx: ModuleContext) -> bool:
    name = ident(func)
    if name is None or ctx.qualname(func) is not None or name in ctx.functions or (
            isinstance(func, ast.Name) and name in relative_names(ctx)):
        return False  # imported or local callables are constructors/functions, not model instances
    if _constructor(func) or _unbound_class(func, ctx):
        return False  # `transformers.DataCollatorForLanguageModeling(...)` of a module bound at run time
    if name == "self":
        cls = ctx.enclosing_class(func)
        return cls is not None and any("Module" in (ident(b) or "") for b in cls.bases)
    if _local_function(func, ctx):
        return False
    built = ctx.constructed(func) or ""
    if built in ctx.classes:
        return model_class(ctx.classes[built], ctx)  # clf = Net(), not builder = ExprBuilder()
    if built.startswith("torch.nn.") and built[9:10].isupper() and not built.endswith("Loss"):
        return True  # mlp = nn.Sequential(...)
    if IMPORTED_MODEL_CLASS.search(built.rsplit(".", 1)[-1]) or (built and _given_weights_and_moved(func, ctx)):
        return True  # segmenter = UNet(3, 2); gpt = GPT(cfg) given a state dict and moved to the GPU
    if NOT_MODEL_CLASS.search(built.rsplit(".", 1)[-1]):
        return False  # self.autoencoder_resizer = CenterSpatialCrop(...): a transform, whatever its name
    lowered = name.lower()
    if not built and isinstance(func, ast.Attribute) and LOSS_NAME.search(func.attr.lower()):
        return False  # `self.loss(prediction, y)`: a criterion handed in and moved to the device, not a model
    # `accelerator.unwrap_model(model)`, `trainer.get_model()`: a method that hands back a model, not one
    if MODEL_NAME.search(lowered) and not NOT_MODEL.match(lowered.rsplit(".", 1)[-1]) and not CALLABLE.search(lowered):
        return True
    return _holds_module(func, ctx) or _wraps_model(func, ctx) or (
        isinstance(func, ast.Name) and handed_a_model(func, ctx, model_like))


def _constructor(func: ast.AST) -> bool:
    """`mod.SomeClass`: a CamelCase attribute of a name other than self (a class of a module, built by the
    call); `self.G`, `nets.D` are single letters held by an object."""
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id != "self"
            and _camel_case(func.attr))


def _camel_case(name: str) -> bool:
    """CamelCase (`SomeClass`, `ModelCheckpoint`: a capital, then both cases); not `G`, `MODEL` nor `Net`."""
    return name[:1].isupper() and any(c.islower() for c in name[1:]) and any(c.isupper() for c in name[1:])


def _unbound_class(func: ast.AST, ctx: ModuleContext) -> bool:
    """`ModelCheckpoint(...)` of a `from callbacks import *`: a CamelCase name this file never binds is a class the
    star import brought (a constructor), not a model instance; `G(z)`, `D(x)` are single letters."""
    if not isinstance(func, ast.Name):
        return False
    return _camel_case(func.id) and func.id not in bound_names(ctx)


def bound_names(ctx: ModuleContext) -> frozenset[str]:
    """The names some scope of the file assigns or takes as a parameter (ctx.bindings: imports, defs and classes
    are not among them)."""
    return ctx.memo(("evaluation", "bound-names"),
                    lambda: frozenset(n for names in ctx.bindings.values() for n in names))


def _wraps_model(func: ast.AST, ctx: ModuleContext) -> bool:
    """Assigned only from wrappers of a model (`eval_model = MMDataParallel(model.cuda(0))`,
    `net = DDP(net)`): a module too."""
    values = ctx.values_of(func, func) if isinstance(func, ast.Name) else []
    return bool(values) and all(wraps_model(v, func, ctx) or _cut_from_model(v, ctx) for v in values)


# what a function handed a model returns when it is named for it: a loss, an optimiser, a step, a metric
NOT_A_CUT = {"loss", "losses", "criterion", "optimizer", "optimiser", "optim", "scheduler", "step", "metric",
             "metrics", "score", "scores", "params", "parameters", "count", "size", "summary", "state"}


def _cut_from_model(value: ast.AST, ctx: ModuleContext) -> bool:
    """`truncate(loader.model, layer)`, `freeze_bn(net)`: what a function of another module returns from a
    model handed first (a part of it, a wrapper): a module too, whatever either is called."""
    if not (isinstance(value, ast.Call) and value.args and isinstance(value.func, ast.Name | ast.Attribute)):
        return False
    if not ctx.qualname(value.func):
        return False  # a function of this file (it may return anything), a builtin, or a method of an object
    name = ident(value.func).lower()
    if CALLABLE.search(name) or NOT_A_CUT & set(tokens(name)):
        return False  # get_score_fn(model, train=False), get_step_fn(...), build_optimizer(model): no module
    inner = strip_calls(value.args[0], SETUP_CALLS)
    return isinstance(inner, ast.Name | ast.Attribute) and model_like(inner, ctx)


def wraps_model(value: ast.AST, func: ast.AST, ctx: ModuleContext) -> bool:
    """`Wrapper(model.cuda(0), ...)` assigned to another name than the model's."""
    if not (isinstance(value, ast.Call) and value.args and (ident(value.func) or "")[:1].isupper()):
        return False
    inner = strip_calls(value.args[0], SETUP_CALLS)
    return isinstance(inner, ast.Name) and inner.id != getattr(func, "id", None) and model_like(inner, ctx)


# methods only an nn.Module has: whatever they are called on holds a model
MODULE_METHODS = {"parameters", "named_parameters", "modules", "named_modules", "children", "named_children",
                  "buffers", "named_buffers"}
BUILDER = {"get", "build", "load", "create", "make", "init", "setup", "construct", "instantiate", "restore"}
BUILT = {"model", "net", "network", "backbone", "encoder", "decoder", "classifier", "embedder", "module",
         "detector", "segmentor", "recognizer", "generator", "discriminator"}  # mmdet's build_detector(cfg)...


# classes named for what is no network: transforms, data, schedules, metrics
NOT_MODEL_CLASS = re.compile(r"(Crop|Resize|Resizer|Transform|Normalize|Compose|Pad|Flip|Tokenizer|Scaler|Sampler"
                             r"|Scheduler|Loss|Metric|Dataset|DataLoader|Loader|Processor|Config)$")
# an imported class named for a network (UNet, ResNet50, GPTModel), not a config or data model
IMPORTED_MODEL_CLASS = re.compile(r"^[A-Z]\w*(Net|Network|Model)\d*$")


def _given_weights_and_moved(func: ast.AST, ctx: ModuleContext) -> bool:
    """Built from a class, given a state dict and moved to a device: only a module is (an optimiser is
    given a state dict but never moved)."""
    key = key_of(func)
    moved = ctx.memo(("evaluation", "moves"), lambda: {
        key_of(c.func.value) for c in ctx.by_type.get(ast.Call, ())
        if isinstance(c.func, ast.Attribute) and c.func.attr in {"to", "cuda"}})
    return key is not None and key in state_dict_owners(ctx) and key in moved


def state_dict_owners(ctx: ModuleContext) -> set[str | None]:
    """The keys of what the file calls load_state_dict on (`gpt.load_state_dict(sd)`: 'gpt')."""
    return ctx.memo(("evaluation", "state-dict-owners"), lambda: {
        key_of(c.func.value) for c in ctx.by_type.get(ast.Call, ())
        if isinstance(c.func, ast.Attribute) and c.func.attr == "load_state_dict"})


def relative_names(ctx: ModuleContext) -> dict[str, tuple[ast.ImportFrom, str]]:
    """Each name a relative import binds (`from .core import _TimesNet`: no qualified name here) -> (the first
    such import, the imported name), once per module."""
    def compute() -> dict[str, tuple[ast.ImportFrom, str]]:
        names: dict[str, tuple[ast.ImportFrom, str]] = {}
        for node in ctx.by_type.get(ast.ImportFrom, ()):
            if node.level:
                for alias in node.names:
                    names.setdefault(alias.asname or alias.name, (node, alias.name))
        return names
    return ctx.memo(("relative-imports",), compute)


def _holds_module(func: ast.AST, ctx: ModuleContext) -> bool:
    """What the value is, whatever its name: the file calls `x.parameters()` (or another method only a
    module has) on it, or it was assigned from a model builder (`self.phi = self.get_model()`,
    `net = load_network(path).to(device)`)."""
    key = key_of(func)
    if key is not None and key in _owner_keys(ctx):
        return True
    for value in ctx.values_of(func, func):
        value = strip_calls(value, SETUP_CALLS)
        words = tokens(ident(value.func) or "") if isinstance(value, ast.Call) else ()
        if words and words[0] in BUILDER and BUILT & set(words[1:]):
            return True
    return False


def module_owners(ctx: ModuleContext) -> set[str | None]:
    """The keys of what the file calls a method only a module has on (`model.parameters()`: 'model')."""
    return ctx.memo(("evaluation", "module-owners"), lambda: {
        key_of(c.func.value) for c in ctx.by_type.get(ast.Call, ())
        if isinstance(c.func, ast.Attribute) and c.func.attr in MODULE_METHODS})


def plainly_no_model(func: ast.AST, ctx: ModuleContext) -> bool:
    """model_like(func) is False for a name or attribute that holds no value this file assigns, is not named
    like a model and has no module method called on it: what most callees are (builtins, tensor methods).
    Cheaper than model_like, which answers the same for these; False when model_like must be asked."""
    kind = type(func)
    if kind is ast.Name:
        name = func.id
        if name == "self" or ctx.values_of(func, func) or model_named(name):
            return False
        return name not in _owner_keys(ctx) and not may_be_handed(func, ctx)  # the key of a name is the name
    if kind is ast.Attribute:
        name, base = func.attr, func.value
        if name == "self" or (type(base) is ast.Name and base.id == "self") or model_named(name):
            return False  # self.x: assigned in the class
        # a key ends with the attribute: most attributes end no key
        return name not in _owner_attributes(ctx) or key_of(func) not in _owner_keys(ctx)
    return True  # no name: not a model (model_like asks for one)


@lru_cache(maxsize=65_536)  # names repeat across calls and files; the answer is pure, so it may outlive a file
def model_named(name: str) -> bool:
    """MODEL_NAME found in the lowered name."""
    return MODEL_NAME.search(name.lower()) is not None


_OWNER_ATTRIBUTES, _OWNER_KEYS = ("evaluation", "module-owner-attributes"), ("evaluation", "owner-keys")


def _owner_attributes(ctx: ModuleContext) -> set[str]:
    found = ctx._memo.get(_OWNER_ATTRIBUTES)  # asked of nearly every callee: the memo read first, no closure
    if found is None:
        found = ctx.memo(_OWNER_ATTRIBUTES, lambda: {k.rsplit(".", 1)[-1] for k in _owner_keys(ctx) if k})
    return found


def _owner_keys(ctx: ModuleContext) -> set[str | None]:
    """The keys model_like may call a model whatever they are named: module methods or module statements
    (`x.to(dev)`, `x.eval()`) applied to them (one set per module: asked of nearly every callee)."""
    found = ctx._memo.get(_OWNER_KEYS)
    if found is None:
        found = ctx.memo(_OWNER_KEYS, lambda: module_owners(ctx) | module_statement_owners(ctx))
    return found


SETUP_CALLS = {"to", "cuda", "cpu", "half", "float", "double", "bfloat16"}


def strip_calls(expr: ast.AST, methods: set[str]) -> ast.AST:
    """What a chain of these method calls starts from: `model` for `model.cuda(0).half()`."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in methods:
        expr = expr.func.value
    return expr


def _local_function(func: ast.AST, ctx: ModuleContext) -> bool:
    """A nested def called by name, or a method of the enclosing class called on self, or of another class of
    the file that no class of the file assigns as an attribute (a mixin's `self.input_model(m)`)."""
    if isinstance(func, ast.Name):
        names = ctx.memo(("evaluation", "defs"), lambda: {
            f.name for kind in (ast.FunctionDef, ast.AsyncFunctionDef) for f in ctx.by_type.get(kind, ())
            if not isinstance(ctx.parent(f), ast.ClassDef)})
        return func.id in names
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(func)
        if cls is None:
            return False
        methods = ctx.memo(("evaluation", "methods", id(cls)), lambda: {
            n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)})
        if func.attr in methods:
            return True
        every = ctx.memo(("evaluation", "methods-of-every-class"), lambda: {
            n.name for c in ctx.by_type.get(ast.ClassDef, ()) for n in c.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)})
        return func.attr in every and not any(func.attr in attrs for attrs in ctx.class_attrs.values())
    return False


def model_class(cls: ast.ClassDef, ctx: ModuleContext, depth: int = 0) -> bool:
    """A class of this module that is a model: an nn.Module (or a Model/Net base) through its bases."""
    for base in cls.bases:
        name = ident(base) or ""
        if MODEL_BASE.search(name) or (ctx.qualname(base) or "").startswith("torch.nn"):
            return True
        local = ctx.classes.get(name)
        if local is not None and local is not cls and depth < 4 and model_class(local, ctx, depth + 1):
            return True
    return False


def is_eval_call(call: ast.Call) -> bool:
    """`x.eval()` or `x.train(False)`."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    attr = func.attr
    if attr == "eval":
        return not call.args and not call.keywords
    if attr != "train":  # asked of every call of a file: most are neither, and need no list of arguments
        return False
    args = call.args + [k.value for k in call.keywords if k.arg == "mode"]
    return any(isinstance(a, ast.Constant) and a.value is False for a in args)


def is_train_call(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Attribute) and call.func.attr == "train" and not is_eval_call(call)


def no_grad_expr(expr: ast.AST, ctx: ModuleContext) -> bool:
    target = expr.func if isinstance(expr, ast.Call) else expr
    last = (ctx.qualname(target) or ident(target) or "").rsplit(".", 1)[-1]
    if last == "set_grad_enabled" and isinstance(expr, ast.Call):  # set_grad_enabled(phase == "train") counts too
        return not (expr.args and isinstance(expr.args[0], ast.Constant) and expr.args[0].value is True)
    return last.endswith(("no_grad", "inference_mode"))  # a project's wrapper too: smart_inference_mode()


def under_no_grad(node: ast.AST, ctx: ModuleContext) -> bool:
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.With | ast.AsyncWith) and any(no_grad_expr(i.context_expr, ctx) for i in anc.items):
            return True
        if isinstance(anc, NESTED[:2]) and any(no_grad_expr(d, ctx) for d in anc.decorator_list):
            return True
    return False




def scope_calls(scope: ast.AST, ctx: ModuleContext) -> list[ast.Call]:
    """Calls of one scope in source order, nested defs excluded."""
    def compute():
        if isinstance(scope, ast.Module):
            return [c for c in ctx.by_type.get(ast.Call, ()) if ctx.scope_of(c) is scope]
        return list(calls_in_order(scope.body)) if isinstance(scope.body, list) else []
    return ctx.memo(("calls", id(scope)), compute)


def mode_helper(call: ast.Call) -> bool:
    """set_mode("eval"), eval_mode(model), evaluating(model): a project's own mode switch (not a getter
    such as get_quantizer_mode())."""
    words = tokens(ident(call.func) or "")
    if words[0] in {"get", "is", "has"}:
        return False
    return ("mode" in words and bool(MODE_VERBS & set(words))) or words[0] == "evaluating"
