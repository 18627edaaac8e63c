import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.gan_updates import (
    GENERATOR_WORDS,
    discriminator_update,
    generator_update,
    words,
)
from ..helpers.graph import (
    callee,
    depends_on_graph,
    in_no_grad,
    is_loss_call,
    is_model_call,
    latest_value,
    module_index,
    other_framework,
)
from ..helpers.loops import is_any_backward
from ..helpers.params_no_grad import parameters_through_no_grad
from ..rule import Hit, Rule

BREAK_METHODS = {"detach", "item", "numpy", "tolist"}
BREAK_FUNCTIONS = {"torch.tensor", "torch.as_tensor", "torch.from_numpy"}
# tensor methods and torch functions whose result still carries the graph of their (first) input
PASS_METHODS = {"mean", "sum", "view", "reshape", "squeeze", "unsqueeze", "flatten", "float", "double", "half",
                "to", "cuda", "cpu", "clone", "contiguous", "abs", "pow", "sqrt", "exp", "log", "clamp", "neg",
                "norm", "requires_grad_", "squeeze_", "nansum", "nanmean"}
CONSTANT_BUILDERS = {"torch." + f for f in ("ones", "zeros", "full", "empty", "ones_like", "zeros_like", "full_like",
                                            "empty_like", "Tensor", "FloatTensor", "tensor")}
PASS_FUNCTIONS = {"torch." + f for f in ("mean", "sum", "stack", "cat", "abs", "square", "sqrt", "exp", "log", "clamp",
                                         "norm", "nansum", "nanmean", "logsumexp")}


def is_scalar(expr: ast.AST, ctx: ModuleContext) -> bool:
    """A plain number: literal, a name assigned a literal, or a parameter annotated or defaulted as one."""
    if isinstance(expr, ast.UnaryOp):
        expr = expr.operand
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, int | float) and not isinstance(expr.value, bool)
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        if value is not None:
            return is_scalar(value, ctx)
        func = ctx.scope_of(expr)
        if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            args = func.args.args
            with_default = args[len(args) - len(func.args.defaults):]
            defaults = dict(zip([a.arg for a in with_default], func.args.defaults, strict=True))
            arg = next((a for a in args + func.args.kwonlyargs if a.arg == expr.id), None)
            if arg is not None and isinstance(arg.annotation, ast.Name) and arg.annotation.id in {"float", "int"}:
                return True
            return expr.id in defaults and is_scalar(defaults[expr.id], ctx)
    return False


class GraphBreakOnLossPath(Rule):
    """What it does: follows the tensor passed to `.backward()` back through the assignments and
    arithmetic of the same function, and flags `.detach()`, `.item()`, `.numpy()`, `.tolist()`,
    `.data`, `torch.tensor(...)`, `torch.as_tensor(...)` or `torch.from_numpy(...)` applied on
    that path to a model output or a loss. In a GAN it tells the two updates apart by the names
    of their losses and step functions (`errG`, `G_loss`, `backward_G` / `errD`, `d_loss`): the
    generator's update must not feed a detached generator output to the discriminator (the opposite
    mistake, an undetached output in the discriminator's update, is MLD035's). Also a module's own parameter
    handed to a module whose forward returns from inside `with torch.no_grad():` (`self.constraint(self.kernel)`),
    which cuts the parameter off from every loss.

    Why is this bad: the broken term becomes a constant. If another term still carries the graph,
    backward() runs without complaint and the broken part simply never trains (a generator whose
    adversarial term is detached learns only from its other terms). A detached loss target, a
    detached coefficient next to a live prediction, or `loss.item()` for logging is fine.
    """

    code = "MLD030"
    name = "graph-break-on-loss-path"
    category = "autograd"
    severity = "error"
    message = "{op} cuts the autograd graph on the way to backward(): this term gets no gradient"
    why = "The detached or re-created tensor is a constant to autograd, so nothing before it learns from this loss."
    fix = "Compute the term with torch operations on the live tensor; detach only targets, and use .item() for logging."
    evidence = "goodfellow/broken-parts-adapt"
    node_types = (ast.Call,)
    call_names = frozenset({"backward", "manual_backward"})
    requires_text = ('backward', 'no_grad')  # skip modules that cannot contain the pattern
    BAD = (
        "import torch\n"
        "def step(model, criterion, opt, x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    loss = torch.tensor(loss.item(), requires_grad=True)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    GOOD = (
        "import torch\n"
        "def step(model, criterion, opt, x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    opt.step()\n"
        "    print(loss.item())\n"
    )

    GENERATOR = (".detach() on the generator's output inside the generator's own update: the adversarial term "
                 "sends no gradient to the generator (detach only in the discriminator's step)")

    NO_GRAD_FORWARD = ("{parameter} is a trainable parameter, but {cls}.forward computes its output under "
                       "torch.no_grad(): nothing downstream carries a gradient back to {parameter}, so it never "
                       "trains; apply the constraint without no_grad (or clamp the parameter's data after each step)")

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.has_text("no_grad") and ctx.has_text("Parameter"):
            for call, parameter, cls in parameters_through_no_grad(ctx):
                yield Hit(call, self.NO_GRAD_FORWARD.format(parameter=parameter, cls=cls))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not is_any_backward(node) or other_framework(ctx):
            return
        receiver = node.func.value
        if node.func.attr == "manual_backward" or ctx.call_name(node) == "torch.autograd.backward" or any(
                w in callee(receiver).lower() for w in ("accelerator", "fabric", "engine")):
            receiver = node.args[0] if node.args else None
        generator = receiver is not None and generator_update(receiver, node, ctx)
        discriminator = receiver is not None and discriminator_update(receiver)
        for broken, _ in _breaks(receiver, ctx, [30], generator) if receiver is not None else ():
            if discriminator and _detached_call_result(broken, ctx):
                continue  # the discriminator's step detaches the generator's output on purpose
            yield Hit(broken, self.GENERATOR if generator and _detached_output(broken, ctx) is not None
                      else self.message.format(op=_describe(broken, ctx)))


def _breaker(node: ast.AST, ctx: ModuleContext) -> bool:
    """A graph-breaking operation applied to something computed from a model or a loss."""
    if isinstance(node, ast.Attribute) and node.attr == "data" and isinstance(node.ctx, ast.Load):
        # a PackedSequence's `.data` is its packed values, graph and all, not Tensor.data
        return depends_on_graph(node.value, ctx) and not _packed(node.value, ctx)
    if not isinstance(node, ast.Call):
        return False
    if ctx.call_name(node) in BREAK_FUNCTIONS:
        return bool(node.args) and depends_on_graph(node.args[0], ctx)
    return ctx.method_name(node) in BREAK_METHODS and not node.args and depends_on_graph(node.func.value, ctx)


PACKING = {"torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pack_sequence"}


def _packed(expr: ast.AST, ctx: ModuleContext) -> bool:
    """`pack_padded_sequence(scores, lengths, batch_first=True)`, inline or through the name holding it."""
    value = ctx.resolve(expr) if isinstance(expr, ast.Name) else expr
    return isinstance(value, ast.Call) and ctx.call_name(value) in PACKING


def _breaks(expr: ast.AST, ctx: ModuleContext, budget: list[int], generator: bool = False) -> list[tuple[ast.AST, bool]]:
    """Breaking operations on the path along which `expr` carries gradient, each with whether it is
    certainly a bug (it cuts a loss's input, or the whole term) rather than maybe a coefficient."""
    budget[0] -= 1
    if budget[0] < 0:
        return []
    if _breaker(expr, ctx):
        return [(expr, False)]
    walk = lambda e: _breaks(e, ctx, budget, generator)
    if isinstance(expr, ast.Name):
        value = latest_value(expr, ctx)
        if value is None:
            return []
        return ([b for v in [value, *_other_branch(expr, value, ctx)] for b in walk(v)]
                + [b for a in _augmented(expr, value, ctx) for b in walk(a)])
    if isinstance(expr, ast.BinOp):
        # each addend is its own term; x + (q - x).detach() is a straight-through estimator
        if isinstance(expr.op, ast.Add):
            return [b for side in (expr.left, expr.right) if not _straight_through(side) for b in walk(side)]
        if isinstance(expr.op, ast.Pow):
            return walk(expr.left)
        # a detached factor, divisor or subtrahend next to a live tensor is a coefficient or a target: only a
        # plain number on the other side (or a live divisor's absence) makes the broken operand the whole term
        keep_left = is_scalar(expr.right, ctx) or isinstance(expr.op, ast.Div) and not depends_on_graph(expr.right, ctx)
        return [b for side, keep in ((expr.left, keep_left), (expr.right, is_scalar(expr.left, ctx)))
                for b in walk(side) if keep or b[1]]
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        value = _self_value(expr, ctx)  # `self.loss_G = ...; self.loss_G.backward()` (pix2pix style)
        return walk(value) if value is not None else []
    if isinstance(expr, ast.UnaryOp | ast.Subscript | ast.Starred):
        return walk(expr.operand if isinstance(expr, ast.UnaryOp) else expr.value)
    if isinstance(expr, ast.List | ast.Tuple):
        return [b for e in expr.elts for b in walk(e)]
    if not isinstance(expr, ast.Call):
        return []
    if is_loss_call(expr, ctx):
        inputs = expr.args[:1] or [k.value for k in expr.keywords if k.arg == "input"]
        targets = expr.args[1:2] or [k.value for k in expr.keywords if k.arg == "target"]
        # a target that carries the graph means the input side was detached on purpose (commitment losses)
        if not any(_live(t, ctx) for t in targets):
            return [(b, True) for i in inputs for b, _ in walk(i)]
        # a live second argument: a commitment loss detaching its input on purpose, or (in the generator's
        # update) a composite criterion `(d_fake_score, fake, real)` whose score must still reach the generator
        if not generator:  # walking the inputs would only spend the shared budget on breaks dropped here
            return []
        return [(b, True) for i in inputs for b, _ in walk(i) if _detached_output(b, ctx) is not None]
    name, method = ctx.call_name(expr), ctx.method_name(expr)
    if name in PASS_FUNCTIONS and expr.args:
        return walk(expr.args[0])
    if name is None and method == "scale" and expr.args:  # scaler.scale(loss)
        return walk(expr.args[0])
    if name is None and method in PASS_METHODS and not is_model_call(expr, ctx):
        return walk(expr.func.value)
    if generator and not (name or "").startswith("torch."):
        # the generator's loss through another network (the discriminator): a detached input there is
        # the generator's output cut off from its own adversarial loss
        found = []
        for arg in expr.args:
            detached = _detached_output(arg, ctx)
            found += [(detached, True)] if detached is not None else [b for b in walk(arg) if b[1]]
        return found
    return []


def _detached_output(arg: ast.AST, ctx: ModuleContext) -> ast.Call | None:
    """`fake.detach()` (or a name assigned it) where `fake` is the result of a call: a network's output."""
    value = latest_value(arg, ctx) if isinstance(arg, ast.Name) else arg
    if not (isinstance(value, ast.Call) and ctx.method_name(value) == "detach" and not value.args):
        return None
    source = value.func.value
    if isinstance(source, ast.Name):
        source = latest_value(source, ctx)
    elif isinstance(source, ast.Attribute) and isinstance(source.value, ast.Name) and source.value.id == "self":
        source = _self_value(source, ctx)
    if not isinstance(source, ast.Call) or ctx.call_name(source) is not None:
        return None
    # the network is named for the generator, or built from a class that is (`self.a8 = Generator(...)`)
    built = ctx.resolve(source.func) if isinstance(source.func, ast.Name | ast.Attribute) else None
    named = words(callee(source.func)) | (words(callee(built.func)) if isinstance(built, ast.Call) else set())
    return value if named & GENERATOR_WORDS else None


def _detached_call_result(broken: ast.AST, ctx: ModuleContext) -> bool:
    """`fake.detach()` where `fake` was computed by a call (a network's output), or `G(z).detach()`."""
    if not (isinstance(broken, ast.Call) and ctx.method_name(broken) == "detach"):
        return False
    source = broken.func.value
    if isinstance(source, ast.Name):
        source = latest_value(source, ctx)
    elif isinstance(source, ast.Attribute) and isinstance(source.value, ast.Name) and source.value.id == "self":
        source = _self_value(source, ctx)
    return isinstance(source, ast.Call)


def _other_branch(name: ast.Name, value: ast.expr, ctx: ModuleContext) -> list[ast.expr]:
    """`if a: loss = x + y` / `else: loss = x`: the value the other side of the `if` assigns, which may be
    the one that reaches the read as well."""
    def branch_of(node: ast.AST) -> tuple[ast.If, bool] | None:
        statement = next((a for a in ctx.ancestors(node) if isinstance(a, ast.stmt)), None)
        parent = ctx.parent(statement) if statement is not None else None
        if isinstance(parent, ast.If):
            return parent, statement in parent.body
        return None

    here = branch_of(value)
    if here is None:
        return []
    for other in ctx.values_of(name, at=name)[1:]:
        there = branch_of(other)
        if there is not None and there[0] is here[0] and there[1] != here[1]:
            return [other]
    return []


def _self_value(attribute: ast.Attribute, ctx: ModuleContext) -> ast.expr | None:
    """The value last assigned to `self.x` earlier in the same method."""
    function = ctx.enclosing(attribute, (ast.FunctionDef, ast.AsyncFunctionDef))
    if function is None:
        return None
    found = [n.value for n in ctx.in_scope(function, (ast.Assign,)) if n.lineno < attribute.lineno
             and len(n.targets) == 1 and isinstance(n.targets[0], ast.Attribute) and n.targets[0].attr == attribute.attr
             and isinstance(n.targets[0].value, ast.Name) and n.targets[0].value.id == "self"]
    return max(found, key=lambda v: v.lineno) if found else None


def _live(expr: ast.AST, ctx: ModuleContext) -> bool:
    """Carries a graph: computed from a model or loss, not detached and not under no_grad."""
    value = latest_value(expr, ctx) if isinstance(expr, ast.Name) else expr
    if value is None or in_no_grad(value, ctx) or _breaker(value, ctx):
        return False
    if isinstance(value, ast.Call) and ctx.call_name(value) in CONSTANT_BUILDERS:
        return False  # torch.ones(d_out.shape): a label built from a shape carries no graph
    return depends_on_graph(expr, ctx)


def _augmented(name: ast.Name, value: ast.expr, ctx: ModuleContext) -> list[ast.expr]:
    """`loss += term` between the last assignment of `name` and its use: terms added to it."""
    augmented = module_index(ctx)["augmented"].get((ctx.scope_of(name), name.id), ())
    return [a.value for a in augmented if value.lineno < a.lineno < name.lineno]


def _straight_through(expr: ast.AST) -> bool:
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "detach"
            and isinstance(expr.func.value, ast.BinOp) and isinstance(expr.func.value.op, ast.Sub))


def _describe(node: ast.AST, ctx: ModuleContext) -> str:
    if isinstance(node, ast.Attribute):
        return ".data"
    name = ctx.call_name(node)
    return f"{name}(...)" if name else f".{ctx.method_name(node)}()"
