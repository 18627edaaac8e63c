import ast
from collections.abc import Iterator
from itertools import pairwise

from ..context import ModuleContext
from ..helpers.accum_backwarded import backwarded_value, returns_running_loss
from ..helpers.accum_collectors import collector_store, holds_loss_entry, live_loss
from ..helpers.accum_handoff import kept_for_a_log
from ..helpers.accum_hook_state import hook_keeps_loss, may_keep_handed_losses
from ..helpers.accum_log_outputs import logged_loss_copy
from ..helpers.accum_losses import (
    DETACHING,
    FUNCTIONS,
    detached,
    framework_step,
    from_backward_step,
    is_loss_value,
    local_callee,
    loss_named,
    named_loss_tensor,
    trains,
)
from ..helpers.accum_meters import UPDATES
from ..helpers.accum_returned_numbers import returns_number
from ..helpers.accum_stores import accumulation
from ..helpers.accum_summed_returns import summed_elsewhere
from ..helpers.graph import (
    callee,
    depends_on_graph,
    in_no_grad,
    is_model_call,
    latest_value,
    module_index,
    other_framework,
)
from ..helpers.loops import LOOPS, is_backward
from ..rule import Hit, Rule

KEPT_FOR_A_LOG = ("'{loss}' is kept as {kept} with its autograd graph and a logging method appends it to the "
                  "statistics: every step's graph stays in memory")
LOGGED_COPY = ("'{loss}' is returned for backward and also kept, with its autograd graph, in a logging dict that "
               "callers sum into running statistics: store {loss}.item() or {loss}.detach() there")

SUMMED_ELSEWHERE = ("'{loss}' is returned with its autograd graph after the backward, and the loop at {where} adds "
                    "it to a running total: every step's graph stays in memory; return {loss}.item() or .detach()")

HOOK_KEEPS = ("'{loss}' is kept with its autograd graph: a training step of the run hands {hook}() its live losses "
              "and this keeps every iteration's, so every graph stays in memory; keep {loss}.detach() or .item()")

COLLECTED = ("'{loss}' is stored with its autograd graph in the statistics collector '{collector}', which keeps "
             "every step's value: store {loss}.item() or {loss}.detach()")


EVALUATION_SUM = ("'{loss}' is summed with its autograd graph in a function that trains nothing and returns only a "
                  "number: every batch's graph stays in memory until it returns; run it under torch.no_grad() or "
                  "sum {loss}.item()")


class AccumulatedLossKeepsGraph(Rule):
    """What it does: flags `total += loss`, `total = total + loss`, `totals[name] += loss`,
    `log[step] = loss` (a key that changes each iteration), `losses.append(loss)` (also `outputs.append({"loss": loss})`, or a step's output whose
    `output["loss"]` was backwarded) and `meter.update(loss)` on a running-average object that keeps
    what it is given, inside a loop, or on state kept in `self` by a training step, when `loss` is a
    live tensor (a criterion's output, a model-derived tensor that feeds a backward() in that loop,
    or, where a backward() runs, a value named as a loss that nothing turned into a number: iterated
    out of a dict of losses, unpacked from a call, returned by a local helper; or what a training step
    of this or another file returns after running backward() on it: `rpn, cls, total = train_step(...)`)
    and is not turned into a number (.item(), .detach(), float()). Also in-place sums
    (`running.add_(loss)`, `stats.stat("loss").add_(loss)` on state a training step is handed), dicts
    of running sums (`{k: running.get(k, 0) + v ...}`, `metrics.update(loss=metrics["loss"] + loss)`),
    a preallocated list whose entries are backwarded one per iteration, and a step that keeps its
    loss on self (`self.batch_loss = loss`) for a logging method that appends it to statistics; and a
    loss returned for backward beside a logging dict that holds the same live tensor
    (`return loss, sample_size, {"loss": loss, ...}`), which callers sum into running meters; a
    loss stored under a key in a statistics collector whose `__setitem__` keeps every value
    (`stat_col["loss"] = loss`), and a step's log dict holding the live loss kept on self for the
    epoch's end (`log, out = self.step(x, y)`; `self.training_step_outputs.append(log)`); a moving
    average or running mean of the loss (`ema = a * loss + (1 - a) * ema`); and a training step's return
    of its live loss when a loop of another file adds the result to a running total (only the elements of a
    returned tuple that carry the backwarded value: a token count or a log of `.data` beside it stays quiet);
    and a hook or callback that a training step of the run hands its live losses
    (`self.call_hook("after_train_iter", i, losses)`) and that keeps them on self (`self.history[k].append(v)`).

    Why is this bad: the running total holds a reference to every iteration's autograd graph, so
    activations are never freed. Training is unaffected until memory runs out much later, far from
    the cause. Summing losses for one backward() on the total (or returning that sum to the caller)
    is intended and stays quiet, as does anything under torch.no_grad() and a meter whose update
    converts (`val.item()`, `val.data`).
    """

    code = "MLD032"
    name = "accumulated-loss-keeps-graph"
    category = "autograd"
    severity = "warning"
    message = "'{loss}' is accumulated with its autograd graph: every iteration's graph stays in memory"
    why = "Adding a loss tensor to a running total chains all iterations' graphs together, so memory grows each step."
    fix = "Accumulate a number: total += loss.item() (or loss.detach() to avoid a device sync)."
    evidence = "pytorch-docs"
    node_types = (ast.AugAssign, ast.Assign, ast.Call, ast.Return)
    call_names = frozenset(UPDATES | {"append", "add_", "update"})  # the calls _accumulation reads
    # skip modules that cannot contain the pattern (a step elsewhere may run backward; a hook of another file's
    # training step may keep what it is handed)
    requires_text = ('backward', 'loss', 'hook', 'Hook', 'callback', 'Callback')
    BAD = (
        "def train(model, criterion, opt, loader):\n"
        "    total = 0.0\n"
        "    for x, y in loader:\n"
        "        opt.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        opt.step()\n"
        "        total += loss\n"
        "    return total / len(loader)\n"
    )
    GOOD = BAD.replace("total += loss\n", "total += loss.item()\n")

    def applies(self, ctx: ModuleContext) -> bool:
        # a file with no backward and no loss is read only as a hook of another file's training step
        return ctx.has_text("backward") or ctx.has_text("loss") or may_keep_handed_losses(ctx)

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.project is not None and not other_framework(ctx):
            for store, value, hook in hook_keeps_loss(ctx):
                yield Hit(store, HOOK_KEEPS.format(loss=value, hook=hook))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if other_framework(ctx) or not (ctx.has_text("backward") or ctx.has_text("loss")):
            return
        if isinstance(node, ast.Return | ast.Assign) or ctx.method_name(node) == "update":
            copy = logged_loss_copy(node, ctx)
            if copy is not None:
                yield Hit(copy, LOGGED_COPY.format(loss=copy.id))
                return
            if isinstance(node, ast.Return):
                summed = summed_elsewhere(node, ctx)
                if summed is not None:
                    yield Hit(node, SUMMED_ELSEWHERE.format(loss=ast.unparse(summed[0]), where=summed[1]))
                return
        if isinstance(node, ast.Assign) and kept_for_a_log(node, ctx):
            yield Hit(node, KEPT_FOR_A_LOG.format(loss=ast.unparse(node.value), kept=ast.unparse(node.targets[0])))
            return
        collected = collector_store(node, ctx) if isinstance(node, ast.Assign) else None
        if collected is not None:
            yield from self._collected(node, collected[1], ctx)
            return
        acc, added = accumulation(node, ctx)
        if acc is None:
            return
        loops, func = _enclosing(node, ctx)
        loop = loops[0] if loops else None
        if loop is None and not _kept_state(acc, func, node, ctx):
            return  # outside a loop only state kept on self or handed in outlives one call (asked before no_grad)
        if in_no_grad(node, ctx) or _one_iteration(node, loops, ctx) or _within_one_call(acc, loops, func, ctx):
            return
        if loop is None and not (func is not None and trains(func, ctx)):
            return  # outside a loop only state kept on self outlives one call of a training step
        training = any(trains(each, ctx) for each in loops) or (func is not None and trains(func, ctx))
        key = ast.unparse(_base(acc))
        entries_live = loop is not None and _entries_backwarded(acc, loop, ctx, appended=ctx.method_name(node) == "append")
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple) \
                and not isinstance(node.value, ast.Tuple) and not entries_live:
            return  # which element of a call's result is kept is unknown, unless its entries are backwarded
        for operand in _operands(added):
            value = latest_value(operand, ctx) if isinstance(operand, ast.Name) else operand
            if value is not None and (loop is not None and not _inside(value, loop, ctx) or detached(value, ctx)):
                continue
            if isinstance(operand, ast.Name) and returns_number(operand, ctx):
                continue  # an epoch function's average of .item() values: a number whatever its name
            # another element of a loss call's result than the live loss (a weight, a logging companion)
            companion = value is not None and _other_element(operand, value, loop, ctx)
            # feeding a backward() in this loop proves it carries a graph (inputs and labels do not come from a model)
            backwarded = value is not None and isinstance(operand, ast.Name) and loop is not None \
                and _backwarded_in(operand, loop, ctx) and depends_on_graph(value, ctx) and not companion
            # what a training step returned after its backward() (its own file's or another's)
            stepped = loop is not None and from_backward_step(operand, ctx)
            stepped = stepped or entries_live  # `losses[it - 1].backward()` in the loop: the entries are live
            stepped = stepped or loop is not None and returns_running_loss(operand, ctx)
            # `history[k].append(loss_dict[k])` where the sum of loss_dict's entries is backwarded in the loop
            backwarded = backwarded or loop is not None and isinstance(operand, ast.Subscript) \
                and isinstance(operand.value, ast.Name) and loss_named(operand.value) \
                and any(_backwarded_in(operand.value, each, ctx) for each in loops) \
                and depends_on_graph(latest_value(operand.value, ctx) or operand.value, ctx)
            # what a backward() in the step (or the loop) runs on, or a term of it, whatever it is called
            # (a script's top-level training loop: the outermost loop around the store, which holds its backward)
            region = func if func is not None else loops[-1] if loops else None
            backwarded = backwarded or region is not None and backwarded_value(operand, region, ctx)
            # with no backward() in the file only a step of another file that runs one is evidence of training
            # an evaluation helper with no backward in sight that sums a criterion's outputs and hands back only a
            # number: the total holds the whole data set's graphs until it returns (cgnet's dataset_loss)
            summed_for_a_number = (func is not None and not training and value is not None and not companion
                                   and is_loss_value(value, ctx) and _fed_a_model_output(value, ctx)
                                   and _returned_as_number(key, node, ctx)
                                   and not _called_under_no_grad(func, ctx))
            if summed_for_a_number:
                yield Hit(node, EVALUATION_SUM.format(loss=ast.unparse(operand)))
                return
            live = backwarded or stepped or bool(ctx.backward_scopes or func is not None and framework_step(func)) and (
                value is not None and is_loss_value(value, ctx) and not companion
                or training and named_loss_tensor(operand, ctx) and not companion
                or loop is not None and _holds_backwarded(operand, node, loop, ctx)
                or (training or _on_self(acc)) and holds_loss_entry(operand, ctx))
            if not live:
                continue
            training = training or stepped
            # summing losses for a later backward() (or handing the sum back to the caller) is intended
            # (a framework's training step backwards what it returns: returning the sum is the backward)
            framework = func is not None and framework_step(func)
            if _used_for_backward(key, node, ctx) or (not (backwarded or training) or framework) and _returned(
                    key, node, ctx):
                return
            if _reset_in_loop(_base(acc), node, loop or func, ctx) or _reset_per_step(_base(acc), node, loops, ctx):
                return
            yield Hit(node, self.message.format(loss=ast.unparse(operand)))
            return

    def _collected(self, node: ast.Assign, value: ast.expr, ctx: ModuleContext) -> Iterator[Hit]:
        """`stat_col["loss"] = loss` in a step that trains, or hands the loss back to its caller for backward."""
        func = ctx.enclosing(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        # a loss call's value, or what a backward() in this step ran on, whatever the criterion is called
        if func is None or not (live_loss(value, ctx) or backwarded_value(value, func, ctx)) or in_no_grad(node, ctx):
            return
        handed_back = isinstance(value, ast.Name) and _returned(value.id, node, ctx)
        if handed_back or trains(func, ctx):
            yield Hit(node, COLLECTED.format(loss=ast.unparse(value), collector=ast.unparse(node.targets[0].value)))


def _other_element(operand: ast.expr, value: ast.AST, loop: ast.AST | None, ctx: ModuleContext) -> bool:
    """`lx, lu, w = criterion(...)`: `w` is one element of what a loss call returns, and its name does not say it
    is a loss (a ramp-up weight, a count): which element is the live loss is not visible. Also
    `loss, loss_items = compute_loss(...)` with `loss` backwarded in the loop and the criterion defined in
    another file: the other elements are the loss's logging companions, often detached there (not visible)."""
    stmt = ctx.parent(value)
    if not (isinstance(operand, ast.Name) and isinstance(stmt, ast.Assign) and is_loss_value(value, ctx)):
        return False
    targets = [t for t in stmt.targets if isinstance(t, ast.Tuple | ast.List)]
    if not targets:
        return False
    if not loss_named(operand):
        return True
    if loop is None or local_callee(value, ctx) is not None or _backwarded_in(operand, loop, ctx):
        return False
    siblings = [e for t in targets for e in t.elts if isinstance(e, ast.Name) and e.id != operand.id]
    return any(_backwarded_in(s, loop, ctx) for s in siblings)


MAPPING_VIEWS = {"items", "values", "keys"}


def _within_one_call(acc: ast.expr, loops: list[ast.AST], func: ast.AST | None, ctx: ModuleContext) -> bool:
    """A dict or list made empty in this function and filled in its only loop, which walks the entries of a mapping
    (`for name, adversary in self.adv_losses.items(): d_losses[name] = adversary.train_adv(...)`) and runs no
    backward: it holds one call's values, one per entry, and is dropped when the call returns (audiocraft). Also any
    store of a constructor that runs no backward: it fills its tables once."""
    if func is not None and func.name == "__init__" and not any(is_backward(c) for c in ctx.within(ast.Call, func)):
        return True  # a constructor filling its tables once (`self.aux_losses[name] = builders.get_loss(...)`)
    if len(loops) != 1 or func is None or not isinstance(loops[0], ast.For):
        return False
    loop, base = loops[0], _base(acc)
    walked = loop.iter.func.attr if isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Attribute) \
        else None
    if walked not in MAPPING_VIEWS or not isinstance(base, ast.Name) \
            or any(is_backward(c) for c in ctx.within(ast.Call, loop)):
        return False
    made = [n for n in [*ctx.within(ast.Assign, func), *ctx.within(ast.AnnAssign, func)] if n.lineno < loop.lineno
            and isinstance(n.value, ast.Dict | ast.List) and not (n.value.keys if isinstance(n.value, ast.Dict)
                                                                  else n.value.elts)
            and any(isinstance(t, ast.Name) and t.id == base.id
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    return bool(made)


def _one_iteration(node: ast.AST, loops: list[ast.AST], ctx: ModuleContext) -> bool:
    """Under `if step == 0:` (or `if epoch == last:`), with `step` the counter of the innermost loop (or of one
    around loops of micro-steps only): the value is
    kept on one iteration only (a test keeping the first step's output to compare), so no graphs pile up."""
    # the innermost loop's counter, or an outer loop's when the loops inside it only count micro-steps
    # (`for micro in range(k)`); `if epoch == 0:` inside a loop over batches still keeps every batch's graph
    counters: set[str] = set()
    for loop in loops:
        if not isinstance(loop, ast.For | ast.AsyncFor):
            break
        counters |= {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        if not (isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"):
            break
    if not counters:
        return False
    child = node
    for anc in ctx.ancestors(node):
        if anc is loops[0]:
            return False  # an `if` outside the innermost loop: that loop still keeps every iteration's graph
        if isinstance(anc, ast.If) and child in anc.body and isinstance(anc.test, ast.Compare) \
                and len(anc.test.ops) == 1 and isinstance(anc.test.ops[0], ast.Eq):
            sides = (anc.test.left, anc.test.comparators[0])
            counted = [s for s in sides if isinstance(s, ast.Name) and s.id in counters]
            other = [s for s in sides if not any(s is c for c in counted)]
            if len(counted) == 1 and other and not any(
                    isinstance(n, ast.Name) and n.id in counters for n in ast.walk(other[0])) \
                    and not (isinstance(other[0], ast.Constant) and isinstance(other[0].value, str)):
                return True
        child = anc
    return False


def _enclosing(node: ast.AST, ctx: ModuleContext) -> tuple[list[ast.AST], ast.AST | None]:
    """The loops around `node` inside its function (innermost first), and that function."""
    loops = []
    for anc in ctx.ancestors(node):
        if isinstance(anc, FUNCTIONS):
            return loops, anc
        if isinstance(anc, LOOPS):
            loops.append(anc)
    return loops, None


def _base(acc: ast.expr) -> ast.expr:
    """`totals` for `totals[name]`: the object that keeps the values."""
    while isinstance(acc, ast.Subscript):
        acc = acc.value
    return acc


def _kept_state(acc: ast.expr, func: ast.AST | None, node: ast.AST, ctx: ModuleContext) -> bool:
    """State that outlives one call of `func`: kept on self, or reached through a parameter (`stats.stat("loss")
    .add_(loss)`, `logs["loss"].append(loss)`); a parameter's own name only when added to in place."""
    if _on_self(acc):
        return True
    root = acc
    while isinstance(root, ast.Attribute | ast.Subscript | ast.Call):
        root = root.func if isinstance(root, ast.Call) else root.value
    if not isinstance(root, ast.Name) or not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    in_place = isinstance(node, ast.Call) or root is not acc
    return root.id in params and root.id != "self" and in_place and not ctx.values_of(root, at=node)


def _entries_backwarded(acc: ast.expr, loop: ast.AST, ctx: ModuleContext, appended: bool = False) -> bool:
    """`losses[i - 1].backward()` in the loop that stores into `losses[i]`, or `history[-1].backward()` in the
    loop that appends to `history` (a loss history also read for a stopping test): the entries carry graphs."""
    if not isinstance(acc, ast.Subscript) and not (appended and isinstance(acc, ast.Name | ast.Attribute)):
        return False
    key = ast.unparse(_base(acc))
    calls = module_index(ctx)["backward"].get(ctx.scope_of(loop), ())
    return any(_inside(c, loop, ctx) and isinstance(c.func.value, ast.Subscript)
               and ast.unparse(_base(c.func.value)) == key for c in calls)


def _on_self(acc: ast.expr) -> bool:
    """`self.losses`, `self.history[k]`: state that outlives one call of the method."""
    base = _base(acc)
    while isinstance(base, ast.Attribute | ast.Subscript):
        base = base.value
    return isinstance(base, ast.Name) and base.id == "self" and base is not _base(acc)


def _operands(expr: ast.expr) -> Iterator[ast.expr]:
    """Names and calls the added value is built from by arithmetic or in a literal container (`[a * 1000, b]`,
    `{"loss": loss}`), not inside .item() and the like."""
    if isinstance(expr, ast.BinOp):
        yield from _operands(expr.left)
        yield from _operands(expr.right)
    elif isinstance(expr, ast.List | ast.Tuple):
        for element in expr.elts:
            yield from _operands(element)
    elif isinstance(expr, ast.Dict):
        for element in expr.values:
            yield from _operands(element)
    elif isinstance(expr, ast.Name | ast.Call | ast.Subscript):
        yield expr  # a subscript: an entry of a step's result (`result["loss"]`)


def _holds_backwarded(operand: ast.expr, node: ast.AST, loop: ast.AST, ctx: ModuleContext) -> bool:
    """`output['loss'].backward()` in the loop, then `outputs.append(output)`: the container keeps the loss
    tensor, unless that entry is replaced by a number or a detached tensor before it is kept."""
    if not isinstance(operand, ast.Name):
        return False
    calls = module_index(ctx)["backward"].get(ctx.scope_of(loop), ())
    held = [c for c in calls if _inside(c, loop, ctx) and c.lineno <= node.lineno
            and _element_of(c.func.value, operand.id)]
    if not held:
        return False
    for assign in ctx.in_scope(ctx.scope_of(loop), (ast.Assign,)):
        if held[0].lineno <= assign.lineno <= node.lineno and detached(assign.value, ctx) and any(
                _element_of(t, operand.id) for t in assign.targets):
            return False
    return True


def _element_of(expr: ast.AST, name: str) -> bool:
    """`output['loss']`, `output.loss`: an entry of the object `name`."""
    if not isinstance(expr, ast.Subscript | ast.Attribute):
        return False
    while isinstance(expr, ast.Subscript | ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name) and expr.id == name


def _backwarded_in(name: ast.Name, loop: ast.AST, ctx: ModuleContext) -> bool:
    """A backward() in the loop whose loss is built from `name` (`loss.backward()`, `(a + b).backward()`)."""
    calls = module_index(ctx)["backward"].get(ctx.scope_of(loop), ())
    return any(_inside(c, loop, ctx) and _mentions(c, name.id, ctx, live=True) for c in calls)


def _inside(node: ast.AST, loop: ast.AST, ctx: ModuleContext) -> bool:
    return node is loop or loop in set(ctx.ancestors(node))


def _mentions(expr: ast.AST, key: str, ctx: ModuleContext, live: bool = False, budget: int = 20) -> bool:
    """Whether `expr`, through names assigned before it, uses `key` (a name or self.attribute);
    with `live`, not counting uses under .item(), .detach() and the like."""
    todo = [expr]
    while todo and budget > 0:
        budget -= 1
        stack = [todo.pop()]
        while stack:
            node = stack.pop()
            if live and (isinstance(node, ast.Call) and ctx.method_name(node) in DETACHING
                         or isinstance(node, ast.Attribute) and node.attr == "data"):
                continue
            if isinstance(node, ast.Name | ast.Attribute) and ast.unparse(node) == key:
                return True
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                value = latest_value(node, ctx)
                todo.extend([value] if value is not None else [])
                # `loss += subloss` also feeds `loss`
                todo.extend(a.value for a in module_index(ctx)["augmented"].get((ctx.scope_of(node), node.id), ()))
            stack.extend(ast.iter_child_nodes(node))
    return False


def _used_for_backward(key: str, node: ast.AST, ctx: ModuleContext) -> bool:
    """A backward() of the running total (not of one entry of it: `losses[i].backward()`)."""
    scope = ctx.scope_of(node)
    calls = [c for c in module_index(ctx)["backward"].get(scope, ())
             if not (isinstance(c.func.value, ast.Subscript) and ast.unparse(_base(c.func.value)) == key)]
    if any(_mentions(c, key, ctx) for c in calls):
        return True
    # `self.loss = self.a + self.b; self.loss.backward()` after `self.b += l2`: the sum built on self in this step
    return any(_mentions(v, key, ctx) for c in calls if isinstance(c.func.value, ast.Attribute)
               for v in ctx.values_of(c.func.value) if ctx.scope_of(v) is scope and v.lineno <= c.lineno)


def _fed_a_model_output(loss: ast.expr, ctx: ModuleContext) -> bool:
    """The loss call is given a model's output: a model call, or a name last bound to one (`pred = model(x)`,
    `_, pred = model.forward(x)`)."""
    if not isinstance(loss, ast.Call):
        return False
    for arg in loss.args:
        value = latest_value(arg, ctx) if isinstance(arg, ast.Name) else arg
        if is_model_call(value, ctx):
            return True
    return False


def _returned_as_number(key: str, node: ast.AST, ctx: ModuleContext) -> bool:
    """Every return of the function that mentions the total turns it into a number (`loss.data.item()`,
    `float(total / n)`): the caller never gets the graph, so summing with it was not for a backward."""
    values = _returned_values(key, node, ctx)
    return bool(values) and all(_as_number(v) for v in values)


def _as_number(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Call):
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in {"item", "tolist"}:
            return True
        return isinstance(expr.func, ast.Name) and expr.func.id in {"float", "int"}
    return False


def _called_under_no_grad(func: ast.AST, ctx: ModuleContext) -> bool:
    """Some call of the function in this file runs under torch.no_grad() (or inference mode)."""
    name = getattr(func, "name", None)
    return any(callee(c.func) == name and in_no_grad(c, ctx) for c in ctx.by_type.get(ast.Call, ()))


def _returned(key: str, node: ast.AST, ctx: ModuleContext) -> bool:
    return bool(_returned_values(key, node, ctx))


def _returned_values(key: str, node: ast.AST, ctx: ModuleContext) -> list[ast.expr]:
    """What the returns of the function around `node` that mention the total hand back."""
    returns = module_index(ctx)["returns"].get(ctx.scope_of(node), ())
    return [r.value for r in returns if r.value is not None and _mentions(r.value, key, ctx)]


def _reset_in_loop(acc: ast.expr, node: ast.AST, loop: ast.AST, ctx: ModuleContext) -> bool:
    """`total = 0` inside the same loop (or `self.outputs = []` earlier in the same step): the graphs live for
    one iteration only."""
    values = ctx.values_of(acc, at=node) if isinstance(acc, ast.Name | ast.Attribute) else []
    own = node.value if isinstance(node, ast.Assign) else None
    return any(v is not own and v.lineno < node.lineno and _inside(v, loop, ctx) for v in values)


def _reset_per_step(acc: ast.expr, node: ast.AST, loops: list[ast.AST], ctx: ModuleContext) -> bool:
    """`parts = []` in the loop over batches, then `for head_out in outputs: parts.append(criterion(...))` and a
    backward() later in the same batch iteration, outside that inner loop: the inner loop runs within one
    training step (over heads, scales, terms), so the list keeps one step's graph only."""
    if len(loops) < 2 or not isinstance(acc, ast.Name | ast.Attribute):
        return False
    values = [v for v in ctx.values_of(acc, at=node) if v.lineno < node.lineno]
    if not values:
        return False
    calls = module_index(ctx)["backward"].get(ctx.scope_of(node), ())
    for inner, outer in pairwise(loops):  # `inner`: the loop inside `outer` that holds the append
        if not any(_inside(v, outer, ctx) and not _inside(v, inner, ctx) for v in values):
            continue
        return not any(_inside(c, inner, ctx) for c in calls) and any(
            _inside(c, outer, ctx) and c.lineno > node.lineno for c in calls)
    return False
