"""A description of a failure, read once: the words, the code, and what was already tried.

People paste prose, code, logs and the fixes they tried into one post. Each part says something
different: the prose is matched against the catalogue, the code is linted, and a tried fix is not
evidence for the cause it targets. Every reader of a description takes its parts from here."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .code_snippets import extract_code, pasted_of, prose_of
from .text import split_tried

_CJK = re.compile(r"[\u4e00-\u9fff]")  # the glossary's script: only a text with some needs the glossary (and YAML)


@dataclass(frozen=True)
class Description:
    given: str              # as the person wrote it
    text: str               # glossed into the catalogue's English words (code and logs kept)
    reported: str           # the text without the sentences about fixes already tried: what the run showed,
                            # log lines included ("loss: nan at step 300"), where observations are read
    prose: str              # the text without code and log lines: what the person wrote in words
    told: str               # the prose without the tried fixes: what the catalogue is matched against
    tried: tuple[str, ...]  # the sentences about fixes already tried
    code: tuple[str, ...]   # parseable Python snippets found in it (possibly none), for the linter
    guesses: tuple[str, ...] = ()  # the sentences in which the person guesses the cause: not evidence either
    pasted: str = ""        # the code and log lines left out of the prose, as pasted

    @classmethod
    def read(cls, given: str) -> Description:
        text = given
        if _CJK.search(given):
            from .glossary import gloss

            text = gloss(given)
        prose = prose_of(text)
        told, tried = split_tried(prose)
        told, guesses = _without_guesses(told)
        return cls(given, text, split_tried(text)[0], prose, told, tuple(tried), tuple(extract_code(given)),
                   tuple(guesses), pasted_of(text))


_GUESS = re.compile(r"\b(?:i (?:think|guess|suspect|believe|assume)|my (?:guess|theory|suspicion)|(?:it |this )?(?:looks|seems|sounds) like [^.?!]{0,60}\bto me"
                    r"|i'?m (?:pretty |fairly )?sure (?:it'?s|that))\b", re.I)


def _without_guesses(told: str) -> tuple[str, list[str]]:
    """The prose without the sentences in which the person guesses the cause ("I think the model is overfitting"):
    matched against the catalogue, such a sentence ranks their theory first, which is what triage should test,
    not echo. Observations are read from `reported`, where the guess is ignored clause by clause instead.
    Returns that prose and the guessing sentences (Description.guesses)."""
    parts = re.split(r"(?<=[.!?])\s+|\n", told)
    kept: list[str] = []
    guesses: list[str] = []
    for part in parts:
        (guesses if _GUESS.search(part) else kept).append(part)
    return "\n".join(kept), guesses
