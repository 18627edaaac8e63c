import ast
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.accum_loss_scalers import SCALES_LOSS
from ..helpers.accum_trainer import unscaled_trainer_loss
from ..helpers.accum_unit_divisor import unit_divided_micro_loss
from ..helpers.accum_window_loop import window_loop_total
from ..helpers.accum_zeroing import accumulation_test, micro_batch_loop
from ..helpers.data import name_of
from ..helpers.loops import (
    LOOPS,
    calls_in_order,
    is_backward,
    is_zero_grad,
)
from ..helpers.optim_params import dotted, within
from ..helpers.optim_steps import FUNCTIONS, unconditional_in
from ..helpers.optim_values import optimizer_step
from ..rule import Hit, Rule

SCALING = (ast.Div, ast.Mult, ast.FloorDiv)
SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)  # compound ones hold branches
SCALING_METHODS = {"div", "div_", "mul", "mul_", "true_divide", "divide", "multiply"}
IN_PLACE_SCALING = {"div_", "mul_"}  # `loss.div_(k)` as a statement scales the loss it is called on
# calls whose result holds the values of their arguments (`torch.stack(list(losses.values())).sum()`)
GATHERING = {"torch.stack", "torch.cat", "list", "tuple", "sum", "sorted"}


class AccumulationWithoutScaling(Rule):
    """What it does: in a loop that calls backward() every iteration but steps the optimiser
    only under a modulo test (`if (i + 1) % k == 0:`), flags a backward() on a loss never divided
    by anything (a zero_grad() that runs every micro-batch is MLD018's finding). A loss divided in place
    before backward (`loss.div_(n_sub_batches)`) or passed through a function of the project that
    rescales the loss it is handed (`mean_global_loss(loss, tokens, total_tokens)`) counts as divided.
    Also flags a Trainer subclass's `compute_loss(..., num_items_in_batch)` override that ignores
    `num_items_in_batch` and never divides by the accumulation steps: recent transformers Trainers
    then back-propagate its loss as is and sum it over the accumulation steps. Left quiet when its batches
    show no "labels" key (it reads them by its own keys, `inputs["input_ids"]`, its module never names
    "labels", and its loss is not a model's own `.loss`): the Trainer then hands num_items_in_batch=None
    and divides by the accumulation steps itself. And a loop that hands its
    loss undivided to a helper together with the accumulation test as a flag (MAE's and DeiT's
    `loss_scaler(loss, optimizer, update_grad=(i + 1) % accum_iter == 0)`), unless the count itself is handed over.
    Lightning Fabric's `fabric.backward(loss)` counts as a plain backward (accelerate's and DeepSpeed's divide
    themselves), and a window may also end through `if is_accumulating: continue` before the step.

    Why is this bad: accumulation sums k micro-batch gradients, so the step is k times too large
    for SGD and gradient-clipping thresholds lose their meaning. It still trains.
    """

    code = "MLD014"
    name = "accumulation-without-scaling"
    category = "optimiser"
    severity = "warning"
    message = "gradient accumulation: the loss is not divided by the number of accumulation steps"
    why = "Accumulated gradients are summed, so each step is k times larger than one averaged batch."
    fix = "Backward loss / accum_steps every micro-batch; step and zero_grad together inside the modulo branch."
    evidence = "goyal/linear-scaling-and-warmup"
    node_types = (*LOOPS, ast.FunctionDef, ast.AsyncFunctionDef)
    requires_text = ('backward', 'num_items_in_batch', 'accum')  # skip modules that cannot contain the pattern
    BAD = (
        "def train(model, opt, loader, loss_fn, accum=4):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = loss_fn(model(x), y)\n"
        "        loss.backward()\n"
        "        if (i + 1) % accum == 0:\n"
        "            opt.step()\n"
        "            opt.zero_grad()\n"
    )
    GOOD = BAD.replace("model(x), y)\n", "model(x), y) / accum\n")

    MICRO = ("each micro-batch of this loop back-propagates its loss undivided and the optimizer steps after the "
             "loop: the step gets the sum over the micro-batches")
    UNIT = ("each micro-batch loss is divided by {divisor}, which this file sets to 1, and the optimizer steps "
            "after the micro-batch loop: the step gets the sum over the micro-batches; divide by their number")
    HANDED = ("gradient accumulation: the loss is handed to a helper that back-propagates it every micro-batch and "
              "steps only when told by the accumulation test, but it is never divided by the number of steps")
    TRAINER_LOSS = ("compute_loss() takes num_items_in_batch but ignores it and never divides by the accumulation "
                    "steps: the Trainer back-propagates this loss as is, summed over gradient_accumulation_steps")

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            returned = unscaled_trainer_loss(node, ctx)
            if returned is not None:
                yield Hit(returned, self.TRAINER_LOSS)
                return
            unit = unit_divided_micro_loss(node, ctx)
            if unit is not None:
                yield Hit(unit, self.UNIT.format(divisor=ast.unparse(unit.right)))
                return
        # below, `node` is one micro-batch: a loop's pass, or a per-batch function counting its own steps
        if node not in ctx.backward_scopes:  # no backward() here; maybe in a helper handed the step test
            handed = _handed_update(node, ctx) if isinstance(node, LOOPS) else None
            if handed is not None:
                yield Hit(handed, self.HANDED)  # the division goes just before the hand-over
            return
        micro = micro_batch_loop(node, ctx)
        if micro is None:  # `while True: ... backward(); seen += n; if seen >= total: break`, stepped after
            micro = window_loop_total(node, ctx)
        if micro is not None:  # `for chunk in batch.chunk(k): loss.backward()`, the step after the loop
            for call in _own_backwards(node, [], ctx):
                loss = _backward_loss(call, ctx)
                if loss is not None and not _scaled(loss, node, ctx, set(), _names_in(micro, ctx)):
                    yield Hit(_anchor(call, loss, node, ctx), self.MICRO)
            return
        always = list(_unconditional(node.body))
        stepped = [s for s in always if isinstance(s, ast.If) and _count(s.test, ctx) is not None
                   and any(optimizer_step(c, ctx) for c in calls_in_order(s.body))]
        windows = [(s.test, s.body) for s in stepped]
        if not stepped:  # `if is_accumulating: continue` then the step: the rest of the pass is the window's end
            guard = _continue_guard(node, ctx)
            if guard is None:
                return
            test, rest, guard_if = guard
            windows, stepped = [(test, rest)], [guard_if, *rest]
        outside = _own_calls(node, stepped, ctx)
        backwards = [c for c in outside if is_backward(c)]
        # an optimiser that also steps every iteration (GAN-style alternation): not accumulation
        if not backwards or any(optimizer_step(c, ctx) for c in outside):
            return
        optimisers = {ast.dump(_stepped(c)) for _, body in windows for c in calls_in_order(body)
                      if optimizer_step(c, ctx)}
        called = {ast.dump(c.func) for c in outside}  # model(x): model.zero_grad() clears the same grads
        if any(is_zero_grad(c) and isinstance(c.func, ast.Attribute) and unconditional_in(c, node, ctx)
               and (ast.dump(c.func.value) in optimisers or ast.dump(c.func.value) in called) for c in outside):
            return  # zeroed every micro-batch: MLD018's finding; nothing accumulates to scale
        reported: set[str] = set()  # one finding per loss (`scaled_loss.backward()` and `loss.backward()` arms)
        for call in backwards:
            loss = _underlying(_backward_loss(call, ctx), node)
            if loss is None or ast.dump(loss) in reported:
                continue
            if not _scaled(loss, node, ctx, set(), _names_in(_count(windows[0][0], ctx), ctx)):
                reported.add(ast.dump(loss))
                yield Hit(_anchor(call, loss, node, ctx))


def _continue_guard(loop: ast.AST, ctx: ModuleContext) -> tuple[ast.expr, list[ast.stmt], ast.If] | None:
    """(the count test, the statements after it, the guard) for `if is_accumulating: continue` in the loop's body
    followed by the optimiser's step (fish-speech's Fabric loop, blind split 14)."""
    for index, stmt in enumerate(loop.body):
        if not (isinstance(stmt, ast.If) and not stmt.orelse and _count(stmt.test, ctx) is not None
                and isinstance(stmt.body[-1], ast.Continue)):
            continue
        rest = loop.body[index + 1:]
        if any(optimizer_step(c, ctx) for c in calls_in_order(rest)):
            return stmt.test, rest, stmt
    return None


def _handed_update(loop: ast.AST, ctx: ModuleContext) -> ast.Call | None:
    """MAE's and DeiT's loop: `loss_scaler(loss, optimizer, update_grad=(i + 1) % accum_iter == 0)`. The helper
    back-propagates the loss it is handed and steps when the flag says so; it is given the test's answer, not the
    count, so only this loop can divide the loss by it. The call when the loss reaches it undivided."""
    for call in _own_calls(loop, [], ctx):
        flag = next((k.value for k in call.keywords if k.arg and isinstance(k.value, ast.Compare)
                     and _modulo(k.value, ctx, 0) is not None), None)
        if flag is None or not call.args or not isinstance(call.args[0], ast.Name) \
                or "loss" not in call.args[0].id.lower():
            continue
        names = _names_in(_count(flag, ctx), ctx)
        handed = {h for a in [*call.args[1:], *(k.value for k in call.keywords if k.value is not flag)]
                  for h in _chains(a)} - {None}
        if names is None or any(within(n, h) for n in names for h in handed):
            continue  # the count itself is handed over: the helper may divide by it
        if not _scaled(call.args[0], loop, ctx, set(), names):
            return call
    return None


def _underlying(loss: ast.AST | None, loop: ast.AST) -> ast.AST | None:
    """`scaled_loss` bound by `with amp.scale_loss(loss, opt) as scaled_loss:` is `loss`."""
    if not isinstance(loss, ast.Name):
        return loss
    for node in ast.walk(loop):
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                expr = item.context_expr
                if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == loss.id \
                        and isinstance(expr, ast.Call) and expr.args and isinstance(expr.args[0], ast.Name):
                    return ast.Name(id=expr.args[0].id, ctx=ast.Load(), lineno=loss.lineno, col_offset=loss.col_offset)
    return loss


def _backward_loss(call: ast.Call, ctx: ModuleContext) -> ast.AST | None:
    """The loss of `loss.backward()` / `scaler.scale(loss).backward()`, or of Lightning Fabric's
    `fabric.backward(loss)` (which, as its documentation says, accumulates "the same way as in PyTorch": it is
    not told the count); None for `accelerator.backward(loss)` and `engine.backward(loss)`, which scale by the
    accumulation steps themselves."""
    if call.args:
        receiver = call.func.value
        fabric = "fabric" in (dotted(receiver) or "").lower() or (ctx.constructed(receiver) or "").endswith(".Fabric")
        return call.args[0] if fabric and len(call.args) == 1 else None
    loss = call.func.value
    if isinstance(loss, ast.Call) and ctx.method_name(loss) == "scale" and loss.args:
        loss = loss.args[0]
    return loss


def _own_calls(loop: ast.AST, skipped: list[ast.AST], ctx: ModuleContext) -> list[ast.Call]:
    """The loop's calls outside nested loops and functions and outside the `skipped` blocks."""
    return [c for c in calls_in_order(loop.body) if ctx.enclosing(c, LOOPS + FUNCTIONS) is loop
            and not any(s in ctx.ancestors(c) for s in skipped)]


def _own_backwards(loop: ast.AST, skipped: list[ast.AST], ctx: ModuleContext) -> list[ast.Call]:
    return [c for c in _own_calls(loop, skipped, ctx) if is_backward(c)]


def _count(test: ast.expr, ctx: ModuleContext) -> ast.expr | None:
    """The number of micro-batches a step test counts to: `k` of `(i + 1) % k == 0`, or the other side of
    a comparison that names accumulation (`if n == accum_steps:`)."""
    modulo = _modulo(test, ctx)
    if modulo is not None:
        return modulo.right
    if isinstance(test, ast.Compare) and len(test.comparators) == 1 and accumulation_test(test, ctx):
        sides = [test.left, test.comparators[0]]
        named = [e for e in sides if accumulation_test(e, ctx)]
        return named[0] if named else sides[1]
    return None


def _unconditional(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run on every iteration: through with-blocks and try bodies, not ifs."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.With | ast.AsyncWith | ast.Try):
            yield from _unconditional(stmt.body)


def _modulo(test: ast.expr, ctx: ModuleContext, depth: int = 2) -> ast.BinOp | None:
    """The `i % k` a step test checks, also through a flag (`is_grad_step = (i + 1) % k == 0`)."""
    for sub in ast.walk(test):
        # `"%d" % x` is string formatting, not a step counter
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mod) and not isinstance(sub.left, ast.Constant):
            return sub
        if depth and isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            value = ctx.resolve(sub)
            if value is not sub and isinstance(value, ast.BoolOp | ast.Compare | ast.BinOp):
                found = _modulo(value, ctx, depth - 1)
                if found is not None:
                    return found
    return None


def _names_in(count: ast.expr, ctx: ModuleContext) -> set[str] | None:
    """The dotted names the accumulation count is read from (`args.accum`, or `cfg.bs` and `bs` for
    `k = cfg.bs // bs`); None when it is not plain names (then any helper may see it)."""
    value = ctx.resolve(count) if isinstance(count, ast.Name) else count
    return ({dotted(count)} | set(_chains(value))) - {None} or None


def _chains(expr: ast.AST) -> Iterator[str | None]:
    """The whole dotted names in an expression (`cfg.bs`, not `cfg` as well)."""
    if isinstance(expr, ast.Name | ast.Attribute):
        yield dotted(expr)
        return
    for child in ast.iter_child_nodes(expr):
        yield from _chains(child)


def _may_see(call: ast.Call, names: set[str] | None) -> bool:
    """An opaque helper can divide by the count only if it is handed the count, or what holds it."""
    if names is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return True
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and any(
            n == func.value.id or n.startswith(func.value.id + ".") for n in names):
        return True  # self.compute_loss() can read self.accum_steps
    held = {h for arg in [*call.args, *(k.value for k in call.keywords)] for h in _chains(arg)} - {None}
    return any(within(n, h) for n in names for h in held)


def _anchor(backward: ast.Call, loss: ast.AST, loop: ast.AST, ctx: ModuleContext) -> ast.AST:
    """Where the division goes: at the backward, or at the loss's assignment when that sits in another
    block (the loss computed inside an autocast block, say) or other assignments come between them."""
    if not isinstance(loss, ast.Name):
        return backward
    assigns = [n for n in ast.walk(loop) if isinstance(n, ast.Assign | ast.AnnAssign) and n.lineno < backward.lineno
               and any(isinstance(t, ast.Name) and t.id == loss.id
                       for tg in (n.targets if isinstance(n, ast.Assign) else [n.target]) for t in ast.walk(tg))]
    if not assigns:
        return backward
    assign = max(assigns, key=lambda n: n.lineno)
    statement = next((a for a in (backward, *ctx.ancestors(backward)) if isinstance(a, ast.stmt)), None)
    parent = ctx.parent(statement) if statement is not None else None
    block = getattr(parent, "body", None) or []
    if statement not in block or assign not in block:
        return assign  # computed in another block (an autocast `with`): the division goes after it there
    between = block[block.index(assign) + 1: block.index(statement)]
    # only logging between them (`print(loss.item())`): the division can go at the backward
    return backward if all(isinstance(s, ast.Expr) for s in between) else assign


def _stepped(call: ast.Call) -> ast.AST:
    """The optimiser of `opt.step()` or `scaler.step(opt)`."""
    return call.args[0] if call.args else call.func.value


def _scaled(expr: ast.AST, loop: ast.AST, ctx: ModuleContext, seen: set[str], names: set[str] | None) -> bool:
    """True when the loss is divided or multiplied on its way to backward (following the names
    it is assigned from in the loop), or comes from a local helper that scales: we cannot tell then."""
    if isinstance(expr, ast.BinOp):
        return isinstance(expr.op, SCALING) or any(_scaled(e, loop, ctx, seen, names) for e in (expr.left, expr.right))
    if isinstance(expr, ast.UnaryOp | ast.Attribute | ast.Subscript | ast.Starred):
        return _scaled(expr.operand if isinstance(expr, ast.UnaryOp) else expr.value, loop, ctx, seen, names)
    if isinstance(expr, ast.Call):
        if ctx.method_name(expr) in SCALING_METHODS or ctx.call_name(expr) in {"torch.div", "torch.mul"}:
            return True
        if (ctx.call_name(expr) or "") in GATHERING or isinstance(expr.func, ast.Name) \
                and expr.func.id in GATHERING and expr.func.id not in ctx.functions and expr.func.id not in ctx.aliases:
            return any(_scaled(a, loop, ctx, seen, names) for a in expr.args)
        helper = _helper(expr, ctx)
        if helper is not None:  # a helper we can read scales if it divides anywhere; one we cannot, may
            if helper is True:
                return _may_see(expr, names) or rescales_loss(expr, ctx)
            return any(isinstance(n, ast.BinOp) and isinstance(n.op, SCALING) for n in ast.walk(helper))
        # loss.mean() / out.loss.sum(): follow the receiver, not the arguments (inputs, labels)
        return isinstance(expr.func, ast.Attribute) and _scaled(expr.func.value, loop, ctx, seen, names)
    if isinstance(expr, ast.Name) and expr.id not in seen:
        seen.add(expr.id)
        # only what was assigned before this read: `loss = loss / k` after the backward is too late
        return any(value is None or _scaled(value, loop, ctx, seen, names)
                   for value in _assigned(expr.id, loop, getattr(expr, "lineno", 10**9)))
    return False


def _assigned(name: str, loop: ast.AST, before: int = 10**9) -> Iterator[ast.AST | None]:
    """Values assigned to `name` inside the loop; None for an in-place `/=` or `*=`."""
    for node in ast.walk(loop):
        if getattr(node, "lineno", 0) >= before:
            continue
        if isinstance(node, ast.With | ast.AsyncWith):  # `with amp.scale_loss(loss, opt) as scaled_loss:`
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == name:
                    expr = item.context_expr
                    yield expr.args[0] if isinstance(expr, ast.Call) and expr.args else expr
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            yield None if isinstance(node.op, SCALING) else node.value
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(
                node.value.func, ast.Attribute) and node.value.func.attr in IN_PLACE_SCALING and isinstance(
                node.value.func.value, ast.Name) and node.value.func.value.id == name:
            yield None  # horovod's `loss.div_(math.ceil(len(data) / args.batch_size))` before the backward
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store) and t.id == name
                   for tg in targets for t in ast.walk(tg)):
                yield node.value


def rescales_loss(call: ast.Call, ctx: ModuleContext) -> bool:
    """An imported function of the project that rescales the loss it is handed (VeOmni's `mean_global_loss(loss,
    micro_tokens, all_tokens)` multiplies it by its token share): the project index names its loss slots."""
    if ctx.project is None or not isinstance(call.func, ast.Name):
        return False
    name = (ctx.qualname(call.func) or call.func.id).rsplit(".", 1)[-1]
    slots = ctx.project.kind_returned_by(SCALES_LOSS + name)
    return bool(slots) and any(int(i) < len(call.args) and "loss" in name_of(call.args[int(i)]).lower()
                               for i in slots.split(","))


def _helper(call: ast.Call, ctx: ModuleContext) -> ast.AST | bool | None:
    """The local function or method a call runs; True for an imported helper or an inherited
    method (opaque: it may scale inside); None for criteria, models and torch functions."""
    func = call.func
    if isinstance(func, ast.Name):
        imported = func.id in ctx.aliases and not (ctx.qualname(func) or "").startswith("torch")
        return ctx.functions.get(func.id) or (True if imported else None)
    cls = ctx.enclosing_class(call)
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and cls:
        method = next((n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                       and n.name == func.attr), None)
        # self.criterion(...) is a stored module; self.compute_loss(...) from a base class is opaque
        return method or (None if func.attr in ctx.class_attrs.get(cls.name, {}) else True)
    return None
