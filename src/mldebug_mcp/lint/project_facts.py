"""The project index: what the files of one lint run tell each other (context.ModuleContext.local_returns).

A file's facts come in families (helpers/kinds, losses, loader_sites, accum_meters, modes_facts). The cheap
families are computed for every file; a costly one (the mode facts: a mode analysis of every top-level
function) only when a key it may tell is asked, by the file's own rules or by another file's. Most files are
never asked: torch's library, for one, calls no function of its own run that way. Each family's facts are a
function of the module alone, so every answer is the one computing everything first gives.
"""

from __future__ import annotations

from collections.abc import Callable

from .helpers import kinds


class LocalFacts:
    """The facts one file tells, while it is checked."""

    def __init__(self, ctx) -> None:
        # these helpers import the context module, which imports this one: imported when first asked
        from .helpers.accum_meters import meter_facts
        from .helpers.loader_sites import epoch_setters
        from .helpers.losses import fed_facts
        from .helpers.modes_facts import mode_fact_keys, mode_facts

        self.ctx = ctx
        self.known: dict[str, str] = {**kinds.project_facts(ctx), **fed_facts(ctx), **epoch_setters(ctx),
                                      **meter_facts(ctx)}
        # the lazy families, merged after the others: (compute, every key it may tell)
        self._pending: list[tuple[Callable, frozenset[str]]] = [(mode_facts, mode_fact_keys(ctx))]

    def get(self, key: str) -> str | None:
        found = self.known.get(key)
        if found is None and self._pending:
            for family in [f for f in self._pending if key in f[1]]:
                self._tell(family)
            found = self.known.get(key)
        return found

    def untold(self) -> frozenset[str]:
        """The keys the families not computed yet may tell: if another file asks one, they are needed."""
        return frozenset().union(*(keys for _, keys in self._pending))

    def tell_all(self) -> None:
        for family in list(self._pending):
            self._tell(family)

    def _tell(self, family: tuple[Callable, frozenset[str]]) -> None:
        self._pending.remove(family)
        self.known.update(family[0](self.ctx))  # a later family wins, as in one merged dict


class RunFacts:
    """Every file's facts, for the second pass: what each file computed while it was checked, and the rest
    computed when a key of it is asked (`tell_all` reads that file again). A key told by several files has
    the value of the last of them, as when one dict is updated with each file's facts in turn."""

    def __init__(self, told: list[dict[str, str]], untold: list[frozenset[str]],
                 tell_all: Callable[[int], dict[str, str]]) -> None:
        self._told, self._untold, self._tell_all = told, untold, tell_all
        self._merged: dict[str, str] = {}
        for facts in told:
            self._merged.update(facts)
        self._owners: dict[str, list[int]] = {}  # a key a file may tell and has not computed -> those files
        for number, keys in enumerate(untold):
            for key in keys:
                self._owners.setdefault(key, []).append(number)

    def get(self, key: str) -> str | None:
        owners = self._owners.pop(key, None)
        if owners is not None:
            self._resolve(key, owners)
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

    def fed_to(self, name: str) -> str | None:
        """Where another file's loss that expects logits takes the output of the model `name` ('*': of any
        model handed to a trainer), as 'CrossEntropyLoss in train.py:12'; None when no file says so."""
        return self.kind_returned_by(kinds.FED + name)

    def activation_returned_by(self, name: str) -> str | None:
        found = self.kind_returned_by(name)
        return found if found in kinds.ACTIVATIONS else None


