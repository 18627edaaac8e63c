"""How well a description's words fit each cause: TF-IDF cosine against the cause as a whole, against its
closest symptom phrasing and against its closest real case; a naive-Bayes log-likelihood over the same
words; and exact hits of the cause's keywords (API names, domain terms).

Offline and deterministic: the index is built once from the catalogue."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from .catalogue import Catalogue, Cause
from .description import Description
from .signals import contradicts, read_stances
from .text import tokens

# Field weights when a cause's text is folded into one document: keywords and the title are the
# most specific words a cause has, so they count more than its long summary.
TITLE_WEIGHT = 2.0
KEYWORD_WEIGHT = 2.0
# How the fits combine into one text score (tuned on real forum threads and the case base, benchmarks/triage_tune.py).
DOC_SHARE, SYMPTOM_SHARE, KEYWORD_SHARE = 0.45, 0.3, 0.35
CASE_SHARE = 0.6
NB_SHARE = 0.4  # weight of the naive-Bayes mean log-likelihood (relative to the best cause)
NB_ALPHA = 0.5   # additive smoothing
CODE_KEYWORD_WEIGHT = 0.4
MIN_PROSE_TOKENS = 4
KEYWORD_CAP = 1.5  # several specific keywords are strong evidence, but never unbounded
CITE_SIMILARITY = 0.3  # a symptom phrasing this close is quoted in the why line


@dataclass(frozen=True)
class TextFit:
    score: float
    matched_symptom: str | None  # the closest symptom phrasing that agrees with the description, to cite
    keywords: tuple[str, ...]


Vector = dict[str, float]


def _norm(vector: Vector) -> Vector:
    length = math.sqrt(sum(v * v for v in vector.values())) or 1.0
    return {k: v / length for k, v in vector.items()}


def _weigh(idf: dict[str, float], bag: Counter[str] | dict[str, float]) -> Vector:
    return {t: (1 + math.log(n)) * idf[t] for t, n in bag.items() if n > 0 and t in idf}


def _cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(k, 0.0) for k, v in a.items())


@cache
def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    # Identifiers must stand alone: 'softmax' should not hit inside 'log_softmax'. Compiled on first
    # use: a description meets a handful of the catalogue's thousand keywords.
    return re.compile(r"(?<![\w.])" + re.escape(keyword.lower()) + r"(?![\w])")


class CauseIndex:
    """The catalogue's words, weighed. `state` is what `build_state` returned for the same catalogue
    (from the on-disk cache, index_cache.py); without it the index is built here."""

    def __init__(self, catalogue: Catalogue, state: dict | None = None):
        self.causes = list(catalogue.causes.values())
        state = state if state is not None else self.build_state(catalogue)
        self.idf: dict[str, float] = state["idf"]
        self.doc_vectors: list[Vector] = state["doc_vectors"]
        self.log_likelihood: list[tuple[dict[str, float], float]] = [tuple(pair) for pair in state["log_likelihood"]]
        self.symptom_vectors: list[list[tuple[str, Vector]]] = [[tuple(pair) for pair in symptoms]
                                                               for symptoms in state["symptom_vectors"]]
        self.symptom_stances: dict[str, tuple[list[str], list[str]]] = {
            phrase: tuple(stances) for phrase, stances in state["symptom_stances"].items()}
        self.case_vectors: list[list[Vector]] = state["case_vectors"]
        self.keywords: list[list[tuple[str, float]]] = [[tuple(entry) for entry in entries]
                                                         for entries in state["keywords"]]

    @classmethod
    def build_state(cls, catalogue: Catalogue) -> dict:
        """Everything the index computes from the catalogue, as JSON-ready data (lists, dicts, numbers)."""
        causes = list(catalogue.causes.values())
        bags = [cls._bag(c) for c in causes]
        position = {c.id: i for i, c in enumerate(causes)}
        for case in catalogue.cases:  # real wording joins its cause's vocabulary
            if case.cause in position:
                bags[position[case.cause]].update(tokens(case.symptom))
        documents = len(bags)
        frequency = Counter(term for bag in bags for term in bag)
        idf = {term: math.log(1 + documents / count) for term, count in frequency.items()}

        def vector(words: list[str]) -> Vector:
            return _norm(_weigh(idf, Counter(words)))

        # Multinomial naive Bayes over the same bags: a second, differently biased view of word evidence.
        vocabulary = len(frequency)
        log_likelihood = []
        for bag in bags:
            total = sum(bag.values()) + NB_ALPHA * vocabulary
            log_likelihood.append([{t: math.log((n + NB_ALPHA) / total) for t, n in bag.items()},
                                   math.log(NB_ALPHA / total)])
        # Paraphrased real cases: the wording of people outside the project, grouped by confirmed cause.
        by_cause: dict[str, list[Vector]] = {}
        for case in catalogue.cases:
            by_cause.setdefault(case.cause, []).append(vector(tokens(case.symptom)))
        # A keyword that many causes use, as a keyword or in their symptoms, says less about any one of them.
        texts = [" ".join((*c.keywords, *c.symptoms, c.title)).lower() for c in causes]
        keywords = []
        for cause in causes:
            entries = []
            for keyword in cause.keywords:
                needle = keyword.lower()  # a plain substring test first: most texts lack most keywords
                owners = max(1, sum(1 for text in texts if needle in text and _keyword_pattern(keyword).search(text)))
                entries.append([keyword, 1.0 / owners])
            keywords.append(entries)
        return {
            "idf": idf,
            "doc_vectors": [_norm(_weigh(idf, bag)) for bag in bags],
            "log_likelihood": log_likelihood,
            "symptom_vectors": [[[s, vector(tokens(s))] for s in c.symptoms] for c in causes],
            "symptom_stances": {s: list(read_stances(s)) for c in causes for s in c.symptoms},
            "case_vectors": [by_cause.get(c.id, []) for c in causes],
            "keywords": keywords,
        }

    @staticmethod
    def _bag(cause: Cause) -> Counter[str]:
        bag: Counter[str] = Counter()
        for term in tokens(cause.title):
            bag[term] += TITLE_WEIGHT
        for text in (cause.summary, *cause.symptoms):
            bag.update(tokens(text))
        for keyword in cause.keywords:
            for term in tokens(keyword):
                bag[term] += KEYWORD_WEIGHT
        return bag

    def vector(self, words: list[str]) -> Vector:
        """The unit TF-IDF vector of a list of tokens, in this index's vocabulary."""
        return _norm(_weigh(self.idf, Counter(words)))

    def case_fits(self, query: Vector) -> list[float]:
        """Per cause, the similarity of its closest real case.

        A cause with many cases has more chances of a close one. Discounting that (by log of the count) raised
        the cross-validated case-base score but lowered the score on real forum wording: how many threads a
        cause has follows how often it happens, so the raw maximum stays."""
        return [max((_cosine(query, v) for v in cases), default=0.0) for cases in self.case_vectors]

    def fit(self, description: Description, observed: tuple[str, ...] = ()) -> dict[str, TextFit]:
        """Text fit of every cause, keyed by cause id. `observed`: observation keys established besides the
        text; a symptom phrasing that denies one of them, or any the text reports, is never cited."""
        text, told, tried = description.text, description.told, description.tried
        reported, denied = read_stances(description.reported)
        stance = ([*reported, *observed], [k for k in denied if k not in observed])
        prose = tokens(told)
        # Code and logs dilute the words a person chose; they still count through keywords and lint.
        words = prose if len(prose) >= MIN_PROSE_TOKENS else tokens(text)
        query = self.vector(words)
        lowered, told_lower = text.lower(), told.lower()
        for sentence in tried:  # what was already tried is not evidence for the cause it targets
            lowered = lowered.replace(sentence.lower(), " ")
        known = [t for t in words if t in self.idf]
        likelihoods = [sum(seen.get(t, unseen) for t in known) / max(len(known), 1)
                       for seen, unseen in self.log_likelihood]
        top_likelihood = max(likelihoods, default=0.0)
        case_fits = self.case_fits(query)
        fits = {}
        for cause, doc, symptoms, keywords, case_fit, likelihood in zip(
                self.causes, self.doc_vectors, self.symptom_vectors, self.keywords, case_fits, likelihoods):
            best_symptom, best, cited = None, 0.0, 0.0
            for phrase, vector in symptoms:
                similarity = _cosine(query, vector)
                best = max(best, similarity)  # a phrasing that disagrees still scores: only citing it would mislead
                if similarity > cited and not contradicts(stance, self.symptom_stances[phrase]):
                    best_symptom, cited = phrase, similarity
            hits = tuple(k for k, _ in keywords if k.lower() in lowered and _keyword_pattern(k).search(lowered))
            # An API name the person writes about says more than one that merely occurs in pasted code.
            keyword_score = sum(w * (1.0 if _keyword_pattern(k).search(told_lower) else CODE_KEYWORD_WEIGHT)
                                for k, w in keywords if k in hits)
            score = (NB_SHARE * (likelihood - top_likelihood) + DOC_SHARE * _cosine(query, doc)
                     + SYMPTOM_SHARE * best + CASE_SHARE * case_fit + KEYWORD_SHARE * min(keyword_score, KEYWORD_CAP))
            fits[cause.id] = TextFit(score, best_symptom if cited > CITE_SIMILARITY else None, hits)
        return fits


STATE_KEYS = ("idf", "doc_vectors", "log_likelihood", "symptom_vectors", "symptom_stances", "case_vectors", "keywords")
# The modules whose code decides what the index holds: an edit to any of them invalidates the cache.
_INDEX_SOURCES = ("matcher.py", "text.py", "signals.py")


def _state_fits(state: dict, catalogue: Catalogue) -> bool:
    """Whether a cached state has the index's shape for this catalogue (a file from elsewhere does not)."""
    causes = len(catalogue.causes)
    return (all(key in state for key in STATE_KEYS) and isinstance(state["idf"], dict)
            and all(isinstance(state[key], list) and len(state[key]) == causes
                    for key in STATE_KEYS if key not in ("idf", "symptom_stances")))


@cache
def bundled_index() -> CauseIndex:
    """The index of the bundled catalogue: built once per process, or read from the on-disk cache."""
    from pathlib import Path

    from . import index_cache
    from .catalogue import bundled_texts, load_catalogue

    catalogue = load_catalogue()
    here = Path(__file__).parent
    key = index_cache.digest([*bundled_texts(), *((here / name).read_text(encoding="utf-8") for name in _INDEX_SOURCES)])
    state = index_cache.load_or_build(key, lambda: CauseIndex.build_state(catalogue),
                                      lambda cached: _state_fits(cached, catalogue))
    return CauseIndex(catalogue, state)
