"""Text normalisation for symptom matching: people say "stuck", "plateaus", "won't go down" and "stays at
2.30" for one thing, so phrases are first mapped onto shared concept tokens, then words are stemmed.

No language model: a fixed phrase table, the Snowball English stemmer and a stop-word list. The concept tokens
start with an underscore so they never collide with a real word."""

from __future__ import annotations

import re
from functools import lru_cache

from .needles import LazyPattern

_NEG = r"(?:not|n't|never|no longer|cannot|can't|won't|fails? to|failed to|unable to|barely|hardly|doesn't|does not|didn't|did not|isn't|is not|aren't|wasn't)"
_MOVE = r"(?:decreas\w*|go(?:es|ing)? down|went down|drop\w*|improv\w*|learn\w*|chang\w*|mov\w*|converg\w*|reduc\w*|lower\w*|budg\w*|fall\w*|progress\w*|train\w*|updat\w*)"

# (pattern, concept) pairs, applied in order to lower-cased text. Several may fire on one phrase.
CONCEPTS: tuple[tuple[str, str], ...] = (
    (r"\bnans?\b|\binf\b|\binfs\b|-inf\b|infinity|not a number|\bnan loss|non-?finite", "_nan"),
    (rf"{_NEG}\s+(?:\w+\s+){{0,3}}?{_MOVE}", "_stuck"),
    (r"\bstuck\b|plateau\w*|\bflat\w*|stagnat\w*|same value|\bconstant\b|stays? (?:the same|at|around|about|near)"
     r"|stay(?:s|ed)? (?:flat|still)|hover\w*|doesn'?t budge|remain\w* (?:the same|at|around|constant)|stall\w*"
     r"|saturat\w*|stopp?\w* (?:learn|improv|decreas)\w*", "_stuck"),
    (r"always predict\w*|predicts? (?:only|the same|just one|one class|all)|same (?:class|output|prediction|label|value)s?"
     r"(?: for (?:all|every|each))?|all (?:the )?(?:predictions|outputs) (?:are|were) (?:the same|zero|identical|equal)"
     r"|identical (?:outputs|predictions)|outputs? (?:a )?constant|every (?:input|sample|image) gets", "_constant_output"),
    (r"\bval\b|\bvalid\b|validation|\bdev set\b|held[- ]out|\btest(?:ing)? (?:set|data|loss|acc\w*|score|split)"
     r"|\beval\w*|unseen data|new data", "_val"),
    # Each field names its scores differently (dice in segmentation, WER in speech, NDCG in recommenders).
    (r"\bacc\b|accuracy|\bf1\b|\bauc\b|precision|recall|\bmap\b|\bm?iou\b|\bbleu\b|\bscore\b|\bdice\b|\bmape\b"
     r"|\bwer\b|\bcer\b|\bndcg|\bhit ?rate|@\d+\b|\bpsnr\b|\bssim\b|\bfid\b|\brouge|\bexact match", "_metric"),
    (r"\blr\b|learning[- ]rate|step size", "_lr"),
    (r"explod\w*|blow\w* up|blew up|diverg\w*|skyrocket\w*|shoots? up|goes up|going up|went up|increas\w*"
     r"|grows?\b|growing|rises?\b|rising|gets? (?:bigger|larger|worse)|huge|very large", "_rise"),
    (r"spik\w*|sudden\w*|jumps?\b|jumped|bump\w*|shoots? up", "_spike"),
    (r"oscillat\w*|fluctuat\w*|up and down|bounc\w*|zig-?zag\w*|jump\w* around|noisy|erratic|unstable|instabilit\w*", "_oscillate"),
    # a zero value ("loss is 0", "0.000"), not the 0 that opens a decimal ("lr 0.001", "dropout 0.5"); the old pattern
    # gave 75 of the 234 d-h threads a _zero. (Also leaving out versions, "torch 2.0", cost the case-base CV two top-1
    # cases: they still count.)
    (r"\bzero\b|\b0\.0+\b|\b0\b(?!\.\d)", "_zero"),
    (r"overfit\w*|memori[sz]\w*", "_overfit"),
    (r"too good|suspicious\w*|100 ?%|99(?:\.\d+)? ?%|perfect\w*|near(?:ly)? perfect|unrealistic\w*|too high to be true", "_too_good"),
    (r"gibberish|garbage|nonsense|repeat\w*|repetit\w*|never stops?|doesn'?t stop|keeps? generating|endless\w*"
     r"|rambl\w*|same token", "_bad_text"),
    (r"\bgpus?\b|multi-?gpu|\bddp\b|distributed|multi-?node|data ?parallel|\branks?\b|deepspeed|\bfsdp\b", "_multi_gpu"),
    (r"out of memory|\boom\b|memory (?:leak|grows|keeps|increas\w*)|cuda out|ram (?:usage )?(?:grows|increas\w*)", "_memory"),
    (r"\bseeds?\b|random(?:ness)?|run to run|between runs|different runs|each run|every run|reproduc\w*|non-?determinis\w*", "_seed"),
    (r"after (?:i |we )?(?:changed|updated|upgraded|switched|moved|added|refactor\w*)|since (?:i |we )?(?:changed|updated"
     r"|upgraded|switched)|used to work|was working|worked before|stopped working|new version|upgrad\w*", "_changed"),
    (r"infer\w*|deploy\w*|export\w*|onnx|torchscript|llama\.cpp|ollama|gguf|vllm|production|serving", "_deploy"),
    (r"\bgrad(?:ient)?s? (?:are |is |become |becomes )?(?:none|zero|0|tiny|vanish\w*)|vanish\w*|no grad\w*", "_grad_zero"),
    (r"\bgrad(?:ient)?s? (?:are |is )?(?:huge|large|explod\w*|very big)|grad(?:ient)? norm\w* (?:is |are )?(?:huge|large|high)", "_grad_big"),
    (r"\bweights? (?:are |is )?(?:not|never|don'?t|doesn'?t|didn'?t) (?:chang|updat|mov)\w*|parameters? (?:are |is )?(?:not|never|don'?t|doesn'?t)"
     r" (?:chang|updat|mov)\w*|weights stay the same", "_no_update"),
)

STOPWORDS = frozenset(
    "a an the and or but if then so of to in on at by for with from as is are was were be been being it its this that "
    "these those i im i'm my me we our you your he she they them their there here what which who whom when where why how "
    "do does did doing done have has had having can could should would will shall may might must just very also too "
    "about into over under after before again further once all any both each few more most other some such only own same "
    "than up down out off no nor not now get got getting use used using like still even much many really quite "
    "hi hello thanks thank please help anyone someone guys problem issue question trying tried try".split()
)

_TOKEN = re.compile(r"_[a-z_]+|-100|[a-z][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*|\d+(?:\.\d+)?")


# Snowball leaves British and American spellings apart ('normalised' -> 'normalis', 'normalized' -> 'normal'),
# so American forms are respelled British first. This direction keeps 'normalisation' apart from 'normal' and
# 'tokeniser' apart from 'token', which the American stems would merge. 'size', 'resized' (an s before -iz) stay.
_AMERICAN_IZE = re.compile(r"(?<=[a-z]{2}[a-rt-z])iz(e|es|ed|ing|ation|ations|er|ers)$")
_AMERICAN_WORDS = {"analyze": "analyse", "analyzed": "analysed", "analyzing": "analysing", "behavior": "behaviour",
                   "behaviors": "behaviours", "color": "colour", "colors": "colours", "neighbor": "neighbour",
                   "neighbors": "neighbours", "center": "centre", "centered": "centred"}


def british(word: str) -> str:
    """The British spelling of an American one ('normalized' -> 'normalised'); other words unchanged."""
    return _AMERICAN_WORDS.get(word) or _AMERICAN_IZE.sub(r"is\1", word)


@lru_cache(maxsize=1)
def _english_stemmer():
    # Imported on first use: triage only, never at CLI start-up.
    from snowballstemmer import stemmer

    return stemmer("english")


# word -> stem, for the words stemmed so far and those of the catalogue (the triage snapshot stores them): the
# stemmer's import costs more than a whole triage call, and a description's words are mostly the catalogue's.
_STEMS: dict[str, str] = {}
MAX_STEMS = 100_000  # past this many, new words are stemmed each time rather than remembered


def stem(word: str) -> str:
    """Snowball (Porter2) English stem of a word in its British spelling, so 'normalised', 'normalizing' and
    'normalization' meet. Concept tokens and words with digits or underscores are kept as they are."""
    if word.startswith("_") or not word.isalpha():
        return word
    found = _STEMS.get(word)
    if found is None:
        found = _english_stemmer().stemWord(british(word))
        if len(_STEMS) < MAX_STEMS:
            _STEMS[word] = found
    return found


def known_stems() -> dict[str, str]:
    """The stems remembered so far (word -> stem)."""
    return dict(_STEMS)


def remember_stems(stems: dict[str, str]) -> None:
    """Stems worked out before (by another process), so these words need no stemmer."""
    _STEMS.update(stems)


def concepts(text: str) -> list[str]:
    """The concept tokens a text expresses, once each, in table order."""
    lowered = text.lower()
    found = [concept for pattern, concept in _COMPILED if pattern.search(lowered)]
    return list(dict.fromkeys(found))


def tokens(text: str) -> list[str]:
    """Stemmed content words, dotted identifiers split into their parts too, plus concept tokens."""
    lowered = text.lower().replace("\u2019", "'")
    found: list[str] = []
    for raw in _TOKEN.findall(lowered):
        if raw in STOPWORDS:
            continue
        if "." in raw and not raw[0].isdigit():
            found.append(raw)
            found.extend(stem(part) for part in raw.split(".") if part not in STOPWORDS and len(part) > 1)
        elif raw[0].isdigit():
            continue  # bare numbers say little on their own; the concepts catch the telling ones (0, 100%)
        elif len(raw) > 1:
            found.append(stem(raw))
            found.extend(_identifier_words(raw))
    return found + concepts(lowered)


def _identifier_words(raw: str) -> list[str]:
    """The words of a snake_case identifier ('cur_target' -> 'cur', 'target'), besides the identifier itself: a
    report's own variable names are rarely the catalogue's, their words often are (case-base CV top-3 +0.8 points
    when added, benchmarks/triage_retrieval.py)."""
    if "_" not in raw.strip("_"):
        return []
    return [stem(part) for part in raw.split("_") if len(part) > 1 and part not in STOPWORDS and not part.isdigit()]


_TRIED = re.compile(
    r"\b(?:i(?:'ve| have)? (?:already )?(?:tried|tested|experimented|played (?:around )?with|attempted|varied)"
    r"|(?:tried|tested) (?:different|several|various|other|a (?:lower|higher|smaller|larger|bigger|different))"
    r"|(?:didn'?t|did not|doesn'?t|does not|don'?t) (?:seem to )?(?:help|work|change anything|make (?:a|any) difference|fix it)"
    r"|no (?:luck|effect|difference|improvement))\b")


def split_tried(text: str) -> tuple[str, list[str]]:
    """The text without sentences about fixes already tried (and the list items under 'I tried:'), and those."""
    kept, tried, in_list = [], [], False
    for line in text.splitlines():
        stripped = line.strip()
        if in_list and stripped.startswith(("-", "*", "\u2022")) or in_list and re.match(r"\d+[.)]", stripped):
            tried.append(stripped)
            continue
        in_list = bool(_TRIED.search(stripped.lower())) and stripped.endswith(":")
        parts = re.split(r"(?<=[.!?])\s+", line)
        for part in parts:
            (tried if _TRIED.search(part.lower()) else kept).append(part)
    return "\n".join(kept), tried


# Compiled on first use, and only for a text that holds one of the pattern's needles (needles.py).
_COMPILED = tuple((LazyPattern(pattern), concept) for pattern, concept in CONCEPTS)
