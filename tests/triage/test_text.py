"""The stemmer behind triage's word matching: Snowball English, with American spellings made British first."""

import subprocess
import sys

import pytest

from mldebug_mcp.triage.text import british, stem, tokens


@pytest.mark.parametrize("words", [
    ("normalised", "normalized", "normalising", "normalizing", "normalisation", "normalization"),
    ("initialised", "initialized", "initialisation", "initialization"),
    ("optimiser", "optimizer", "optimisers", "optimizers"),
    ("tokeniser", "tokenizer"),
    ("behaviour", "behavior"),
    ("run", "runs", "running"),
    ("predict", "predicts", "predicted", "predicting"),
    ("overfit", "overfits", "overfitting"),
    ("label", "labels", "labelled", "labeled"),
    ("class", "classes"),
    ("diverges", "divergence"),
])
def test_forms_of_one_word_meet(words):
    assert len({stem(word) for word in words}) == 1, {word: stem(word) for word in words}


@pytest.mark.parametrize("apart", [
    ("normal", "normalised"),   # 'normal distribution' is not a normalisation step
    ("token", "tokenizer"),
    ("optimal", "optimizer"),
    ("initial", "initialised"),
])
def test_related_but_different_words_stay_apart(apart):
    assert stem(apart[0]) != stem(apart[1])


@pytest.mark.parametrize("word, spelled", [
    ("normalized", "normalised"), ("tokenizers", "tokenisers"), ("behavior", "behaviour"),
    ("size", "size"), ("resized", "resized"), ("batchsize", "batchsize"), ("seize", "seize"), ("prize", "prize"),
])
def test_british_respells_only_american_forms(word, spelled):
    assert british(word) == spelled


@pytest.mark.parametrize("token", ["_nan", "fp16", "batch_size", "bf16"])
def test_concept_tokens_and_identifiers_are_not_stemmed(token):
    assert stem(token) == token


def test_tokens_stem_words_and_keep_concepts():
    found = tokens("The gradients vanish after I normalized the inputs; loss is NaN")
    assert {stem("gradients"), stem("normalised"), stem("inputs"), "_nan"} <= set(found)


def test_the_stemmer_is_imported_only_when_a_word_is_stemmed():
    code = ("import sys; from mldebug_mcp.triage.text import stem; assert 'snowballstemmer' not in sys.modules; "
            "stem('running'); assert 'snowballstemmer' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
