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


def _cosine(a: Vector, b: Vector) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(k, 0.0) for k, v in a.items())


def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    # Identifiers must stand alone: 'softmax' should not hit inside 'log_softmax'.
    return re.compile(r"(?<![\w.])" + re.escape(keyword.lower()) + r"(?![\w])")


class CauseIndex:
    def __init__(self, catalogue: Catalogue):
        self.causes = list(catalogue.causes.values())
        bags = [self._bag(c) for c in self.causes]
        position = {c.id: i for i, c in enumerate(self.causes)}
        for case in catalogue.cases:  # real wording joins its cause's vocabulary
            if case.cause in position:
                bags[position[case.cause]].update(tokens(case.symptom))
        documents = len(bags)
        frequency = Counter(term for bag in bags for term in bag)
        self.idf = {term: math.log(1 + documents / count) for term, count in frequency.items()}
        self.doc_vectors = [_norm(self._weigh(bag)) for bag in bags]
        # Multinomial naive Bayes over the same bags: a second, differently biased view of word evidence.
        vocabulary = len(frequency)
        self.log_likelihood = []
        for bag in bags:
            total = sum(bag.values()) + NB_ALPHA * vocabulary
            self.log_likelihood.append(({t: math.log((n + NB_ALPHA) / total) for t, n in bag.items()},
                                        math.log(NB_ALPHA / total)))
        self.symptom_vectors = [[(s, self.vector(tokens(s))) for s in c.symptoms] for c in self.causes]
        self.symptom_stances = {s: read_stances(s) for c in self.causes for s in c.symptoms}
        # Paraphrased real cases: the wording of people outside the project, grouped by confirmed cause.
        by_cause: dict[str, list[Vector]] = {}
        for case in catalogue.cases:
            by_cause.setdefault(case.cause, []).append(self.vector(tokens(case.symptom)))
        self.case_vectors = [by_cause.get(c.id, []) for c in self.causes]
        # A keyword that many causes use, as a keyword or in their symptoms, says less about any one of them.
        texts = [" ".join((*c.keywords, *c.symptoms, c.title)).lower() for c in self.causes]
        self.keywords = []
        for cause in self.causes:
            entries = []
            for keyword in cause.keywords:
                pattern = _keyword_pattern(keyword)
                needle = keyword.lower()  # a plain substring test first: most texts lack most keywords
                owners = max(1, sum(1 for text in texts if needle in text and pattern.search(text)))
                entries.append((keyword, pattern, 1.0 / owners))
            self.keywords.append(entries)

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

    def _weigh(self, bag: Counter[str] | dict[str, float]) -> Vector:
        return {t: (1 + math.log(n)) * self.idf.get(t, 0.0) for t, n in bag.items() if n > 0 and t in self.idf}

    def vector(self, words: list[str]) -> Vector:
        """The unit TF-IDF vector of a list of tokens, in this index's vocabulary."""
        return _norm(self._weigh(Counter(words)))

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
            hits = tuple(k for k, pattern, _ in keywords if k.lower() in lowered and pattern.search(lowered))
            # An API name the person writes about says more than one that merely occurs in pasted code.
            keyword_score = sum(w * (1.0 if pattern.search(told_lower) else CODE_KEYWORD_WEIGHT)
                                for k, pattern, w in keywords if k in hits)
            score = (NB_SHARE * (likelihood - top_likelihood) + DOC_SHARE * _cosine(query, doc)
                     + SYMPTOM_SHARE * best + CASE_SHARE * case_fit + KEYWORD_SHARE * min(keyword_score, KEYWORD_CAP))
            fits[cause.id] = TextFit(score, best_symptom if cited > CITE_SIMILARITY else None, hits)
        return fits


@cache
def bundled_index() -> CauseIndex:
    """The index of the bundled catalogue, built once per process."""
    from .catalogue import load_catalogue

    return CauseIndex(load_catalogue())
