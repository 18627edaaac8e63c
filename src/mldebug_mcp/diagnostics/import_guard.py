"""Does importing a script run it? Read its AST, never import it, and find the first call made at import.

`diagnose FILE:fn` imports FILE in the child before calling fn, so a script that trains at module level
would train (and write its checkpoints) under diagnose. Module-level code that only imports, defines
functions and classes, assigns constants and builds objects is fine; so are calls known to be harmless
(seeding, argparse parser building, logging and warnings set-up, tensor and path construction). Any
other call outside `if __name__ == "__main__":` (a training loop, main(), trainer.fit(), torch.save,
parser.parse_args()) is reported with its line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..safe_read import read_bounded

MAX_SOURCE_BYTES = 16 << 20  # a Python file read to parse it; a script is a few KB

# Called by their qualified name (imports resolved): seeding, set-up and pure helpers.
HARMLESS_CALLS = frozenset({
    "abs", "all", "any", "bool", "bytes", "callable", "dict", "dir", "enumerate", "filter", "float", "format",
    "frozenset", "getattr", "hasattr", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max",
    "min", "object", "print", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str", "sum",
    "tuple", "type", "vars", "zip",
    "torch.manual_seed", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all", "torch.set_num_threads",
    "torch.set_default_dtype", "torch.set_default_device", "torch.set_float32_matmul_precision",
    "torch.use_deterministic_algorithms", "torch.set_printoptions", "torch.set_grad_enabled", "torch.device",
    "torch.cuda.is_available", "torch.cuda.device_count", "torch.backends.mps.is_available",
    "torch.get_default_dtype", "torch.autograd.set_detect_anomaly", "torch.no_grad", "torch.inference_mode",
    "random.seed", "numpy.random.seed", "numpy.random.default_rng",
    "os.getenv", "os.environ.get", "os.environ.setdefault", "os.getcwd", "os.cpu_count", "os.fspath",
    "sys.path.insert", "sys.path.append", "sys.setrecursionlimit",
    "warnings.filterwarnings", "warnings.simplefilter", "logging.getLogger", "logging.basicConfig",
    "matplotlib.use", "functools.partial", "dataclasses.field", "collections.namedtuple", "typing.cast",
    "pathlib.Path", "numpy.set_printoptions", "dotenv.load_dotenv", "re.compile", "json.loads", "json.dumps",
})
HARMLESS_MODULES = ("os.path.", "typing.", "math.", "itertools.")  # every function under these is pure
# Seeding helpers under any module: transformers.set_seed, lightning's seed_everything.
HARMLESS_LAST_NAMES = frozenset({"set_seed", "seed_everything", "manual_seed", "manual_seed_all"})
TENSOR_FACTORIES = frozenset({
    "tensor", "as_tensor", "zeros", "ones", "full", "empty", "arange", "linspace", "randn", "rand", "randint",
    "eye", "zeros_like", "ones_like", "from_numpy", "array", "asarray",
})
# Methods harmless on any receiver: argparse parser building, logging set-up, str/dict/path helpers, and
# moving or switching a module (not `train`, which is also HF Trainer's training call).
HARMLESS_METHODS = frozenset({
    "add_argument", "add_argument_group", "add_mutually_exclusive_group", "set_defaults", "add_subparsers",
    "add_parser", "setLevel", "addHandler", "setFormatter", "getLogger",
    "format", "join", "split", "rsplit", "strip", "lower", "upper", "replace", "startswith", "endswith",
    "items", "keys", "values", "get", "copy", "update", "append", "extend", "insert", "setdefault",
    "resolve", "absolute", "expanduser", "joinpath", "with_suffix", "with_name", "exists", "is_file", "is_dir",
    "read_text", "glob", "rglob", "iterdir",
    "to", "cuda", "cpu", "eval", "float", "half", "double", "requires_grad_", "parameters", "named_parameters",
    "manual_seed", "seed", "is_available",
})


@dataclass(frozen=True)
class SideEffect:
    """The first call that importing the file would make, and where."""

    line: int
    call: str       # the called name as written, e.g. "train" or "trainer.fit"
    source: str     # the source line, stripped


def first_side_effect(source: str, filename: str = "<file>") -> SideEffect | None:
    """The first module-level call outside `if __name__ == "__main__":` that is not known to be harmless.

    A file that does not parse gives None: importing it fails with its own SyntaxError, which says more."""
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return None
    aliases = _import_aliases(tree)
    calls = _ExecutedCalls()
    for statement in tree.body:
        calls.visit(statement)
    lines = source.splitlines()
    for call in sorted(calls.found, key=lambda c: (c.lineno, c.col_offset, c.end_col_offset or 0)):  # inner first
        if not _harmless(call, aliases):
            text = lines[call.lineno - 1].strip() if call.lineno <= len(lines) else ""
            return SideEffect(call.lineno, ast.unparse(call.func), text)
    return None


def refuse_side_effects(path: Path, roots: tuple[Path, ...] | None = None) -> None:
    """UsageError naming the first call importing `path` would make, if any (see first_side_effect).

    Read through safe_read (with `roots`, the open file must lie inside them), at most MAX_SOURCE_BYTES."""
    source = read_bounded(path, MAX_SOURCE_BYTES, roots, what="Python file").decode("utf-8", errors="replace")
    effect = first_side_effect(source, str(path))
    if effect is not None:
        raise UsageError(
            f"{path}:{effect.line} calls {effect.call}() at import ({effect.source}); diagnose imports the file to "
            "find the spec function, so that code would run too (training, writing files). Move the script's "
            "top-level work under `if __name__ == \"__main__\":` (the spec function stays at top level), or, "
            "if that call is harmless, pass --allow-import-side-effects (CLI)")


class _ExecutedCalls(ast.NodeVisitor):
    """Calls that run when the module is imported: not inside defs, classes, lambdas or the main guard."""

    def __init__(self) -> None:
        self.found: list[ast.Call] = []

    def visit_FunctionDef(self, node: ast.AST) -> None:  # bodies, decorators and defaults: declarations
        return

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if _is_main_guard(node.test):
            for statement in node.orelse:  # the else branch of the guard does run at import
                self.visit(statement)
            return
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.found.append(node)
        self.generic_visit(node)


def _is_main_guard(test: ast.expr) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)
            and any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides))


def _import_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name, for the module's imports (np -> numpy, F -> torch.nn.functional)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The qualified name of a callee made of names and attributes, or None (a call result, a subscript)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _harmless(call: ast.Call, aliases: dict[str, str]) -> bool:
    func = call.func
    name = _dotted(func, aliases)
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name is not None and (name in HARMLESS_CALLS or name.startswith(HARMLESS_MODULES)):
        return True
    if last in HARMLESS_LAST_NAMES or (isinstance(func, ast.Attribute) and last in HARMLESS_METHODS):
        return True
    if name is not None and name.split(".")[0] in ("torch", "numpy") and last in TENSOR_FACTORIES:
        return True
    if last[:1].isupper():  # a class: building an object (Net(), nn.Linear(...), argparse.ArgumentParser())
        return True
    # an alternative constructor: AutoTokenizer.from_pretrained(...), Config.from_dict(...)
    receiver = func.value if isinstance(func, ast.Attribute) else None
    receiver_name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
    return last.startswith("from_") and receiver_name[:1].isupper()
