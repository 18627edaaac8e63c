import ast
import re
from collections.abc import Iterator

from ..context import ModuleContext
from ..helpers.optim_children import left_out_parts
from ..helpers.optim_clip_mismatch import clipped_elsewhere
from ..helpers.optim_groups import held_nearby, left_out_modules, unused_groups
from ..helpers.optim_head_reset import head_reset_after_optimizer
from ..helpers.optim_listed_twice import listed_twice
from ..helpers.optim_loss_weights import built_beside_handed_optimizer
from ..helpers.optim_orphan_parameters import orphan_parameters
from ..helpers.optim_params import (
    ITERATORS,
    covered,
    dotted,
    is_optimizer_name,
    params_argument,
    within,
)
from ..helpers.optim_same_params import built_over_same_parameters
from ..helpers.optim_unregistered import moved_parameters, unregistered_tensors
from ..helpers.optim_untrained import untrained_modules
from ..helpers.optim_untrained_attrs import untrained_attributes
from ..helpers.params_subset import subset_helpers
from ..rule import Hit, Rule

# swapping in a module without parameters (nn.Identity() for the head) leaves nothing untrained
PARAMETER_FREE = re.compile(
    r"Identity|Flatten|Unflatten|\w*Dropout\w*|\w*Pool[123]d|(Leaky)?ReLU6?|R?ReLU|[GS]?ELU|CELU|GELU|SiLU|Mish|"
    r"(Log)?Sigmoid|Tanh|Tanhshrink|(Log)?Softmax2?d?|Softmin|Softplus|Softsign|Hard\w+|Upsample\w*|Pixel(Un)?Shuffle"
)
WRAPPERS = ("DataParallel", "DistributedDataParallel")  # wrap the same parameters


class OptimizerMissingParameters(Rule):
    """What it does: flags parameters that appear after an optimiser was built and are not in it,
    in the same function: a part of the model unfrozen (requires_grad_(True),
    p.requires_grad = True) when the optimiser holds only another part or only the parameters
    that were trainable then; or the model, or one of its submodules, replaced by a newly
    constructed module while the optimiser built on the old one is still used. Also flags an
    optimiser built from param groups when one group built before it is never added to the
    list it takes, and optimisers built on the model alone when the file gathers another
    module's parameters with the model's, and optimisers built from the model's parts one by one (param
    groups per part, also built in a loop over its blocks for layer-wise learning rates) that leave out a part with weights the model's class builds and runs (`list(model.parameters()) + list(criterion.parameters())`,
    or, with one part listed, `Adam(self.encoder.parameters())` beside a loss module with a learned temperature),
    a loss with trainable weights) and no optimiser holds them; modules the file freezes or puts
    in eval mode are left out. Also a trainer class that trains with an optimiser it is handed and builds a
    module with weights itself (a loss with learnable uncertainty weights or a classifier head, from a local
    class or a method another file's subclass defines), never adding its parameters. And a model's own
    parameters helper (`def non_discr_parameters(self): return [*self.encoder.parameters(), ...]`) that leaves
    out a part with weights which forward runs between the parts it lists (`self.encoder_attn`). And an
    optimiser whose update clips parameters (`clip_grad_norm_(model.decoder_params, 5)` before its step) that
    it does not hold and another optimiser of the scope does: the two were given each other's parameters. And a
    module's trainable tensor kept as a plain attribute (`self.val = torch.zeros(n, requires_grad=True)`, read
    by forward), which nn.Module does not register, so no optimiser built from model.parameters() holds it. And
    an nn.Parameter kept on a class that is not a module and builds its own optimisers from its networks'
    parameters (a PPO agent's `self.log_std` beside `Adam(self.actor_net.parameters())`), never listed in one. And
    `self.w = nn.Parameter(t).to(device)` (or `.cuda()`, `.double()`): a move to another device or dtype returns a
    plain tensor copy that the module does not register. And two optimisers kept on one object and built one after
    the other in one block over the same parameters argument (`self.value_optimizer = Adam(get_parameters(
    self.model_modules))` after `self.model_optimizer = Adam(get_parameters(self.model_modules))`): the module
    meant for the second is in no optimiser.

    Why is this bad: backward computes gradients for the new or unfrozen parameters, so gradient
    checks look healthy, but the optimiser never updates them; training runs and those weights
    stay where they started.
    """

    code = "MLD015"
    name = "optimizer-missing-parameters"
    category = "optimiser"
    severity = "error"  # silent: those weights never move, and gradient checks look healthy
    message = "{what}, but the optimizer built on line {line} does not hold those parameters"
    why = "Gradients reach these parameters, but the optimizer only updates the tensors it was given."
    fix = "Build the optimizer after the model is final and unfrozen, or add the new ones with opt.add_param_group()."
    evidence = "slavv"
    node_types = (ast.Call,)
    call_names = staticmethod(lambda name: name[:1].isupper())  # is_optimizer_name: a class name
    # skip modules that cannot contain the pattern (any of: a handed optimizer; an update clipping parameters the
    # stepped optimiser was not built on, `Adam(model.encoder_params)`)
    requires_text = ('parameters', 'optimizer', 'clip_grad', 'requires_grad')
    BAD = (
        "import torch\n"
        "from torch import nn\n"
        "def finetune(model, train):\n"
        "    opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "    model.fc = nn.Linear(512, 10)\n"
        "    train(model, opt)\n"
    )
    GOOD = BAD.replace("    opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n    model.fc = nn.Linear(512, 10)\n",
                       "    model.fc = nn.Linear(512, 10)\n    opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n")

    GROUP = "the parameter group '{name}' built on line {line} is never passed to this optimizer: its parameters never train"
    UNTRAINED = ("{name} (built on line {line}) has trainable parameters and runs in training, but no optimizer "
                 "here holds them: they never train")
    LEFT_OUT = ("{path}'s parameters are gathered for training on line {line}, but this optimizer (like every "
                "optimizer here) does not hold them: they never train")

    PART = ("this optimizer is built from the model's parts one by one but leaves out {path} (built at "
            "{line} and run in forward): its parameters never train; add a group for it")
    LOSS_PART = ("this optimizer holds only {listed}'s parameters and leaves out the loss module {path} (built at "
                 "{line} and run in the training step), whose own weights then never train; add its parameters")

    UNREGISTERED = ("{path} is a tensor with requires_grad=True, not an nn.Parameter: the module does not register "
                    "it, so model.parameters() and every optimizer built from it leave it out and it never trains; "
                    "wrap it in nn.Parameter(...)")

    MOVED = ("{path} = nn.Parameter(...).{move}(...): on another device or dtype .{move}() returns a plain tensor copy, "
             "which the module does not register, so model.parameters() and every optimizer built from it leave it "
             "out and it never trains; move the tensor inside: nn.Parameter(t.{move}(...))")

    ORPHAN = ("{path} is an nn.Parameter of a class that is not an nn.Module, so no .parameters() call reaches it, "
              "and none of the optimizers this class builds lists it: its gradient is never applied and it keeps "
              "its initial value; list it in an optimizer ([*net.parameters(), {path}])")

    TWICE = ("{path}'s parameters are listed a second time here: the module meant in this place{instead} is "
             "left out of the optimiser and never trains")

    HANDED = ("{path} holds trainable weights (built at {where}) and this class builds it after its optimizer was "
              "handed in: that optimizer cannot hold them and nothing here adds them, so they never train; add "
              "them with optimizer.add_param_group({{'params': {path}.parameters()}})")

    SUBSET = ("this parameters helper leaves out {missing}, which forward runs between the parts it lists: the "
              "loss backpropagates through them, but an optimizer built from this helper never updates them")

    RESET = ("this optimizer is built on {path} before {call}() on line {line} replaces a layer of it with a new "
             "one: the optimizer holds the old layer's tensors and the new one never trains; rebuild the head first")

    SWAPPED = ("the update that steps this optimizer (line {step}) clips {clipped}, which this optimizer does not "
               "hold and the one built on line {other} does: the two were given each other's parameters, so each "
               "step moves what the other loss trained")

    SAME = ("{this} is built over the same parameters as {other} (line {line}): both optimizers step one set of "
            "tensors, and the module meant for this one is in no optimizer, so it never trains")

    def finish(self, ctx: ModuleContext) -> Iterator[Hit]:
        if ctx.has_text("requires_grad"):
            for assign, path in unregistered_tensors(ctx):
                yield Hit(assign, self.UNREGISTERED.format(path=path))
        for assign, path, move in moved_parameters(ctx):
            yield Hit(assign, self.MOVED.format(path=path, move=move))
        for assign, path in orphan_parameters(ctx):
            yield Hit(assign, self.ORPHAN.format(path=path))
        for call, path, near in listed_twice(ctx):
            instead = f" (perhaps {' or '.join(near)})" if near else ""
            yield Hit(call, self.TWICE.format(path=path, instead=instead))
        if ctx.classes and ctx.has_text("forward"):
            for ret, missing in subset_helpers(ctx, PARAMETER_FREE.fullmatch):
                yield Hit(ret, self.SUBSET.format(missing=", ".join(f"self.{m}" for m in missing)))
        if ctx.has_text("optim"):
            for assign, call, path in head_reset_after_optimizer(ctx):
                yield Hit(assign, self.RESET.format(path=path, call=ast.unparse(call.func), line=call.lineno))
            for cls in ctx.classes.values():
                for anchor, path, where in built_beside_handed_optimizer(cls, ctx):
                    yield Hit(anchor, self.HANDED.format(path=path, where=where))

    def check(self, node: ast.AST, ctx: ModuleContext) -> Iterator[Hit]:
        if not is_optimizer_name(ctx.call_name(node)):
            return
        params = params_argument(node)
        sources = covered(params, ctx) if params is not None else None
        scope = ctx.scope_of(node)
        later = [c for c in ctx.in_scope(scope, (ast.Call,)) if c.lineno > node.lineno]
        # whatever happens later: a group never handed on, a module no optimiser here holds
        for name, line in unused_groups(node, ctx):
            yield Hit(node, self.GROUP.format(name=name, line=line))
        for path, line in left_out_modules(node, sources, ctx) if sources else ():
            yield Hit(node, self.LEFT_OUT.format(path=path, line=line))
        held = held_nearby(node, ctx) if sources else None
        for name, line in untrained_modules(node, held, ctx) if held is not None else ():
            yield Hit(node, self.UNTRAINED.format(name=name, line=line))
        for name, line in untrained_attributes(node, ctx):
            yield Hit(node, self.UNTRAINED.format(name=name, line=line))
        for path, line, alone in left_out_parts(node, ctx):
            yield Hit(node, self.LOSS_PART.format(listed=alone, path=path, line=line) if alone
                      else self.PART.format(path=path, line=line))
        twin = built_over_same_parameters(node, ctx)
        if twin is not None:
            yield Hit(node, self.SAME.format(this=ast.unparse(ctx.parent(node).targets[0]),
                                             other=ast.unparse(ctx.parent(twin).targets[0]), line=twin.lineno))
        swapped = clipped_elsewhere(node, ctx)
        if swapped is not None:
            clip, step, other = swapped
            yield Hit(node, self.SWAPPED.format(clipped=ast.unparse(clip.args[0]), step=step.lineno,
                                                other=other.lineno))
        if not sources or any(_rebuilds(c, ctx) for c in later):
            return  # unknown parameter list, or the optimiser is rebuilt/extended later: stay quiet
        for stmt in _unfreezes(later, ctx, scope, node.lineno):
            path = _unfrozen_path(stmt, ctx)
            if path and _missing(path, sources) and _used_after(node, stmt, ctx, scope):
                yield Hit(stmt, self.message.format(what=f"{path} is unfrozen here", line=node.lineno))
        for stmt in ctx.in_scope(scope, (ast.Assign,)):
            if stmt.lineno <= node.lineno or not _builds_module(stmt, ctx):
                continue
            path = dotted(stmt.targets[0])
            # the replaced module is (or holds, or sits inside) what the optimiser was given
            if any(within(path, c) or within(c, path) for c, _ in sources) and _used_after(node, stmt, ctx, scope):
                what = f"{ast.unparse(stmt.targets[0])} is replaced by a new module"
                yield Hit(stmt, self.message.format(what=what, line=node.lineno))


def _rebuilds(call: ast.Call, ctx: ModuleContext) -> bool:
    """Another optimiser, add_param_group, or a helper whose name says it builds one."""
    func = call.func
    short = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return is_optimizer_name(ctx.call_name(call)) or short == "add_param_group" or "optimi" in short.lower()


def _unfreezes(calls: list[ast.Call], ctx: ModuleContext, scope: ast.AST, after: int) -> list[ast.AST]:
    """`x.requires_grad_()`, `x.requires_grad_(True)` and `p.requires_grad = True` after the optimiser."""
    def true(values: list[ast.expr]) -> bool:
        return all(isinstance(v, ast.Constant) and v.value is True for v in values)
    found: list[ast.AST] = [c for c in calls if ctx.method_name(c) == "requires_grad_"
                            and true(c.args[:1] + [k.value for k in c.keywords if k.arg == "requires_grad"])]
    return found + [a for a in ctx.in_scope(scope, (ast.Assign,)) if a.lineno > after and true([a.value])
                    and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in a.targets)]


def _unfrozen_path(node: ast.AST, ctx: ModuleContext) -> str | None:
    """What an unfreeze touches: `model.layer4`, or the model a `for p in model.parameters()` walks."""
    target = node.func.value if isinstance(node, ast.Call) else node.targets[0].value
    if isinstance(target, ast.Name):
        for loop in (a for a in ctx.ancestors(node) if isinstance(a, ast.For)):
            if target.id in {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}:
                # `for p in model.layer4.parameters()`, `for block in model.blocks[-2:]`
                return dotted(loop.iter.func.value if ctx.method_name(loop.iter) in ITERATORS else loop.iter)
        target = ctx.resolve(target)
    return dotted(target)


def _missing(path: str, covered: list[tuple[str, bool]]) -> bool:
    """`path` shares a root with the optimiser's parameters but lies outside every full group."""
    related = any(path.split(".")[0] == c.split(".")[0] for c, _ in covered)
    return related and not any(within(path, c) and not only_trainable for c, only_trainable in covered)


def _builds_module(assign: ast.Assign, ctx: ModuleContext) -> bool:
    """`model = Net()` or `model.fc = nn.Linear(...)`: a new module (or parameter), not `.to()`/DDP."""
    if len(assign.targets) != 1 or not isinstance(assign.value, ast.Call) or dotted(assign.targets[0]) is None:
        return False
    call, target = assign.value, dotted(assign.targets[0])
    if any(dotted(a) == target for a in call.args + [k.value for k in call.keywords]):
        return False  # `model = Wrapper(model)` keeps the same parameters
    name = ctx.call_name(call) or ""
    if ctx.method_name(call) == "from_pretrained" or name.startswith(("torchvision.models.", "timm.create_model")):
        return True
    if name.endswith(WRAPPERS):
        return False
    if name.startswith("torch.nn.") and name.rsplit(".", 1)[-1][:1].isupper() and ".parallel." not in name:
        return not PARAMETER_FREE.fullmatch(name.rsplit(".", 1)[-1])
    return _is_module_class(ctx.classes.get(name), ctx, 3)


def _is_module_class(cls: ast.ClassDef | None, ctx: ModuleContext, depth: int) -> bool:
    """A local class deriving (through at most `depth` local classes) from a torch.nn class."""
    bases = [ctx.qualname(b) or "" for b in cls.bases] if cls is not None and depth > 0 else []
    return any(b.startswith("torch.nn.") or _is_module_class(ctx.classes.get(b), ctx, depth - 1) for b in bases)


def _used_after(opt_call: ast.Call, stmt: ast.AST, ctx: ModuleContext, scope: ast.AST) -> bool:
    """The optimiser still steps, or is handed to a call, after `stmt` (later, or in a loop around it)."""
    holder = ctx.parent(opt_call)
    if not (isinstance(holder, ast.Assign) and len(holder.targets) == 1 and dotted(holder.targets[0])):
        return False
    key = dotted(holder.targets[0])
    loops = {a for a in ctx.ancestors(stmt) if isinstance(a, ast.For | ast.While)}
    for ref in ctx.in_scope(scope, (type(holder.targets[0]),)):
        if dotted(ref) != key or not isinstance(ref.ctx, ast.Load):
            continue
        if ref.lineno > stmt.lineno or loops & set(ctx.ancestors(ref)):
            parent = ctx.parent(ref)
            if isinstance(parent, ast.Attribute) and parent.attr in {"step", "zero_grad"}:
                return True
            if isinstance(parent, ast.Call) and ref in parent.args + [k.value for k in parent.keywords]:
                return True
    return False
