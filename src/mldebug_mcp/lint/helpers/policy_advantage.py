"""Dataflow for MLD036: inside one function, does a policy-gradient product (log-probability times
advantage) take an advantage that still carries the critic's graph? Flow is per function and by line:
a name's value at a use is its last full rebinding before the use plus later item writes and appends
(`adv[t] = gae`, `advs.insert(0, gae)`), so `adv = adv.detach()` ends a live advantage."""
import ast
import re

from ..context import ModuleContext
from .evaluation import under_no_grad
from .graph import GRAPH_CUTS as CUTS
from .graph import callee as ident  # `x` -> "x", `self.x` -> "x"; "" for anything else

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
NUMBER_MAKERS = {"tensor", "as_tensor", "from_numpy", "FloatTensor", "LongTensor", "Tensor", "array", "asarray",
                 "float", "int", "zeros_like", "zeros", "ones", "ones_like", "full_like", "empty_like", "len"}
# shape and reduction steps a value keeps its graph through
PASS = {"squeeze", "unsqueeze", "view", "reshape", "flatten", "expand_as", "expand", "gather", "sum", "mean",
        "float", "to", "cuda", "cpu", "clamp", "stack", "cat", "transpose", "permute", "contiguous", "index_select",
        "view_as", "squeeze_", "t", "type_as", "max", "min", "exp"}
LOG_CALLS = {"log_prob", "log", "log_softmax", "logsigmoid", "log_probs", "get_log_prob", "log_likelihood"}
LOG_NAME = re.compile(r"(^|_)(neg)?log_?(p|ps|prob|probs|probability|pi|pis|policy|policies|lik\w*|softmax|pa|prob_a\w*)"
                      r"($|_)|^logp|^logprob|(^|_)ratios?$")  # PPO's ratio exp(logp - old_logp) too
VALUE_NAME = re.compile(r"^(v|vs|v_s|v_t|vt|v_pred|vpreds?|values?|state_values?|baselines?|critic\w*|q_?values?|"
                        r"value_preds?|pred_values?|\w*_values?|value_\w+)$")
STALE = re.compile(r"(^|_)(old|target|tgt|next|prev|buffer|buf|batch|mb|rollout|stored|b)(_|$)")
VALUE_CALL = re.compile(r"critic|value|baseline|(^|_)vf($|_)|(^|_)v_?net")
MODULES = {"torch", "F", "np", "numpy", "nn", "functional"}
REGRESSIONS = {"mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss"}


def base(expr: ast.AST) -> ast.AST:
    """`values[t].squeeze(-1)` -> `values`; a call of a network stays itself."""
    while True:
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Call) and method(expr) in PASS:
            expr = expr.func.value
        elif isinstance(expr, ast.UnaryOp):
            expr = expr.operand
        else:
            return expr


def callee(call: ast.Call) -> str:
    return ident(call.func)


def method(call: ast.Call) -> str:
    """`x.squeeze()` -> 'squeeze'; a module's function (`torch.stack`, `F.relu`) is no method."""
    func = call.func
    if not isinstance(func, ast.Attribute) or isinstance(func.value, ast.Name) and func.value.id in MODULES:
        return ""
    return func.attr


class Flow:
    """Per-function facts, computed once."""

    def __init__(self, func: ast.AST, ctx: ModuleContext) -> None:
        self.ctx = ctx
        self.func = func
        self.binds: dict[str, list[tuple[int, bool, ast.AST | None, ast.AST]]] = {}  # name -> (line, full, value, stmt)
        self.detached: set[str] = set()  # names the function detaches somewhere: it knows they carry a graph
        self.regressed: set[str] = set()  # names fed to a regression loss: the function trains through them
        self.fitted: set[frozenset] = set()  # the two names a regression loss compares (mse_loss(b, reward))
        for node in _walk_scope(func):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value, node)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
                self._bind(node.target, node.value, node, full=isinstance(node, ast.AnnAssign))
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
                self.regressed |= {ident(n) for n in ast.walk(node.left) if ident(n)}
        for found in self.binds.values():  # by line (stable), once here rather than in every `at`
            found.sort(key=lambda b: b[0])

    def _bind(self, target: ast.AST, value: ast.AST | None, stmt: ast.AST, full: bool = True) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            # `dist, value = model(obs)`: each name gets the call (a forward's outputs share its graph)
            for element in target.elts:
                self._bind(element, value, stmt, full)
            return
        if isinstance(target, ast.Subscript):
            target, full = base(target), False
        name = ident(target)
        if name:
            self.binds.setdefault(name, []).append((stmt.lineno, full, value, stmt))

    def _call(self, call: ast.Call) -> None:
        name = callee(call)
        if name in CUTS and isinstance(call.func, ast.Attribute):
            self.detached.add(ident(base(call.func.value)))
        elif name in {"append", "insert"} and isinstance(call.func, ast.Attribute) and call.args:
            self._bind(call.func.value, call.args[-1], call, full=False)
        elif name in REGRESSIONS or name == "pow" and call.args and _is_two(call.args[0]):
            receiver = [call.func.value] if name == "pow" and isinstance(call.func, ast.Attribute) else []
            for arg in [*call.args, *receiver]:
                self.regressed |= {ident(n) for n in ast.walk(arg) if ident(n)}
            if name in REGRESSIONS and len(call.args) >= 2:
                self.fitted.add(frozenset((ident(base(call.args[0])), ident(base(call.args[1])))))

    def at(self, name: str, line: int) -> list[ast.AST | None]:
        """The values `name` may hold at `line`: its last full binding before it and later partial ones."""
        found = [b for b in self.binds.get(name, ()) if b[0] < line]
        last_full = max((i for i, b in enumerate(found) if b[1]), default=0)
        return [None if under_no_grad(stmt, self.ctx) else value for _, _, value, stmt in found[last_full:]]

    # ---- what a value is ---------------------------------------------------------------

    def log_prob(self, expr: ast.AST, line: int, seen: frozenset = frozenset()) -> bool:
        expr = base(expr)
        if isinstance(expr, ast.Call):
            if callee(expr) in LOG_CALLS:
                return True
            if callee(expr) in {"exp", "clamp", "clip"} and expr.args:  # torch.clamp(ratio, 1 - eps, 1 + eps)
                return self.log_prob(expr.args[0], line, seen)
            return callee(expr) in {"stack", "cat"} and any(self.log_prob(a, line, seen) for a in expr.args)
        name = ident(expr)
        if not name:
            return False
        if LOG_NAME.search(name.lower()):
            return True
        if name in seen or not isinstance(expr, ast.Name):
            return False
        return any(v is not None and self.log_prob(v, line, seen | {name}) for v in self.at(name, line))

    def live(self, expr: ast.AST | None, line: int, seen: frozenset = frozenset(), unknown: bool = False) -> bool:
        """Whether `expr` carries an autograd graph here, as far as this function shows (`unknown`: what a
        parameter or attribute holds is taken as live)."""
        if expr is None or isinstance(expr, ast.Constant):
            return False
        if isinstance(expr, ast.Attribute) and expr.attr == "data":
            return False
        if isinstance(expr, ast.Call):
            name, qualified = callee(expr), self.ctx.call_name(expr) or ""
            if name in CUTS or name in NUMBER_MAKERS or qualified.startswith(("np.", "numpy.")):
                return False
            if method(expr) in PASS:
                return any(self.live(a, line, seen, unknown) for a in [expr.func.value, *expr.args])
            if qualified.startswith(("torch.", "F.")):
                return any(self.live(a, line, seen, unknown) for a in expr.args)
            return True  # a forward: a network's output
        if isinstance(expr, ast.BinOp):
            return self.live(expr.left, line, seen, unknown) or self.live(expr.right, line, seen, unknown)
        if isinstance(expr, ast.UnaryOp):
            return self.live(expr.operand, line, seen, unknown)
        if isinstance(expr, ast.Subscript):
            return self.live(expr.value, line, seen, unknown)
        if isinstance(expr, ast.List | ast.Tuple):
            return any(self.live(e, line, seen, unknown) for e in expr.elts)
        name = ident(expr)
        if not name or name in seen:
            return False
        values = self.at(name, line) if isinstance(expr, ast.Name) else []
        if not values:  # a parameter or an attribute: live only when the function shows it is
            return unknown or name in self.detached or name in self.regressed
        return any(self.live(v, line, seen | {name}, unknown) for v in values)

    def value(self, expr: ast.AST, line: int, trained: bool = False) -> bool:
        """A critic's estimate that still carries its graph: `values[t]`, `V`, `self.critic(s)`. Where the
        function regresses the advantage itself (`adv.pow(2)`), a value it does not show dead counts."""
        core = base(expr)
        if isinstance(core, ast.Call):
            return bool(VALUE_CALL.search(callee(core).lower())) and self.live(core, line)
        name = ident(core)
        if not name or not VALUE_NAME.match(name.lower()) or STALE.search(name.lower()):
            return False
        return self.live(core, line, unknown=trained)

    def advantage(self, expr: ast.AST, line: int, seen: frozenset = frozenset()) -> ast.AST | None:
        """A difference against a live value inside `expr` (through names bound before `line`), if any."""
        trained = bool(seen & self.regressed)
        for node in _walk_uncut(expr):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
                if self.value(node.right, line, trained) or self.value(node.left, line, trained):
                    return node
                if self._baseline(node, line):
                    return node
            elif isinstance(node, ast.Name) and node.id not in seen:
                for v in self.at(node.id, line):
                    if v is not None and self.advantage(v, getattr(v, "lineno", line), seen | {node.id}):
                        return node
        return None

    def _baseline(self, difference: ast.BinOp, line: int) -> bool:
        """`reward - b` where the function also regresses b onto reward (`mse_loss(reward, b)`): b is a
        learned baseline whatever its name (critique, b, pred_return), live when a forward gave it."""
        target, estimate = ident(base(difference.left)), base(difference.right)
        name = ident(estimate)
        return bool(target and name and target != name and frozenset((target, name)) in self.fitted
                    and isinstance(estimate, ast.Name) and self.live(estimate, line))


def _walk_scope(scope: ast.AST):
    """The nodes of a function (or of a script's module level), not entering nested defs, classes and lambdas."""
    stack = [scope]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node)
                     if not isinstance(c, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda))


def _is_two(expr: ast.AST) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == 2


def _walk_uncut(expr: ast.AST):
    """Nodes of `expr`, not entering a detach, a number maker or `.data`."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and callee(node) in CUTS | NUMBER_MAKERS:
            continue
        if isinstance(node, ast.Attribute) and node.attr == "data":
            continue
        if isinstance(node, ast.Lambda | ast.comprehension):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def factors(product: ast.BinOp) -> list[ast.AST]:
    """`-(rho * logp * adv)` -> [rho, logp, adv]."""
    out, stack = [], [product]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            stack += [node.left, node.right]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            stack.append(node.operand)
        else:
            out.append(node)
    return out


def may_be_log_prob(term: ast.AST) -> bool:
    """A cheap look before the dataflow: a log call or a log-probability's name inside the term."""
    for node in ast.walk(term):
        if isinstance(node, ast.Call) and callee(node) in LOG_CALLS:
            return True
        name = ident(node)
        if name and LOG_NAME.search(name.lower()):
            return True
    return False


def flow(func: ast.AST, ctx: ModuleContext) -> Flow:
    return ctx.memo(("mld036.flow", func), lambda: Flow(func, ctx))
