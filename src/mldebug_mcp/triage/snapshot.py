"""What a triage call reads of the catalogue, in one JSON file kept between processes: the catalogue's facts
(each cause's prior computed), the decision tree, the one-line catalogue index, the stems of the catalogue's
words and the matcher's index.

Parsing the YAML and validating it with pydantic costs far more than the call itself, and both only change
with an edit or a release. So the validated data is stored once (index_cache.py names the file by a digest
of the data and of the code that shapes it) and later processes read plain values: no pydantic, no YAML.
The records are SimpleNamespaces with the attribute names of the pydantic models, so the ranking reads
either. The texts the digest covers are read with plain file reads (importlib.resources costs more to
import than the reads)."""

from __future__ import annotations

import os
from functools import cache
from types import SimpleNamespace

from . import needles, signals, text
from .matcher import CauseIndex, _state_fits

HERE = os.path.dirname(os.path.abspath(__file__))
# The code that decides what the snapshot holds: an edit to any of them gives a new file.
SOURCES = ("snapshot.py", "matcher.py", "inverted.py", "text.py", "signals.py", "needles.py", "catalogue.py",
           "catalogue_index.py", "tree.py", "text_table.py", "index_cache.py")
KEYS = ("catalogue", "tree", "catalogue_text", "stems", "needles", "index", "terms")


class CatalogueFacts:
    """The catalogue as the ranking reads it: categories, causes in catalogue order, each with its prior."""

    __slots__ = ("categories", "causes")

    def __init__(self, categories: dict, causes: list[dict]):
        self.categories = {key: SimpleNamespace(**value) for key, value in categories.items()}
        self.causes = {c["id"]: _cause(c) for c in causes}

    def prior(self, cause: SimpleNamespace) -> float:
        return cause.prior


def _cause(data: dict) -> SimpleNamespace:
    return SimpleNamespace(**{**data, "test": SimpleNamespace(**data["test"]),
                              "predicts": SimpleNamespace(**data["predicts"])})


def _tree(data: dict) -> SimpleNamespace:
    nodes = {name: SimpleNamespace(**{**node, "answers": {label: SimpleNamespace(**a) for label, a in node["answers"].items()}})
             for name, node in data["nodes"].items()}
    return SimpleNamespace(start=data["start"], nodes=nodes,
                           leaves={name: SimpleNamespace(**leaf) for name, leaf in data["leaves"].items()})


class Snapshot:
    """The snapshot's parts, ready to use."""

    def __init__(self, state: dict):
        facts = state["catalogue"]
        self.catalogue = CatalogueFacts(facts["categories"], facts["causes"])
        self.tree = _tree(state["tree"])
        self.catalogue_text: str = state["catalogue_text"]
        # The index's per-term texts sit apart, so that the cache stores them as a block read on demand.
        self.index = CauseIndex(self.catalogue, {**state["index"], "terms": state["terms"]})


def build() -> dict:
    """The snapshot's state from the YAML data (validated on the way)."""
    from .catalogue import load_catalogue
    from .catalogue_index import catalogue_index_text
    from .tree import load_tree

    catalogue = load_catalogue()
    causes = []
    for cause in catalogue.causes.values():
        facts = cause.model_dump(exclude={"summary", "symptoms", "keywords"})
        causes.append({**facts, "prior": catalogue.prior(cause)})
    patterns = (*(p for ps in signals.PATTERNS.values() for p in ps), *(p for p, _ in text.CONCEPTS))
    known_needles = {p: needles.needles(p) for p in patterns}
    needles.remember(known_needles)  # the index's thousands of texts skip most patterns too
    index = CauseIndex.build_state(catalogue)  # stems every word of the catalogue, so it comes before `stems`
    terms = index.pop("terms")
    return {
        "catalogue": {"categories": {k: c.model_dump() for k, c in catalogue.categories.items()}, "causes": causes},
        "tree": load_tree().model_dump(),
        "catalogue_text": catalogue_index_text(catalogue),
        "stems": text.known_stems(),
        "needles": known_needles,
        "index": index,
        "terms": terms,
    }


def _shape_fits(state: dict) -> bool:
    return all(key in state for key in KEYS) and all(isinstance(state[k], dict) for k in ("stems", "needles"))


def _snapshot_of(state: dict) -> Snapshot | None:
    """The snapshot of a state read back from the cache, or None when it does not fit this code."""
    if not _shape_fits(state):
        return None
    try:
        snapshot = Snapshot(state)
    except (KeyError, TypeError, AttributeError, ValueError):
        return None
    return snapshot if _state_fits({**state["index"], "terms": state["terms"]}, snapshot.catalogue) else None


def folder_texts(root: str) -> list[str | bytes]:
    """Each file's path under `root` and its content, in a fixed order (what a digest of the folder covers)."""
    texts: list[str | bytes] = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            if not name.startswith("."):
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    texts += [os.path.relpath(path, root), handle.read()]
    return texts


def _texts() -> list[str | bytes]:
    """What decides the snapshot: the data files and the code that reads them."""
    texts = folder_texts(os.path.join(HERE, "data"))
    for name in SOURCES:
        with open(os.path.join(HERE, name), "rb") as handle:
            texts += [name, handle.read()]
    return texts


@cache
def bundled() -> Snapshot:
    """The bundled catalogue's snapshot: read from the on-disk cache, or built (and stored) once per process."""
    from . import index_cache

    made: list[Snapshot] = []  # the snapshot made to check the cached state, which is then the one returned

    def fits(state: dict) -> bool:
        made.extend(s for s in [_snapshot_of(state)] if s is not None)
        return bool(made)

    state = index_cache.load_or_build(index_cache.digest(_texts()), build, fits, table="terms")
    text.remember_stems(state["stems"])
    needles.remember(state["needles"])
    return made[0] if made else Snapshot(state)
