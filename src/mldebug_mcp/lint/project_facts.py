"""The project index: what the files of one lint run tell each other (context.ModuleContext.local_returns).

A file's facts come in families (helpers/kinds, losses, loader_sites, accum_meters, modes_facts). The cheap
families are computed for every file; the costly ones listed in `lazy_families` (the value kinds of every
top-level function and class, the mode analysis of every top-level function, the private names a file uses,
the modes of the models it hands to the functions it imports) only when a key they may tell is asked, by the
file's own rules or by another file's, or when a rule computed them anyway. Most files are never asked:
torch's library, for one, asks no such question of its own files. Each family's facts are a function of the
module alone, so every answer is the one computing everything first gives.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from .helpers import kinds


class Family:
    """A family of facts computed only when asked. `tokens(ctx)` says cheaply what it may tell: each key it tells
    has its `token(key)` among them (None: no key of this family). `memo` is the ctx.memo key its compute keeps,
    so that facts a rule computed anyway are told without asking."""

    __slots__ = ("compute", "memo", "name", "token", "tokens")

    def __init__(self, name: str, compute: Callable, tokens: Callable, token: Callable, memo: tuple) -> None:
        self.name, self.compute, self.tokens, self.token, self.memo = name, compute, tokens, token, memo


@functools.cache
def lazy_families() -> tuple[Family, ...]:
    # the helpers import the context module, which imports this one: imported when first asked
    from .helpers.kinds.facts import fact_owner, fact_owners, project_facts
    from .helpers.modes_callers_elsewhere import called_facts, called_token, called_tokens
    from .helpers.modes_facts import MODE_FACT, mode_fact_keys, mode_facts
    from .helpers.private_uses import USES, use_facts, use_keys
    from .helpers.project_reach import scoped_kinds

    def kinds_told(ctx) -> dict[str, str]:  # also under this module's path, for the files that import from it
        facts = project_facts(ctx)
        return {**facts, **scoped_kinds(facts, ctx)}

    return (
        Family("kinds", kinds_told, fact_owners, fact_owner, ("kinds", "facts")),
        Family("modes", mode_facts, mode_fact_keys, lambda key: key if key.startswith(MODE_FACT) else None,
               ("modes", "facts")),
        Family("uses", use_facts, use_keys, lambda key: key if key.startswith(USES) else None, ("private-uses",)),
        Family("called", called_facts, called_tokens, called_token, ("called-facts",)),
    )


class LocalFacts:
    """The facts one file tells, while it is checked."""

    def __init__(self, ctx) -> None:
        from .helpers.accum_meters import meter_facts
        from .helpers.loader_sites import epoch_setters
        from .helpers.losses import fed_facts
        from .helpers.optim_sched_order import scheduler_facts
        from .helpers.project_reach import definition_facts

        self.ctx = ctx
        self.known: dict[str, str] = {**fed_facts(ctx), **epoch_setters(ctx), **meter_facts(ctx),
                                      **scheduler_facts(ctx), **definition_facts(ctx)}
        # no key of one family is a key of another, so the order the families are merged in does not matter
        self._pending: dict[Family, frozenset[str]] = {family: family.tokens(ctx) for family in lazy_families()}

    def get(self, key: str) -> str | None:
        found = self.known.get(key)
        if found is None and self._pending:
            for family in [f for f, tokens in self._pending.items() if f.token(key) in tokens]:
                self._tell(family)
            found = self.known.get(key)
        return found

    def untold(self) -> frozenset[tuple[str, str]]:
        """(family, token) for what the families not computed yet may tell: if another file asks, they are needed.
        A family a rule computed anyway is told first."""
        for family in [f for f in self._pending if self.ctx.memoized(f.memo)]:
            self._tell(family)
        return frozenset((f.name, token) for f, tokens in self._pending.items() for token in tokens)

    def tell_all(self) -> None:
        for family in list(self._pending):
            self._tell(family)

    def _tell(self, family: Family) -> None:
        del self._pending[family]
        self.known.update(family.compute(self.ctx))


class RunFacts:
    """Every file's facts, for the second pass: what each file computed while it was checked, and the rest
    computed when a key of it is asked (`tell_all` reads that file again). A key told by several files has
    the value of the last of them, as when one dict is updated with each file's facts in turn."""

    def __init__(self, told: list[dict[str, str]], untold: list[frozenset[tuple[str, str]]],
                 tell_all: Callable[[int], dict[str, str]]) -> None:
        self._told, self._untold, self._tell_all = told, untold, tell_all
        self._merged: dict[str, str] = {}
        for facts in told:
            self._merged.update(facts)
        self._owners: dict[tuple[str, str], list[int]] = {}  # what a file may tell, not computed -> those files
        for number, tokens in enumerate(untold):
            for token in tokens:
                self._owners.setdefault(token, []).append(number)
        self._resolved: set[str] = set()
        self._gathered: dict[str, tuple[str, ...]] = {}

    def gathered(self, key: str) -> tuple[str, ...]:
        """Every file's value of `key`, not the last one only (`+def:Net`: each file that defines Net). Such keys
        are among the facts every file computes (LocalFacts.known), never of a lazy family."""
        found = self._gathered.get(key)
        if found is None:
            found = self._gathered[key] = tuple(dict.fromkeys(facts[key] for facts in self._told if key in facts))
        return found

    def get(self, key: str) -> str | None:
        if key not in self._resolved:  # once resolved, no file read later can change the answer (see _resolve)
            self._resolved.add(key)
            owners = {number for family in lazy_families()
                      for number in self._owners.get((family.name, family.token(key)), ())}
            if owners:
                self._resolve(key, sorted(owners))
        return self._merged.get(key)

    def _resolve(self, key: str, owners: list[int]) -> None:
        """Compute the facts of the files that may tell `key`, the last first, until a later file tells it
        (no earlier one can matter then); the value is the last telling file's."""
        told = self._told
        for number in reversed(owners):
            if any(key in told[later] for later in range(number + 1, len(told))):
                break
            if self._untold[number]:
                told[number] = self._tell_all(number)  # every fact of that file, the lazy families included
                self._untold[number] = frozenset()
        found = next((facts[key] for facts in reversed(told) if key in facts), None)
        if found is not None:
            self._merged[key] = found


class ProjectIndex:
    """Facts about every file of one lint run that rules in another file may need."""

    def __init__(self, returns: dict[str, str] | RunFacts | None = None, local: LocalFacts | None = None) -> None:
        # class name (its forward) or function name -> kind of value it returns (helpers/kinds/: softmax,
        # sigmoid, log_softmax, relu, logits); `Name/0` for an element of a returned tuple; `fed:Name` -> where
        # a loss of another file takes that model's output
        self.returns = returns if returns is not None else {}
        # the facts of the file being checked: they win over another file's
        self.local = local
        # names asked about but not known: if another file defines one, this file is checked again
        self.asked: set[str] = set()

    def kind_returned_by(self, name: str) -> str | None:
        found = self.local.get(name) if self.local is not None else None
        if found is None:
            found = self.returns.get(name)
        if found is None:
            self.asked.add(name)
        return found

    def fed_to(self, name: str, scopes: tuple[str, ...] | None = None) -> str | None:
        """Where another file's loss that expects logits takes the output of the model `name` ('*': of any
        model handed to a trainer), as 'CrossEntropyLoss in train.py:12'; None when no file says so. Only a file
        that can reach this one (or the file of `scopes`) by that name counts (helpers/project_reach)."""
        from .helpers.project_reach import told_in_reach

        return told_in_reach(self, kinds.FED + name, scopes)

    def gathered(self, key: str) -> tuple[str, ...]:
        """Every file's value of `key` (RunFacts.gathered), this file's own included; not an asked name."""
        told = self.returns.gathered(key) if isinstance(self.returns, RunFacts) else (self.returns.get(key),)
        own = self.local.known.get(key) if self.local is not None else None
        return tuple(v for v in dict.fromkeys((*told, own)) if v is not None)


