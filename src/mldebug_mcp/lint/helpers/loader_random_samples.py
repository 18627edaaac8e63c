"""Dataset classes whose order means nothing (MLD050): their samples are fresh random draws, or they stream.

`RandomClassificationDataset` whose `__getitem__` returns `self.x[i], self.y[i]` with `self.x = torch.randn(...)`,
or an `__iter__` that yields `torch.randn(...)`: i.i.d. random samples carry no label, source or time order
for a shuffle to break up. An IterableDataset cannot be shuffled by a DataLoader at all. Test suites and
smoke runs build such classes in one file (tests/common/datasets.py) and train on them in many others, so
the class is told to the run as a scoped project fact: random-samples:<class name>.
"""

import ast

from ..context import ModuleContext
from .graph import callee

RANDOM_SAMPLES = "random-samples"
# fresh random draws: a dataset of them (TensorDataset(torch.rand(n, d), ...)) is in no order to keep
RANDOM_DRAWS = {"torch.rand", "torch.randn", "torch.randint", "torch.normal", "torch.rand_like", "torch.randn_like",
                "numpy.random.rand", "numpy.random.randn", "numpy.random.uniform", "numpy.random.normal"}
SHUFFLES = {"numpy.random.shuffle", "random.shuffle"}
PERMUTATIONS = {"numpy.random.permutation", "torch.randperm", "random.sample"}
SELF_SHUFFLING = "shuffles-itself"
ITERABLE = {"torch.utils.data.IterableDataset", "torch.utils.data.dataset.IterableDataset"}
SAMPLING = ("__getitem__", "__iter__")
# calls that keep a tensor's values: `self.x[i].to(device)` is still the random draw
SAME_VALUES = {"to", "float", "long", "cuda", "clone", "view", "reshape", "squeeze", "unsqueeze"}


def random_sample_classes(ctx: ModuleContext) -> dict[str, int]:
    """Classes of this file (and their subclasses here that keep the sampling) whose samples are random draws or
    that are IterableDatasets: class name -> line."""
    def compute() -> dict[str, int]:
        if not ctx.classes or not (ctx.has_text("rand") or ctx.has_text("IterableDataset")):
            return {}
        # a class with no random draw inside it: only an IterableDataset base can make it unordered
        drawing = _classes_around(ctx, _calls_named(ctx, RANDOM_DRAWS))
        found = {cls.name: cls.lineno for cls in ctx.classes.values() if _unordered(cls, ctx, cls in drawing)}
        for _ in range(3):  # subclasses that inherit the sampling
            more = {cls.name: cls.lineno for cls in ctx.classes.values() if cls.name not in found
                    and any(isinstance(b, ast.Name) and b.id in found for b in cls.bases)
                    and not any(isinstance(f, ast.FunctionDef) and f.name in SAMPLING for f in cls.body)}
            if not more:
                break
            found.update(more)
        return found
    return ctx.memo(("loader-random-samples",), compute)


def self_shuffling_classes(ctx: ModuleContext) -> dict[str, int]:
    """Classes of this file that shuffle their own sample list (`np.random.shuffle(self.list_sample)`,
    `self.order = torch.randperm(n)`): a dataset that builds its own batches in a random order, handed to a
    DataLoader with shuffle=False on purpose (MLD050 only: it may still draw augmentations). Class -> line."""
    def compute() -> dict[str, int]:
        if not ctx.classes or not (ctx.has_text("shuffle") or ctx.has_text("permutation") or ctx.has_text("randperm")):
            return {}
        # the classes around a shuffle of a self attribute or a permutation assigned to one (what a walk of
        # each class would find)
        shuffling = _classes_around(ctx, [c for c in _calls_named(ctx, SHUFFLES | PERMUTATIONS) if _shuffles(c, ctx)])
        return {cls.name: cls.lineno for cls in ctx.classes.values() if cls in shuffling}
    return ctx.memo(("loader-self-shuffling",), compute)


def _shuffles(call: ast.Call, ctx: ModuleContext) -> bool:
    """`np.random.shuffle(self.x)`, or `self.order = torch.randperm(n)` (the call is the assigned value)."""
    if ctx.call_name(call) in SHUFFLES and call.args and _on_self(call.args[0]):
        return True
    assign = ctx.parent(call)
    return isinstance(assign, ast.Assign) and assign.value is call and any(_on_self(t) for t in assign.targets) \
        and ctx.call_name(call) in PERMUTATIONS


def _classes_around(ctx: ModuleContext, calls: list[ast.Call]) -> set[ast.ClassDef]:
    """Every class (nested ones and those around them) a walk of which meets one of `calls`."""
    return {a for c in calls for a in ctx.ancestors(c) if isinstance(a, ast.ClassDef)}


def dataset_class_told(name: str, ctx: ModuleContext, facts: tuple[str, ...]) -> bool:
    """`name` is a class with one of `facts` (RANDOM_SAMPLES, SELF_SHUFFLING): a class of this file as this file
    finds it, another file's as the file that defines it tells the run."""
    if name in ctx.classes:
        return any(name in _FOUND_HERE[fact](ctx) for fact in facts)
    from .loader_facts import told_in_scope  # loader_facts imports this module
    return any(told_in_scope(ctx, f"{fact}:{name}") is not None for fact in facts)


_FOUND_HERE = {RANDOM_SAMPLES: random_sample_classes, SELF_SHUFFLING: self_shuffling_classes}


def _on_self(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"


def random_draw(expr: ast.AST, ctx: ModuleContext) -> bool:
    return isinstance(expr, ast.Call) and ctx.call_name(expr) in RANDOM_DRAWS


def _calls_named(ctx: ModuleContext, names: set[str]) -> list[ast.Call]:
    """The calls of the module to one of `names` (dotted): once per module and set of names, a look at each
    call's last name first (call_name is that name after its qualified receiver, or an alias)."""
    def compute() -> list[ast.Call]:
        last = {n.rsplit(".", 1)[-1] for n in names}
        aliases = ctx.aliases
        return [call for call in ctx.by_type.get(ast.Call, ())
                if (type(call.func) is ast.Attribute and call.func.attr in last
                    or type(call.func) is ast.Name and aliases.get(call.func.id) in names)
                and ctx.call_name(call) in names]
    return ctx.memo(("loader-calls-named", frozenset(names)), compute)


def _unordered(cls: ast.ClassDef, ctx: ModuleContext, draws: bool) -> bool:
    if any(ctx.qualname(b) in ITERABLE for b in cls.bases):
        return True
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
    if "__getitem__" in methods and _episodic(cls, methods["__getitem__"], ctx):
        return True
    if not draws:  # no random draw in the class: no sample part can be one
        return False
    sampling = [methods[name] for name in SAMPLING if name in methods]
    if not sampling:
        return False
    drawn = _random_attributes(cls, ctx)
    values = [n.value for f in sampling for n in ast.walk(f)
              if isinstance(n, ast.Return | ast.Yield) and n.value is not None]
    parts = [e for v in values for e in (v.elts if isinstance(v, ast.Tuple) else [v])]
    return bool(parts) and all(_random_part(p, drawn, ctx) for p in parts)


RANDOM_MODULES = ("numpy.random.", "random.", "torch.rand")


def _episodic(cls: ast.ClassDef, getitem: ast.FunctionDef, ctx: ModuleContext) -> bool:
    """`__getitem__(self, index)` that never reads its index while the class draws at random (a few-shot
    episode of `np.random.choice(classes, n_way)`): every item is a fresh draw, so there is no order to shuffle."""
    params = getitem.args.args
    if len(params) < 2:
        return False
    index = params[1].arg
    if any(isinstance(n, ast.Name) and n.id == index for n in ast.walk(getitem)):
        return False
    return any(isinstance(n, ast.Call) and (ctx.call_name(n) or "").startswith(RANDOM_MODULES) for n in ast.walk(cls))


def _random_attributes(cls: ast.ClassDef, ctx: ModuleContext) -> set[str]:
    """`self.x` whose every assignment in the class is a random draw (or None, filled lazily)."""
    assigned: dict[str, list[ast.expr]] = {}
    for node in ast.walk(cls):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) and node.value is not None else []
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                assigned.setdefault(target.attr, []).append(node.value)
    return {attr for attr, values in assigned.items() if any(random_draw(v, ctx) for v in values)
            and all(random_draw(v, ctx) or isinstance(v, ast.Constant) and v.value is None for v in values)}


def _random_part(expr: ast.AST, drawn: set[str], ctx: ModuleContext) -> bool:
    """One element of a returned sample: a random draw, an entry of a randomly drawn attribute, or those
    through indexing and dtype/device moves."""
    while True:
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Call) and ctx.call_name(expr) is None and ctx.method_name(expr) in SAME_VALUES:
            expr = expr.func.value
        else:
            break
    if random_draw(expr, ctx):
        return True
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self" \
        and expr.attr in drawn


# library datasets draw their augmentations (torchvision transforms) from torch's RNG, reseeded per worker
LIBRARY_DATASETS = ("torchvision.", "torchaudio.", "torchtext.")
LIBRARY_TRANSFORMS = ("torchvision.", "torchaudio.", "torch.")


def runs_no_project_transform(dataset: ast.AST | None, ctx: ModuleContext) -> bool:
    """MLD053: the loader's dataset cannot run an augmentation function of the project: a library dataset
    (`datasets.MNIST(root, transform=transforms.Compose([transforms.ToTensor()]))`) handed only library
    transforms, constants and plain names, or a class whose samples are random draws (told by its file)."""
    built = ctx.resolve(dataset) if isinstance(dataset, ast.Name | ast.Attribute) else dataset
    if not isinstance(built, ast.Call):
        return False
    name, short = ctx.call_name(built) or "", callee(built.func)
    if short in random_sample_classes(ctx):
        return True
    if not name.startswith(LIBRARY_DATASETS):
        return bool(short) and dataset_class_told(short, ctx, (RANDOM_SAMPLES,))
    if any(k.arg is None for k in built.keywords) or any(isinstance(a, ast.Starred) for a in built.args):
        return False
    return all(_library_only(v, ctx) for v in [*built.args, *(k.value for k in built.keywords)])


def _library_only(expr: ast.AST, ctx: ModuleContext) -> bool:
    if isinstance(expr, ast.Name | ast.Attribute):
        expr = ctx.resolve(expr)
    if isinstance(expr, ast.Lambda):
        return False
    calls = [n for n in ast.walk(expr) if isinstance(n, ast.Call)]
    return all((ctx.call_name(c) or "").startswith(LIBRARY_TRANSFORMS) for c in calls)
