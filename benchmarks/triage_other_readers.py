"""Other offline readers against the shipped one, on the forum threads triage is tuned on (collected_a/b/c,
each scored against a case base without its fold's paraphrases, as in triage_forum_cases.evaluate).

Asks whether a different way of reading the words would get closer to the 70% target than tuning did:
- `shipped`: triage as it is (phrase table, TF-IDF, naive Bayes, case similarity, observations, lint);
- `logreg-words` / `logreg-chars`: a logistic regression over TF-IDF word 1-2-grams or character 3-5-grams,
  trained on the catalogue's symptoms and summaries plus the case base (fold held out);
- `shipped+embeddings@S`: the shipped text score plus S times the best cosine between the description and
  a case of the cause, on averaged static word embeddings (wordllama's bundled 256-d table).
Held-out sets (collected_d, collected_e) are never scored here.

Needs the optional packages scikit-learn and wordllama (pip install scikit-learn wordllama); a reader whose
package is missing is skipped with a note.

    python benchmarks/triage_other_readers.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from triage_forum_cases import HELD_OUT, evaluate, fold_of, index_without_fold, load_cases, rank_in, summary

from mldebug_mcp.triage import matcher
from mldebug_mcp.triage.catalogue import load_catalogue
from mldebug_mcp.triage.text import tokens

FOLDS = 5
EMBEDDING_SHARES = (0.3, 1.0)


def training_texts(fold: int) -> tuple[list[str], list[str]]:
    catalogue = load_catalogue()
    texts, labels = [], []
    for cause in catalogue.causes.values():
        for text in (*cause.symptoms, f"{cause.title}. {cause.summary}"):
            texts.append(text)
            labels.append(cause.id)
    for case in catalogue.cases:
        if fold_of(case.url) != fold:
            texts.append(case.symptom)
            labels.append(case.cause)
    return texts, labels


def logistic_regression(forum: list[dict], analyzer: str) -> list[dict]:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    for fold in range(FOLDS):
        test = [c for c in forum if fold_of(c["url"]) == fold]
        if not test:
            continue
        if analyzer == "word":
            vectoriser = TfidfVectorizer(preprocessor=lambda t: " ".join(tokens(t)), ngram_range=(1, 2), sublinear_tf=True)
        else:
            vectoriser = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True, min_df=2)
        texts, labels = training_texts(fold)
        model = LogisticRegression(C=3.0, max_iter=3000).fit(vectoriser.fit_transform(texts), labels)
        for case, probabilities in zip(test, model.predict_proba(vectoriser.transform([c["symptom"] for c in test]))):
            case["rank"] = rank_in([model.classes_[i] for i in probabilities.argsort()[::-1]], case["causes"])
    return forum


class StaticEmbeddings:
    """Mean of wordllama's token vectors, unit length (its own loader looks for the tokenizer in a folder the
    wheel does not have and then tries to download it, so the bundled files are read directly)."""

    def __init__(self) -> None:
        import numpy as np
        import wordllama
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        root = Path(wordllama.__file__).parent
        self.np = np
        self.tokenizer = Tokenizer.from_file(str(root / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        self.table = load_file(str(root / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"].astype(np.float32)
        self.cache: dict[str, object] = {}

    def __call__(self, texts: list[str]):
        vectors = []
        for text in texts:
            if text not in self.cache:
                ids = self.tokenizer.encode(text).ids[1:] or [0]  # drop the BOS token every text shares
                mean = self.table[ids].mean(axis=0)
                self.cache[text] = mean / (self.np.linalg.norm(mean) or 1.0)
            vectors.append(self.cache[text])
        return self.np.array(vectors)


def with_embeddings(forum: list[dict], share: float, embed: StaticEmbeddings) -> list[dict]:
    """The shipped reader with an embedding case-similarity term added to every cause's text score."""
    original_init, original_fit = matcher.CauseIndex.__init__, matcher.CauseIndex.fit

    def init(self, catalogue):
        original_init(self, catalogue)
        by_cause: dict[str, list[str]] = {}
        for case in catalogue.cases:
            by_cause.setdefault(case.cause, []).append(case.symptom)
        self.embedded_cases = [embed(by_cause[c.id]) if c.id in by_cause else None for c in self.causes]

    def fit(self, text):
        fits = original_fit(self, text)
        query = embed([text])[0]
        for cause, cases in zip(self.causes, self.embedded_cases):
            if cases is not None:
                old = fits[cause.id]
                fits[cause.id] = matcher.TextFit(old.score + share * float((cases @ query).max()), old.matched_symptom, old.keywords)
        return fits

    matcher.CauseIndex.__init__, matcher.CauseIndex.fit = init, fit
    try:
        index_without_fold.cache_clear()  # indexes built without the extra term must not be reused
        return evaluate(forum)
    finally:
        matcher.CauseIndex.__init__, matcher.CauseIndex.fit = original_init, original_fit
        index_without_fold.cache_clear()


def main() -> None:
    def forum() -> list[dict]:
        return [c for c in load_cases() if c["file"] not in HELD_OUT]

    print(summary(evaluate(forum()), "shipped"))
    try:
        for analyzer in ("word", "char"):
            print(summary(logistic_regression(forum(), analyzer), f"logreg-{analyzer}s"))
    except ImportError as exc:
        print(f"logistic regression skipped: {exc} (pip install scikit-learn)", file=sys.stderr)
    try:
        embed = StaticEmbeddings()
    except ImportError as exc:
        print(f"embeddings skipped: {exc} (pip install wordllama)", file=sys.stderr)
        return
    for share in EMBEDDING_SHARES:
        print(summary(with_embeddings(forum(), share, embed), f"shipped+embeddings@{share}"))


if __name__ == "__main__":
    main()
