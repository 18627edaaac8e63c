"""Random generators owned by objects that run inside DataLoader workers (MLD053).

A transform or mask function (`self.rng = np.random.RandomState()` in its constructor, drawn in `__call__`) or
a dataset that keeps a generator (built in any of its methods, or inherited from a seeding base class and
drawn as `self.random_generator.normal(...)`) is pickled into every worker as an identical copy: torch
reseeds its own generator and Python's `random` per worker, never an object's generator, so every worker
draws the same masks and augmentations unless a worker_init_fn reseeds them.
"""

from __future__ import annotations

import ast
import re

GENERATORS = {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator", "random.Random",
              "numpy.random.mtrand.RandomState"}
# draws of np.random's global state (`np.random.rand()`), also methods of a generator object
NUMPY_GLOBAL_DRAWS = frozenset({
    "rand", "randn", "randint", "random", "random_sample", "ranf", "sample", "choice", "shuffle", "permutation",
    "uniform", "normal", "standard_normal", "beta", "binomial", "poisson", "exponential", "gamma", "laplace"})
DRAWS = NUMPY_GLOBAL_DRAWS | {
    "integers", "gauss", "randrange", "permuted", "multivariate_normal", "lognormal", "dirichlet"}
# methods that run per sample, in the worker: a generator built there is fresh each call, not a copy
PER_SAMPLE = {"__call__", "__getitem__", "__getitems__", "__iter__", "__next__", "forward"}
# an attribute named as a generator, drawn by a dataset that does not build it (a seeding base class does)
GENERATOR_NAME = re.compile(r"(^|_)(np_)?(rng|random_state|random_generator|generator|prng)$", re.IGNORECASE)

BUILDER_WORDS = re.compile(r"^(RandomState|default_rng|Generator|Random)$", re.MULTILINE)
GENERATOR_WORD = re.compile(r"^\w*?(rng|random_state|random_generator|generator|prng)$", re.MULTILINE | re.IGNORECASE)


def owned_generator_draw(ctx) -> ast.Call | None:
    """The first draw from an object's own generator in a class of this file that runs in workers: a callable
    transform (it defines __call__) or a dataset."""
    return ctx.memo(("owned-generator-draw",), lambda: _first_draw(ctx))


def _first_draw(ctx) -> ast.Call | None:
    words = ctx.code_words
    if not (BUILDER_WORDS.search(words) or GENERATOR_WORD.search(words)):
        return None  # no generator is built or named here: nothing to walk
    found = []
    module_level = _module_generators(ctx)
    for cls in ctx.by_type.get(ast.ClassDef, ()):
        methods = [m for m in cls.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
        names = {m.name for m in methods}
        dataset = _dataset_like(cls, ctx)
        if not dataset and "__call__" not in names:
            continue
        built = _generators_built_once(cls, methods, ctx) | _built_by_local_bases(cls, ctx)
        for method in _per_sample(methods):
            for call in ast.walk(method):
                if _module_draw(call) in module_level:
                    found.append(call)  # RNG = np.random.default_rng(0) at import, drawn per sample
                    continue
                attr = _self_attr_draw(call)
                if attr is None:
                    continue
                # built here or by a base class of this file, or inherited under a generator's name
                if attr in built or attr not in _assigned(cls, ctx) and GENERATOR_NAME.search(attr):
                    found.append(call)
    return min(found, key=lambda c: (c.lineno, c.col_offset), default=None)


def _built_by_local_bases(cls: ast.ClassDef, ctx, depth: int = 3) -> set[str]:
    built = set()
    for base in cls.bases:
        local = ctx.classes.get(base.id) if isinstance(base, ast.Name) else None
        if local is not None and local is not cls and depth:
            methods = [m for m in local.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
            built |= _generators_built_once(local, methods, ctx) | _built_by_local_bases(local, ctx, depth - 1)
    return built


def _per_sample(methods: list) -> list:
    """The methods a worker runs for each sample: __getitem__/__iter__/__next__/__call__ and the methods of
    the class they call, transitively (a one-off split drawn by a helper of __init__ runs in the parent)."""
    by_name = {m.name: m for m in methods}
    todo = [m for m in methods if m.name in PER_SAMPLE]
    reached = {m.name for m in todo}
    while todo:
        method = todo.pop()
        for node in ast.walk(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "self" \
                    and node.func.attr in by_name and node.func.attr not in reached:
                reached.add(node.func.attr)
                todo.append(by_name[node.func.attr])
    return [by_name[name] for name in reached]


def _module_generators(ctx) -> set[str]:
    """Names bound at module level to a generator object (`RNG = np.random.RandomState(0)`)."""
    return {t.id for node in ctx.tree.body if isinstance(node, ast.Assign) and ctx.call_name(node.value) in GENERATORS
            for t in node.targets if isinstance(t, ast.Name)}


def _module_draw(node: ast.AST) -> str | None:
    """'RNG' for `RNG.normal(...)`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DRAWS \
            and isinstance(node.func.value, ast.Name):
        return node.func.value.id
    return None


def _dataset_like(cls: ast.ClassDef, ctx) -> bool:
    return any("Dataset" in (ctx.qualname(b) or "") or "Dataset" in ast.unparse(b) for b in cls.bases)


def _self_attr_draw(node: ast.AST) -> str | None:
    """'rng' for `self.rng.uniform(...)`."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in DRAWS):
        return None
    receiver = node.func.value
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
        return receiver.attr
    return None


def _assigned(cls: ast.ClassDef, ctx) -> set[str]:
    """The attributes the class assigns on `self` (one walk of the class, not one per draw)."""
    return ctx.memo(("loader_owned_rng.assigned", cls), lambda: {
        t.attr for node in ast.walk(cls) if isinstance(node, ast.Assign) for t in node.targets
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"})


def _generators_built_once(cls: ast.ClassDef, methods: list, ctx) -> set[str]:
    """Attributes every assignment of which builds a generator outside the per-sample methods."""
    built, elsewhere = set(), set()
    for method in methods:
        for node in ast.walk(method):
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    once = ctx.call_name(node.value) in GENERATORS and method.name not in PER_SAMPLE
                    (built if once else elsewhere).add(target.attr)
    return built - elsewhere
