"""Gloss non-English descriptions into the catalogue's English vocabulary.

The matcher compares English words; a description written in Chinese would otherwise share only its
pasted code and numbers with the catalogue. A fixed term list (data/glossary.yaml) is enough to carry the
telling words (loss, not decreasing, gradient, validation set) across, with no translation model."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from .. import _yaml as yaml
from .catalogue import DATA_PACKAGE

_CJK = re.compile(r"[\u4e00-\u9fff]")


@lru_cache(maxsize=1)
def _terms() -> tuple[tuple[str, str], ...]:
    data = yaml.safe_load((resources.files(DATA_PACKAGE) / "data" / "glossary.yaml").read_text(encoding="utf-8"))
    # gloss() searches the lowercased text, so a term with a Latin capital (F值) is lowercased too
    pairs = [(term.lower(), english) for table in data.values() for term, english in table.items()]
    # Longest first, so a phrase ("不下降") is read whole before its part ("下降").
    return tuple(sorted(pairs, key=lambda pair: -len(pair[0])))


def gloss(text: str) -> str:
    """The text with the English gloss of its Chinese terms appended; unchanged when it has none."""
    if not _CJK.search(text):
        return text
    remaining = text.lower()
    glosses = []
    for term, english in _terms():
        count = remaining.count(term)
        if count:
            glosses.extend([english] * count)
            remaining = remaining.replace(term, " ")
    return text + "\n" + ". ".join(glosses) if glosses else text
