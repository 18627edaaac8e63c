"""What one file tells the other files of a run (the project index), and what it asks of them.

Told: the kind each top-level function and each class's forward returns (`Net` -> 'softmax'), and of each
element of a returned tuple (`Decoder/0`) or entry of a returned dict (`Net/logits`); for a model whose output is what a constructor argument returns,
which argument (`Seq2Seq` -> 'arg:1:decoder/0', read by the file that builds it). Asked, by the file whose
loss takes the output: which models of other files feed that loss (`fed:Evaluator`; `fed:*` and
`fed:~classifier` for a model handed in from outside the file as the parameter `classifier`), so the file
that defines the model can point at its activation (helpers/losses.py writes those facts)."""

from __future__ import annotations

import ast
import re

from .callees import wrapped
from .choices import picked_entries, picked_module
from .handoffs import slot_names
from .instances import factory_built, methods_of
from .parameters import call_sites, method_of, parameter_of
from .traced import BRANCH_ACTIVATIONS, BRANCHED, Argument, Traced
from .values import conditional, reaching_values
from .vocabulary import DEPTH, KEEP_FUNCTIONS, KEEP_METHODS, MODULE_MOVES
from .walk import Walk

HINTS = ("oftmax", "igmoid", "relu", "ReLU", "Linear", "expit")
FACTS = "kinds-facts"  # the memo space of the facts: computed before the project index is set
FED = "fed:"
ANY_MODEL = "*"
SUBCLASS = "^"
FACTORY = "()"  # `build_model()`: the output of the model a function of another file returns


def project_facts(ctx, hints: tuple[str, ...] = HINTS) -> dict[str, str]:
    """Kind returned by each top-level function and each class's forward, and by each element of a tuple they
    return: what other files may ask. Kept per module: rules ask again for the origins."""
    return ctx.memo(("kinds", "facts"), lambda: _facts(ctx, hints))


def fact_owners(ctx) -> frozenset[str]:
    """The names project_facts tells about (its top-level functions and classes), without the analysis: the engine
    computes a file's facts only when another file asks about one of them. Every key _facts makes must start with
    one of these names (`Net`, `build()`, `Net/0`, `Net.project`): a test holds it to that on every fixture."""
    return frozenset(ctx.functions) | frozenset(ctx.classes)


def fact_owner(key: str) -> str:
    """The name a key of project_facts is about: the name it starts with."""
    found = _OWNER.match(key)
    return found.group() if found else key


_OWNER = re.compile(r"\w+")


def _facts(ctx, hints: tuple[str, ...]) -> dict[str, str]:
    if not any(map(ctx.has_text, hints)):  # nothing here can return a known kind, but a wrapper may relay one
        return _relays(ctx) if ctx.has_text("__init__") and ctx.has_text("forward") else {}
    walk, lenient = Walk(ctx, FACTS), Walk(ctx, FACTS + "-any", lenient=True)
    found: dict[str, str] = {}
    owners = [(name, func, func) for name, func in ctx.functions.items()]
    owners += [(name, cls, _forward(cls)) for name, cls in ctx.classes.items()]
    for name, owner, func in owners:
        if func is None:  # a model without forward (encode, decode, project): its methods only
            found.update(_method_facts(walk, name, owner, func))
            continue
        kind = _ask(walk, owner, None)
        if kind is not None:
            found[name] = kind.kind
        elif owner is func:  # a factory (`def build_model(): return Net(...)`): what the model it builds returns
            kind = _factory(func, walk)
            if kind is not None:
                found[name + FACTORY] = kind.kind
        if kind is None:  # `if not self.quantile: q = F.softmax(q, 2)`: the activation one branch applies
            branched = _branched(owner, lenient)
            if branched is not None:
                found[name + BRANCHED] = branched
        found.update(_method_facts(walk, name, owner, func))
        width = max((len(r.value.elts) for r in walk.returns_of(func) if isinstance(r.value, ast.Tuple)), default=0)
        dicts = [_dict_returned(r.value, walk.ctx) for r in walk.returns_of(func)]  # `return {...}`, `return out`
        keys = {k.value for d in dicts if d is not None
                for k in d.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        for index in [*range(min(width, 8)), *sorted(keys)[:8]]:  # tuple elements, entries of a returned dict
            kind = _ask(walk, owner, index)
            if kind is not None:
                found[f"{name}/{index}"] = kind.kind
    return found


def _branched(owner: ast.AST, lenient: Walk) -> str | None:
    """The activation (softmax, sigmoid, log_softmax) one branch of a function or forward returns while the others
    return raw values (traced_kind_any's reading), for the lenient walks of other files."""
    kind = lenient.model(owner, None, None, DEPTH) if isinstance(owner, ast.ClassDef) else \
        lenient.returned(owner, None, None, DEPTH)
    return kind.kind if kind is not None and kind.kind in BRANCH_ACTIVATIONS else None


def _relays(ctx) -> dict[str, str]:
    """A wrapper model whose forward returns what a module handed to its constructor returns
    (`CombinedModel(encoder, head)` returning `self.head(...)`): told as `arg:...`, so the file that builds it
    can ask the module's own file."""
    walk, found = Walk(ctx, FACTS), {}
    for name, cls in ctx.classes.items():
        if _forward(cls) is not None:
            kind = _ask(walk, cls, None)
            if kind is not None and kind.kind.startswith("arg:"):
                found[name] = kind.kind
    return found


def traced_factory(func: ast.AST, ctx) -> Traced | None:
    """The output kind of the model every return of the function `func` builds (or holds), all agreeing."""
    return _factory(func, Walk(ctx))


def _factory(func: ast.AST, walk: Walk) -> Traced | None:
    returns = walk.returns_of(func)
    if not returns or not all(isinstance(r.value, ast.Call | ast.Name) for r in returns):
        return None
    found = [walk.callee(r.value, None, DEPTH) for r in returns]
    return found[0] if found[0] is not None and all(f is not None and f.kind == found[0].kind for f in found) \
        else None


def _dict_returned(value: ast.AST, ctx) -> ast.Dict | None:
    if isinstance(value, ast.Name):
        value = ctx.resolve(value)
    return value if isinstance(value, ast.Dict) else None


def _method_facts(walk: Walk, name: str, owner: ast.AST, func: ast.AST) -> dict[str, str]:
    """`Net.project` -> the kind the method returns (maybe what a constructor argument returns, `arg:...`), and
    `build_net().project` for a factory of this file that builds a model of it."""
    ctx, found = walk.ctx, {}
    if isinstance(owner, ast.ClassDef):
        for method in methods_of(owner, ctx):
            kind = _ask(walk, owner, None, method)
            if kind is not None:
                found[f"{name}.{method}"] = kind.kind
        return found
    cls, built = factory_built(func, walk) or (None, None)
    for method in methods_of(cls, ctx) if cls is not None else ():
        kind = walk.model(cls, built, None, DEPTH, method)
        if kind is not None:
            found[f"{name}{FACTORY}.{method}"] = kind.kind
    return found


def _ask(walk: Walk, owner: ast.AST, index: int | None, method: str = "forward") -> Traced | None:
    if not isinstance(owner, ast.ClassDef):
        return walk.returned(owner, None, index, DEPTH)
    found = walk.model(owner, None, index, DEPTH, method)
    init, forward = method_of(owner, "__init__"), method_of(owner, method)
    if found is not None or init is None or forward is None:
        return found
    # what it returns may be what a module handed to its constructor returns: say which argument
    params = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    kept = {n.value.id for n in walk.ctx.in_scope(init, (ast.Assign,)) if isinstance(n.value, ast.Name)}
    if not kept.intersection(params):
        return None  # keeps no argument: its output cannot depend on one
    env = {(init, name): Argument(position, name) for position, name in enumerate(params)}
    return walk.returned(forward, env, index, DEPTH)


def _forward(cls: ast.ClassDef) -> ast.AST | None:
    return method_of(cls, "forward")


def named_after(name: str) -> str:
    """`~classifier` for a parameter `classifier` or a class `Classifier`: a model is often named for its class."""
    return "~" + name.replace("_", "").lower()


def class_aliases(cls: ast.ClassDef, ctx) -> list[str]:
    """The names another file may know a model class by: `~transformerdecoder` and `~decoder` (the part
    `transformer.decoder` of a model handed in), `^Base` for each base class whose methods run `self(x)`."""
    last = _last_word(cls.name)
    aliases = [named_after(cls.name)]
    # not a TestTransformerDecoder; kept per module (project_reach asks for every class)
    models = ctx.memo(("kinds", "model-classes"), lambda: [n for n, c in ctx.classes.items() if _forward(c) is not None])
    if last and last != cls.name and sum(_last_word(n) == last for n in models) == 1:
        aliases.append(named_after(last))  # the only Decoder of its file: which one the part holds is clear
    for base in cls.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
        if name and name not in ("Module", "object"):
            aliases.append(subclass_of(name))
    return aliases


def fed_names(expr: ast.AST, ctx, depth: int = 8) -> set[str]:
    """The other files' models whose output `expr` is (their class names; `Net/0` for the first element of the
    tuple it returns, unpacked here), or '*' for a model handed in as a parameter no call in this file binds
    (and `~name`, see named_after). Empty when the producer is of this file or not visible."""
    walk = Walk(ctx)
    value, element = expr, None
    for _ in range(depth):
        if isinstance(value, ast.Subscript):
            key = value.slice
            if element is None and isinstance(key, ast.Constant) and isinstance(key.value, str):
                element = key.value  # out["logits"]: that entry of a returned dict
            value = value.value
        elif isinstance(value, ast.Name):
            bound = walk.binding(value, None)
            if bound is None:  # unpacked from a tuple (`pred, aux = model(x)`): that element of the output
                reaching = reaching_values(value, ctx)[1] or []
                if not reaching and parameter_of(value, ctx) is not None:
                    return _handed_output(value, element, ctx, depth)
                if len(reaching) != 1 or reaching[0][1] is None or element is not None:
                    return set()
                value, element = reaching[0]
                continue
            value = bound[0]
        elif isinstance(value, ast.Call):
            name = ctx.call_name(value)
            callee = value.func
            if name is None and isinstance(callee, ast.Attribute) and callee.attr in KEEP_METHODS:
                value = callee.value
            elif name in KEEP_FUNCTIONS and value.args:
                value = value.args[0]
            else:
                if name is None and isinstance(callee, ast.Attribute) and callee.attr == "forward":
                    callee = callee.value
                names = _model_names(callee, ctx, walk, depth) | _own_forward_fed(callee, ctx, walk, depth)
                parts = all(n[:1] == "~" for n in names)  # `net.decoder(x)` of a model handed in, or its method
                if parts and isinstance(callee, ast.Attribute) and not callee.attr.startswith("_") \
                        and not (isinstance(callee.value, ast.Name) and callee.value.id == "self"):
                    # model.project(x): that method of another file's model (`Net.project`, `build_net().project`)
                    owner = callee.value.value if isinstance(callee.value, ast.Attribute) \
                        and callee.value.attr == "module" else callee.value  # model.module.project(x) under DDP
                    # or of a model handed in (`self.model.predict(x)`, `@Trainer#0.predict`), joined by the
                    # model's file with what the caller hands that slot (losses_elsewhere.handed_over)
                    names |= {f"{n}.{callee.attr}" for n in _model_names(owner, ctx, walk, depth - 1)
                              if n[:1].isalpha() or n[:1] == "@"}
                return names if element is None else _entries(names, element)
        else:
            return set()
    return set()


def _own_forward_fed(callee: ast.expr, ctx, walk: Walk, depth: int) -> set[str]:
    """`self(x)` / `self.forward(x)` in a step of a class whose own forward returns another file's model's output
    (a LightningModule's `return self.net(x)`, `self.net = build_backbone(...)`): that model's names too."""
    if not (isinstance(callee, ast.Name) and callee.id == "self") or depth <= 1:
        return set()
    cls = ctx.enclosing_class(callee)
    forward = _forward(cls) if cls is not None else None
    if forward is None or any(a is forward for a in ctx.ancestors(callee)):
        return set()
    returns = [r.value for r in walk.returns_of(forward) if r.value is not None]
    return set().union(*(fed_names(r, ctx, depth - 1) for r in returns))


def _last_word(name: str) -> str | None:
    """`Decoder` for `TransformerDecoder`: a long enough last word (Decoder, Encoder, Classifier)."""
    words = re.findall(r"[A-Z]+[a-z0-9]*", name)
    return words[-1] if words and len(words[-1]) > 3 else None


def _handed_output(name: ast.Name, element: int | str | None, ctx, depth: int) -> set[str]:
    """A model's output handed in as the parameter `name`: what each call here passes for it, or, handed in
    from outside, the entry `element` of any model's returned dict (`def loss(output, batch)`: output['exist']).
    Memoised per parameter, element and depth: helpers handing the output on through several call sites each
    were otherwise walked once per path, exponentially many (six sites a level took 46 s on 70 lines)."""
    memo = Walk(ctx).memo
    key = ("handed-output", ctx.scope_of(name), name.id, element, depth)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _handed_output_uncached(name, element, ctx, depth)
    return set(found)  # the caller's to extend


def _handed_output_uncached(name: ast.Name, element: int | str | None, ctx, depth: int) -> set[str]:
    passed = call_sites(name, ctx)
    if not passed:
        return {f"{ANY_MODEL}/{element}"} if isinstance(element, str) else set()
    found: set[str] = set()
    for value in passed:
        if element is not None:
            value = ast.Subscript(value=value, slice=ast.Constant(element), ctx=ast.Load())
        found |= fed_names(value, ctx, depth - 1)
    return found


def _entries(names: set[str], element: int | str) -> set[str]:
    """`Net/0`, `Net/logits` for an element of a named model's output; `*/logits` for an entry of a dict that a
    model handed in from outside returns: the key names the value (`out['exist']`), whichever model made it."""
    found = {f"{n}/{element}" for n in names if n[:1] not in (ANY_MODEL, "~", SUBCLASS)}
    if isinstance(element, str) and ANY_MODEL in names:
        found.add(f"{ANY_MODEL}/{element}")
    return found


def subclass_of(name: str) -> str:
    """`^Base`: the output of `self(x)` or `self.forward(x)` in a method of `Base`, which a subclass's forward
    (of another file) gives when it overrides it (a base class whose step hands it to a loss)."""
    return SUBCLASS + name


def _handed_models(name: ast.Name, ctx, walk: Walk, depth: int) -> set[str]:
    """The models every call site hands in for a parameter, once per parameter (chains of helpers passing a
    model down through many call sites would otherwise be walked once per path, exponentially many)."""
    def handed() -> set[str]:
        passed = call_sites(name, ctx, reassigned=True)
        if not passed:  # handed in from outside: any model, the class its parameter is named after, its slot
            return {ANY_MODEL, named_after(name.id), *slot_names(name, ctx)}
        return set().union(*(_model_names(p, ctx, walk, depth - 1) for p in passed))

    return ctx.memo_recursive(("handed-models", ctx.scope_of(name), name.id), handed, set())  # a cycle: nothing


def model_names(model: ast.AST, ctx) -> set[str]:
    """The models of other files a value handed over holds (`MyNet()`, `net` bound to one, `build_model()`)."""
    return _model_names(model, ctx, Walk(ctx), 8)


def _model_names(model: ast.AST, ctx, walk: Walk, depth: int) -> set[str]:
    """Memoised per node and depth in the walk's space: without it, attributes and reaching values that
    branch at every level made this exponential in `depth` (one 417-line trainer took 7 s). While an answer
    is being computed, asking it again (a cycle) gives nothing."""
    key = ("model-names", model, depth)
    found = walk.memo.get(key)
    if found is None:
        walk.memo[key] = set()
        found = walk.memo[key] = _model_names_uncached(model, ctx, walk, depth)
    return found


def _model_names_uncached(model: ast.AST, ctx, walk: Walk, depth: int) -> set[str]:
    for _ in range(depth):
        if isinstance(model, ast.Name):
            if model.id == "self":  # self(x) in a method: this class's forward, or a subclass's
                cls = ctx.enclosing_class(model)
                return {subclass_of(cls.name)} if cls is not None else set()
            if model.id in ctx.functions or model.id in ctx.classes:
                return set()
            _, reaching = reaching_values(model, ctx)
            found: set[str] = set()
            for value, element in reaching or ():
                if element is None:
                    found |= _model_names(value, ctx, walk, depth - 1)
            if reaching and not conditional(reaching[-1][0], model, ctx):
                return found
            if parameter_of(model, ctx, reassigned=True) is None:  # or the parameter (`if resume: model = ...`)
                return found
            return found | _handed_models(model, ctx, walk, depth)
        if isinstance(model, ast.Attribute):
            if isinstance(walk.member(model), ast.FunctionDef | ast.AsyncFunctionDef):
                return set()
            values = walk.attribute_values(model)
            if values:
                return set().union(*(_model_names(v, ctx, walk, depth - 1) for v in values))
            return _named_part(model, ctx)
        if not isinstance(model, ast.Call):
            return set()
        if isinstance(model.func, ast.Attribute) and model.func.attr in MODULE_MOVES and ctx.call_name(model) is None:
            model = model.func.value
            continue
        if (inner := wrapped(model, ctx)) is not None:  # nn.DataParallel(model): the model it runs
            model = inner
            continue
        name = ctx.call_name(model)
        if name is None and (module := picked_module(model.func, ctx)):  # getattr(models, args.model)(): any of its models
            return {module}
        chosen = ctx.resolve(model.func) if name is None and isinstance(model.func, ast.Name) else None
        if isinstance(chosen, ast.IfExp):  # `Model = GCN if args.model == "gcn" else SAGE`, then Model(...): each
            return set().union(*(_model_names(ast.Call(func=c, args=[], keywords=[]), ctx, walk, depth - 1)
                                 for c in (chosen.body, chosen.orelse) if isinstance(c, ast.Name | ast.Attribute)))
        if name is None and isinstance(model.func, ast.Subscript):  # MODELS[args.arch](...): each class listed
            picked = [e for e in picked_entries(model.func, ctx) if isinstance(e, ast.Name | ast.Attribute)]
            return set().union(*(_model_names(ast.Call(func=e, args=[], keywords=[]), ctx, walk, depth - 1)
                                 for e in picked))
        if name is None or name.startswith("torch."):
            return set()
        simple = name.rsplit(".", 1)[-1]
        if name in ctx.functions:  # a factory of this file (`model = create_model()`): the models it returns
            returns = walk.returns_of(ctx.functions[name])
            return set().union(*(_model_names(r.value, ctx, walk, depth - 1) for r in returns)) if returns else set()
        if simple in ctx.classes:
            return set()
        return {simple} if simple[:1].isupper() else {simple + FACTORY}  # a class, or a factory, of another file
    return set()


def _named_part(model: ast.Attribute, ctx) -> set[str]:
    """`~decoder` for `transformer.decoder` when `transformer` is handed in and nothing here says what its
    `decoder` holds: the part of a model is usually named for its class (`TransformerDecoder`, `Decoder`)."""
    owner = model.value
    if not isinstance(owner, ast.Name) or owner.id == "self" or parameter_of(owner, ctx) is None:
        return set()
    if reaching_values(owner, ctx)[1]:
        return set()  # assigned here: what it holds is visible, or not known
    return {named_after(model.attr)}
