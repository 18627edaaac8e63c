"""Do the rules read a training script whose loop runs at module level as well as the same code in a function?

Scripts, notebooks (every cell is module level) and tutorials put the training loop at the top of a file. This
benchmark takes each function of the rule fixtures (`tests/lint/fixtures/mldNNN.py`) that holds no `return`,
`yield`, `global`, `nonlocal` or `self`, writes its body as a script (the fixture's imports and its other classes
and functions, as a notebook's earlier cells would define them, then the body at module level: its parameters
become free names), and lints it with the rule alone, counting only findings in the script's own lines:

  - a function with lines marked `# MLDNNN` is kept when the rule still fires somewhere in the script;
  - a function with no marked line (a correct variant) should stay quiet as a script too.

    python benchmarks/lint_script_level.py [--codes MLD010,MLD032] [--show]

A lost function is not always a defect: where the only evidence was what a caller hands the function (a
parameter's kind), a script with a free name carries none. The fixtures are development data; this measures how
the rules generalise across one structural difference, not recall on new projects.
"""

from __future__ import annotations

import argparse
import ast
import sys
import textwrap
from collections import Counter
from pathlib import Path

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.engine import lint_source

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "lint" / "fixtures"
SKIPPED = (ast.Return, ast.Yield, ast.YieldFrom, ast.Nonlocal, ast.Global)
PRELUDE = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)


def first_line(node: ast.stmt) -> int:
    """The statement's first line, its first decorator's for a decorated def or class."""
    decorators = getattr(node, "decorator_list", None)
    return decorators[0].lineno if decorators else node.lineno


def as_script(function: ast.FunctionDef, lines: list[str], prelude: list[str]) -> tuple[str, int] | None:
    """The function's body (docstring dropped) as module-level code after the fixture's imports and its other
    definitions (a notebook defines its classes and helpers in earlier cells), with the first line of the body in
    the result; None when it cannot be converted."""
    if any(isinstance(n, SKIPPED) or isinstance(n, ast.Name) and n.id == "self" for n in ast.walk(function)):
        return None
    first = function.body[0]
    body = function.body[1:] if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) else function.body
    if not body:
        return None
    text = textwrap.dedent("\n".join(lines[body[0].lineno - 1:function.end_lineno]))
    head = "\n".join(prelude) + "\n"
    return head + text + "\n", head.count("\n") + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--codes", help="only these rule codes, comma-separated")
    parser.add_argument("--show", action="store_true", help="list each lost firing function and loud correct one")
    args = parser.parse_args()
    wanted = {c.strip().upper() for c in args.codes.split(",")} if args.codes else None
    firing, kept, correct, loud = Counter(), Counter(), Counter(), Counter()
    notes: list[str] = []
    for path in sorted(FIXTURES.glob("mld0*.py")):
        code = path.stem.upper()
        if wanted and code not in wanted:
            continue
        source = path.read_text(encoding="utf-8")
        lines, tree = source.splitlines(), ast.parse(source)
        # the imports and definitions (from a first decorator), their marks dropped: only the script's lines count
        definitions = [(node, [line.split(f"# {code}")[0].rstrip() for line in lines[first_line(node) - 1:node.end_lineno]])
                       for node in tree.body if isinstance(node, PRELUDE)]
        for function in [n for n in tree.body if isinstance(n, ast.FunctionDef)]:
            prelude = [line for node, text in definitions if node is not function for line in text]
            converted = as_script(function, lines, prelude)
            if converted is None:
                continue
            script, first = converted
            marked = any(f"# {code}" in line for line in script.splitlines())
            fired = any(f.code == code and f.line >= first
                        for f in lint_source(script, "script.py", LintSettings(select=(code,))))
            if marked:
                firing[code] += 1
                kept[code] += fired
                if not fired:
                    notes.append(f"lost  {code} {function.name} ({path.name}:{function.lineno})")
            else:
                correct[code] += 1
                loud[code] += fired
                if fired:
                    notes.append(f"loud  {code} {function.name} ({path.name}:{function.lineno})")
    print(f"firing fixture functions still found as scripts: {sum(kept.values())}/{sum(firing.values())}; "
          f"correct ones that fire as scripts: {sum(loud.values())}/{sum(correct.values())}")
    for code in sorted(set(firing) | set(correct)):
        print(f"  {code}: kept {kept[code]}/{firing[code]}, loud {loud[code]}/{correct[code]}")
    if args.show:
        print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
