"""How much of the linter's recall survives code that says the same thing in other words.

A rule fitted to the exact shape of the cases it was written for stops firing when a project names things
differently. This benchmark takes every buggy case of the lint corpora that the linter finds (a finding of the
right class anywhere in the case's files), rewrites the case's files in ways that keep the bug and the program's
meaning, lints the rewritten copy, and counts the cases still found. Rewrites (each on its own, on top of a
reformatting by `ast.unparse`, which drops comments):

  - `unparsed`: the reformatting alone (the baseline the others are compared with);
  - `locals`: every local variable and parameter of a function renamed to an opaque name (`v1`, `v2`, ...), the
    keywords of calls to that function in the same file with it;
  - `globals`: every module-level variable renamed the same way (names another file of the case mentions kept);
  - `attributes`: every attribute a class of the file assigns on `self` renamed (`self.criterion` -> `self.a3`),
    with every `.criterion` of the file; names another file mentions, or that torch gives meaning to (`weight`,
    `training`, ...), are kept, and so is a use on another receiver that may be the library's (`F.softmax`, or a
    name torch.Tensor or nn.Module has, as in `x.softmax()`);
  - `aliases`: import aliases renamed (`import torch.nn.functional as F` -> `as m1`, `nn` -> `m2`).

    python benchmarks/lint_mutations.py [--corpus DIR ...] [--show lost] [--case ID ...] [--keep DIR]

A case lost under a rewrite is a shape the rule only knows under one spelling. The corpora are development data;
the rewrites are mechanical, so this is a check of how the rules generalise, not of recall on new projects.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import functools
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from lint_corpus import accepted_codes, case_folder, extracted, load_cases

from mldebug_mcp.services.lint import lint

HERE = Path(__file__).resolve().parent
CORPORA = ["lint_corpus", *(f"lint_corpus_blind{n}" for n in ("", "2", "3", "4", "5", "6"))]
BUILTINS = frozenset(dir(builtins)) | {"self", "cls", "__name__", "__file__"}
# attribute names torch's classes (or Python's) give meaning to: renaming them would change the program
KEPT_ATTRIBUTES = frozenset({
    "training", "weight", "bias", "data", "grad", "device", "dtype", "shape", "forward", "parameters", "state_dict",
    "module", "modules", "children", "train", "eval", "cuda", "cpu", "to", "step", "zero_grad", "backward",
    "param_groups", "defaults", "state", "running_mean", "running_var", "num_batches_tracked", "dataset",
    "batch_size", "sampler", "optimizer", "scheduler", "lr_scheduler", "model", "config", "args", "hparams",
    "trainer", "log", "logger", "current_epoch", "global_step", "automatic_optimization", "loss",
})


def _words_in(texts: list[str]) -> set[str]:
    """Every identifier-like word of the texts: the names other files of a case may use, kept by each rewrite."""
    words: set[str] = set()
    for text in texts:
        words.update(re.findall(r"[A-Za-z_]\w*", text))
    return words


class _Namer:
    """Opaque new names (`v1`, `v2`, ...) that no identifier of the file already uses."""

    def __init__(self, prefix: str, tree: ast.Module) -> None:
        self.prefix, self.count, self.names = prefix, 0, {}
        self.taken = {getattr(n, attr) for n in ast.walk(tree) for attr in ("id", "attr", "arg", "name")
                      if isinstance(getattr(n, attr, None), str)}

    def __call__(self, old: str) -> str:
        if old not in self.names:
            new = old
            while new in self.taken or new == old:
                self.count += 1
                new = f"{self.prefix}{self.count}"
            self.names[old] = new
            self.taken.add(new)
        return self.names[old]


def _imported_and_defined(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
    return names


# classes whose methods a library calls by keyword are kept out of parameter renaming: only these bases are ours
OWN_BASES = frozenset({"Module", "object"})


def _library_methods(tree: ast.Module) -> set[ast.AST]:
    """Methods of classes with a base other than nn.Module: an override a library may call by keyword."""
    found: set[ast.AST] = set()
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "?") for b in cls.bases}
        if bases - OWN_BASES:
            found.update(n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    return found


def rename_locals(tree: ast.Module, keep: set[str]) -> None:
    fixed = _imported_and_defined(tree) | BUILTINS | keep
    module_level = {t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
                    for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    library = _library_methods(tree)
    namer = _Namer("v", tree)  # one old name -> one new name in the whole file, so closures stay consistent
    params_of: dict[str, dict[str, str]] = {}  # function, method or class (its __init__) -> renamed parameters
    owners = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]:
        args = func.args
        params = [a for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a]
        param_names = {a.arg for a in params}
        local = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        # a library-called override keeps its parameters' names, even where the body reassigns one
        local = (local - param_names if func in library else local | param_names) - fixed - module_level
        renamed = {name: namer(name) for name in sorted(local)}  # sorted: the same names on every run
        for a in params:
            if a.arg in renamed:
                a.arg = renamed[a.arg]
        for node in ast.walk(func):
            if isinstance(node, ast.Name) and node.id in renamed:
                node.id = renamed[node.id]
        owner = owners.get(func)
        key = owner.name if func.name == "__init__" and isinstance(owner, ast.ClassDef) else func.name
        params_of.setdefault(key, {}).update({k: v for k, v in renamed.items() if k in param_names})
    for call in [n for n in ast.walk(tree) if isinstance(n, ast.Call)]:
        callee = call.func
        if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Call) \
                and getattr(callee.value.func, "id", None) == "super":
            continue  # a base class's method, in another file or library
        name = callee.id if isinstance(callee, ast.Name) else callee.attr if isinstance(callee, ast.Attribute) else ""
        table = params_of.get(name) if not name.startswith("__") else None
        for keyword in call.keywords if table else ():
            if keyword.arg in table:
                keyword.arg = table[keyword.arg]


def rename_globals(tree: ast.Module, keep: set[str]) -> None:
    fixed = _imported_and_defined(tree) | BUILTINS | keep
    stored = {t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For
                                                       | ast.With | ast.If | ast.While | ast.Try)
              for t in ast.walk(node) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    # a name stored inside a function is that function's local unless declared global: keep those out
    in_functions = {t.id for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                    for t in ast.walk(f) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    in_functions |= {a.arg for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                     for a in ast.walk(f.args) if isinstance(a, ast.arg)}
    namer = _Namer("g", tree)
    renamed = {name: namer(name) for name in sorted(stored - fixed - in_functions) if not name.startswith("__")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]


def rename_attributes(tree: ast.Module, keep: set[str]) -> None:
    assigned = {t.attr for t in ast.walk(tree) if isinstance(t, ast.Attribute) and isinstance(t.ctx, ast.Store)
                and isinstance(t.value, ast.Name) and t.value.id == "self"}
    methods = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    # a string naming the attribute (getattr, a config key, an argparse option '--lr') ties it to that spelling
    strings = {n.value.lstrip("-").replace("-", "_") for n in ast.walk(tree)
               if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    imported = _imported_and_defined(tree)
    namer = _Namer("a", tree)
    renamed = {name: namer(name) for name in sorted(assigned - KEPT_ATTRIBUTES - keep - methods - strings)
               if not name.startswith("__")}
    library = _library_attributes()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or node.attr not in renamed:
            continue
        on_self = isinstance(node.value, ast.Name) and node.value.id == "self"
        # `F.softmax`, `torch.softmax`: an attribute of an imported module is the library's, whatever self holds;
        # `x.softmax()` on another receiver may be a tensor's own method
        if on_self or not (isinstance(node.value, ast.Name) and node.value.id in imported or node.attr in library):
            node.attr = renamed[node.attr]


@functools.cache
def _library_attributes() -> frozenset[str]:
    import torch

    return frozenset(dir(torch.Tensor)) | frozenset(dir(torch.nn.Module))


def rename_aliases(tree: ast.Module, keep: set[str]) -> None:
    namer = _Namer("m", tree)
    renamed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.asname not in keep:
                    renamed[alias.asname] = alias.asname = namer(alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*" and (alias.asname or alias.name) not in keep and alias.name[:1].islower():
                    old = alias.asname or alias.name
                    renamed[old] = alias.asname = namer(old)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]


REWRITES = {"unparsed": None, "locals": rename_locals, "globals": rename_globals, "attributes": rename_attributes,
            "aliases": rename_aliases}


def rewritten(texts: dict[str, str], rewrite) -> dict[str, str] | None:
    out = {}
    for rel, text in texts.items():
        if not rel.endswith(".py"):
            out[rel] = text
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return None
        if rewrite is not None:
            others = [t for r, t in texts.items() if r != rel]
            rewrite(tree, _words_in(others))
        out[rel] = ast.unparse(ast.fix_missing_locations(tree))
    return out


def found(case: dict, folder: Path, codes: set[str]) -> bool:
    report = lint([str(folder / p) for p in case["paths"]])
    return any(f.code in codes for f in report.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", help="corpus folders (default: the dev corpus and blind1-6)")
    parser.add_argument("--show", choices=["lost"], help="list the cases each rewrite loses")
    parser.add_argument("--case", action="append", help="only these case ids")
    parser.add_argument("--keep", help="write the rewritten copies under this folder (kept) instead of a temporary one")
    args = parser.parse_args()
    corpora = [Path(c) for c in args.corpus] if args.corpus else [HERE / c for c in CORPORA]
    kept: dict[str, Counter] = defaultdict(Counter)
    lost: dict[str, list[str]] = defaultdict(list)
    total: Counter = Counter()
    unparsable: set[str] = set()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="lint-mutations-"))
    try:
        for corpus in corpora:
            for case in load_cases(corpus):
                if args.case and case["id"] not in args.case:
                    continue
                if case["kind"] != "buggy" or not extracted(case, corpus) or not (codes := accepted_codes(case)):
                    continue
                source = case_folder(case, corpus)
                if not found(case, source, codes):
                    continue
                texts = {p: (source / p).read_text(encoding="utf-8", errors="replace") for p in case["paths"]}
                total[case["class"]] += 1
                for name, rewrite in REWRITES.items():
                    new = rewritten(texts, rewrite)
                    if new is None:  # a file Python 3's own parser rejects (lint reads old `async=` itself)
                        unparsable.add(case["id"])
                        continue
                    folder = work / case["id"] / name
                    for rel, text in new.items():
                        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
                        (folder / rel).write_text(text, encoding="utf-8")
                    if found(case, folder, codes):
                        kept[name][case["class"]] += 1
                    else:
                        lost[name].append(f"{corpus.name}/{case['id']} ({case['class']})")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    cases = sum(total.values())
    print(f"{cases} buggy cases the linter finds, in {len(corpora)} corpora ({len(unparsable)} not rewritten: a file "
          "ast.parse rejects); kept under each rewrite:")
    for name in REWRITES:
        print(f"  {name:11s} {sum(kept[name].values()):4d} / {cases}  ({100 * sum(kept[name].values()) / cases:5.1f}%)")
    print("per class (found; kept under " + ", ".join(REWRITES) + "):")
    for cls in sorted(total):
        print(f"  {cls:28s} {total[cls]:3d}: " + " ".join(f"{kept[n][cls]:3d}" for n in REWRITES))
    if args.show:
        for name in REWRITES:
            print(f"lost under {name}: {len(lost[name])}")
            for item in lost[name]:
                print(f"    {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
