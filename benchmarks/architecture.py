"""Figures of the package's shape, read from the source with ast (nothing is imported but the
package itself, in a child process, to count what `import mldebug_mcp.cli` loads).

    python benchmarks/architecture.py [--src src/mldebug_mcp]

Prints: the number of modules; the top-level parts (a root module or a first-level package) and
the arrows between them (distinct part -> part imports, function-level imports included); the
largest import cycle between modules; and how many of the package's modules `import
mldebug_mcp.cli` and `import mldebug_mcp` load.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from import_graph import PACKAGE, graph, part  # noqa: E402  (the contract tests read the same graph)


def largest_cycle(edges: dict[str, set[str]]) -> list[str]:
    """The largest strongly connected component (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    best: list[str] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > len(best):
                    best = sorted(component)
    return best if len(best) > 1 else []


def loaded_by(statement: str) -> int:
    code = f"import sys\n{statement}\nprint(sum(1 for m in sys.modules if m == '{PACKAGE}' or m.startswith('{PACKAGE}.')))"
    return int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src" / PACKAGE)
    args = parser.parse_args()
    edges = graph(args.src)
    arrows: dict[str, set[str]] = defaultdict(set)
    for module, targets in edges.items():
        for target in targets:
            if part(module) != part(target):
                arrows[part(module)].add(part(target))
    parts = sorted({part(m) for m in edges})
    cycle = largest_cycle(edges)
    print(f"modules                          {len(edges)}")
    print(f"top-level parts                  {len(parts)}  ({', '.join(parts)})")
    print(f"arrows between parts             {sum(len(t) for t in arrows.values())}")
    print(f"largest import cycle             {len(cycle)} modules" + (f"  ({', '.join(cycle)})" if cycle else ""))
    print(f"modules loaded by import {PACKAGE}.cli  {loaded_by(f'import {PACKAGE}.cli')}")
    print(f"modules loaded by import {PACKAGE}      {loaded_by(f'import {PACKAGE}')}")
    for source in sorted(arrows):
        print(f"  {source:<16} -> {', '.join(sorted(arrows[source]))}")


if __name__ == "__main__":
    main()
