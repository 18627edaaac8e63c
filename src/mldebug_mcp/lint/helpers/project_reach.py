"""Which file of a run a name links to (MLD001's cross-file pass): the file that uses a model by its name and the
file that defines it must be of one project. A run over a repository of many scripts or sub-projects holds many
classes of one name (each book chapter's `Net`, each example's `GCN`, two `Discriminator`s of two papers), and a
name alone joined one script's loss to another's model.

A link holds when the using file imports the name from the defining file: `from models.resa import RESANet`, a
package that re-exports it (`from models import RESANet`: any file under `models/`), a module alias
(`R.RESANet` after `import models.resa as R`) or a star import. With no import naming it (a model handed in as a
parameter, `net(x)` or `output['exist']`, matched by `~net`, `*/exist`, a slot or a base class), the defining file
must lie in the using file's own project (helpers/loader_facts.asked_scopes: its folder, the places its imports
name, and the folder its own package is imported from), and, for a name, no other file there may define it.

Told as scoped keys: the file whose loss takes a model tells `fed:Net@<path>` (imported from there) or
`fed:~net@?<path>` (its project), and the defining file asks under its own module path and each folder above it;
a model's file tells its kinds under those same paths (`Net@<path>`), asked by the using file under the paths
its import names. `+def:Net` gathers the module path of every file that defines `Net` (ProjectIndex.gathered).
"""

from __future__ import annotations

import ast
import os
import re

from .kinds import SLOT, class_aliases
from .loader_facts import ANCESTORS, LIBRARIES, asked_scopes

IMPORTED = "@"  # `fed:Net@/repo/models`: told for the files at or below that path, where an import found it
PROJECT = "@?"  # `fed:~net@?/repo/ch13`: told for the files of that project, if the name is defined once there
DEFINES = "+def:"  # `+def:Net` -> the module path of a file that defines `Net` (every file's value is kept)
# keys that name no definition, only where a model went: any model handed in (`*`, `*/exist`), a slot of a
# function of the telling file (`@train#0`), a module picked by name (`module:models`)
NAMELESS = ("*", SLOT, "module:")
_OWNER = re.compile(r"~?\w+")


def definition_facts(ctx) -> dict[str, str]:
    """`+def:<name>` -> this module's path for each class and top-level function, and the names another file may
    know a model class by (`~net`, `~decoder`: kinds.class_aliases): the candidates a name may link to."""
    here = _module_path(ctx)
    names = [*ctx.functions, *ctx.classes]
    names += [a for cls in ctx.classes.values() for a in class_aliases(cls, ctx) if a[:1] == "~"]
    return {DEFINES + name: here for name in names}


def scoped_uses(facts: dict[str, str], ctx, prefixes: tuple[str, ...]) -> dict[str, str]:
    """The facts of this file whose key names a model of another file (`fed:Net`, `hand:Net`), told only for the
    files this one can reach by that name; the other facts as they are."""
    found = {}
    for key, value in facts.items():
        prefix = next((p for p in prefixes if key.startswith(p)), None)
        if prefix is None:
            found[key] = value
            continue
        name = key[len(prefix):]
        scopes = None if name.startswith(NAMELESS) or name[:1] in "~^" else import_scopes(_owner(name), ctx)
        mark = IMPORTED if scopes is not None else PROJECT
        for scope in scopes if scopes is not None else project_scopes(ctx):
            found.setdefault(f"{key}{mark}{scope}", value)
    return found


def told_in_reach(project, key: str, scopes: tuple[str, ...] | None = None) -> str | None:
    """The value of `key` (`fed:Net`) told by a file that can reach this one (the defining file) by that name; or
    the file whose own scopes are `scopes` (definer_scopes: a wrapper's file, for the model handed to it)."""
    if scopes is None:
        if project.local is None:
            return None
        scopes = own_scopes(project.local.ctx)
    name = key.partition(":")[2]
    owner = None if name.startswith(NAMELESS) else _owner(name)
    for scope in scopes:
        found = project.kind_returned_by(f"{key}{IMPORTED}{scope}")
        if found is not None:
            return found
        found = project.kind_returned_by(f"{key}{PROJECT}{scope}")
        if found is not None and (owner is None or _alone(project, owner, scope)):
            return found
    return None


def definer_scopes(project, name: str) -> list[tuple[str, ...]]:
    """The own scopes of each file of the run that defines `name` (told_in_reach asks on its behalf)."""
    return [_path_scopes(path) for path in project.gathered(DEFINES + name)]


def scoped_kinds(facts: dict[str, str], ctx) -> dict[str, str]:
    """The kinds this module tells of its definitions (`Net` -> softmax, `Net/0`, `build()`), also under its module
    path and each folder above it, where a file that imports the name asks (foreign_kind)."""
    scopes = own_scopes(ctx)
    return {f"{key}{IMPORTED}{scope}": value for key, value in facts.items() for scope in scopes}


def foreign_kind(ctx, key: str) -> str | None:
    """What the file of the run this one takes the definition `key` names from (`Net`, `Net/0`, `build()`,
    `Net.project`) says it returns: the file its import names, else the one file of its project defining it."""
    project = ctx.project
    if project is None:
        return None
    owner = _owner(key)
    scopes = import_scopes(owner, ctx)
    for scope in scopes if scopes is not None else project_scopes(ctx):
        found = project.kind_returned_by(f"{key}{IMPORTED}{scope}")
        if found is not None and (scopes is not None or _alone(project, owner, scope)):
            return found
    return None


def import_scopes(name: str, ctx) -> tuple[str, ...] | None:
    """The paths this module imports `name` from (each place the module may lie: beside this file or a folder
    above it, or under its `src/`; none for a library's module); None when no import names it."""
    return ctx.memo(("project-reach", "import", name), lambda: _import_scopes(name, ctx))


def _import_scopes(name: str, ctx) -> tuple[str, ...] | None:
    froms = ctx.by_type.get(ast.ImportFrom, ())
    modules = [(n.level, n.module) for n in froms if any(name in (a.name, a.asname) for a in n.names)]
    if not modules:  # `R.RESANet` after `import models.resa as R`
        for node in _attributes(ctx).get(name, ()):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            module = ctx.qualname(node.value) if isinstance(root, ast.Name) and root.id in ctx.aliases else None
            if module is not None:
                modules.append((0, module))
    if not modules:  # from models import *
        modules = [(n.level, n.module) for n in froms if any(a.name == "*" for a in n.names)]
    if not modules:
        return None
    above = _above(ctx)
    found = []
    for level, module in modules:
        parts = module.split(".") if module else []
        if level:
            found.append(os.path.join(above[min(level - 1, len(above) - 1)], *parts))
        elif parts and parts[0] not in LIBRARIES:
            found += [os.path.join(base, *where, *parts) for base in above for where in ((), ("src",))]
    return tuple(dict.fromkeys(found))


def project_scopes(ctx) -> tuple[str, ...]:
    """The folders of this file's own project: where helpers/loader_facts looks (its folder, the packages and
    modules its imports may name), and the folder its own package is imported from (`runner/trainer.py` importing
    `runner.registry`: the folder above `runner/`, whose `models/` a model handed in comes from)."""
    return ctx.memo(("project-reach", "project"), lambda: tuple(dict.fromkeys(asked_scopes(ctx) + _package_roots(ctx))))


def _package_roots(ctx) -> tuple[str, ...]:
    above = _above(ctx)
    found = []
    for node in ctx.by_type.get(ast.ImportFrom, ()):
        if node.level:  # a relative import: this file is in a package, imported from the folder above it
            found.append(os.path.dirname(above[min(node.level - 1, len(above) - 1)]))
    names = {n.module.split(".")[0] for n in ctx.by_type.get(ast.ImportFrom, ()) if n.module and not n.level}
    names |= {a.name.split(".")[0] for n in ctx.by_type.get(ast.Import, ()) for a in n.names}
    for folder in above:  # the nearest folder above this file that an absolute import names
        if os.path.basename(folder) in names - LIBRARIES:
            found.append(os.path.dirname(folder))
            break
    return tuple(found)


def own_scopes(ctx) -> tuple[str, ...]:
    """This module's path, then each folder above it: where a fact about it may be told."""
    return ctx.memo(("project-reach", "own"), lambda: _path_scopes(_module_path(ctx)))


def _path_scopes(module: str) -> tuple[str, ...]:
    scopes = [module]
    folder = os.path.dirname(module)
    while True:
        scopes.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return tuple(scopes)
        folder = parent


def _alone(project, name: str, scope: str) -> bool:
    """No two files at or below `scope` define `name`: which one a use of the bare name means is clear."""
    return sum(_under(path, scope) for path in project.gathered(DEFINES + name)) <= 1


def _under(path: str, scope: str) -> bool:
    return path == scope or path.startswith(scope.rstrip(os.sep) + os.sep)


def _owner(name: str) -> str:
    """The definition a key is about: `Net` for `Net/0`, `Net.project`, `Net()`; `Base` for `^Base` (a subclass
    of it); `~net` (a model named for its class) as it is."""
    found = _OWNER.match(name.lstrip("^"))
    return found.group() if found else name


def _module_path(ctx) -> str:
    return os.path.splitext(os.path.abspath(ctx.path))[0]


def _above(ctx) -> list[str]:
    """This file's folder and the folders above it where a module it imports may lie (loader_facts.ANCESTORS)."""
    def compute() -> list[str]:
        above = [os.path.dirname(os.path.abspath(ctx.path))]
        while len(above) <= ANCESTORS and os.path.dirname(above[-1]) != above[-1]:
            above.append(os.path.dirname(above[-1]))
        return above

    return ctx.memo(("project-reach", "above"), compute)


def _attributes(ctx) -> dict[str, list[ast.Attribute]]:
    def compute() -> dict[str, list[ast.Attribute]]:
        found: dict[str, list[ast.Attribute]] = {}
        for node in ctx.by_type.get(ast.Attribute, ()):
            found.setdefault(node.attr, []).append(node)
        return found

    return ctx.memo(("project-reach", "attributes"), compute)
