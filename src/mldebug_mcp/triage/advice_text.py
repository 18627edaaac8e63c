"""Cuts a draft answer into the units the anti-pattern rules read, and tells negated clauses apart.

Prose is cut into sentences (a table cell counts as one), code (fenced, or lines that look like Python)
into lines, where a block header carries its whole statement. Each unit carries the context its
`unless` rules read: the sentence, or the enclosing code block. Offsets always point into the input, so
a match can be quoted and located exactly."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

HEADER_BODY_LINES = 40  # how much of its body a block header's rules may read (bounds the cost of lookaheads)
_FENCE = re.compile(r"^\s*(```|~~~)\s*([\w+-]*)")
# Unfenced code: case-sensitive, so a prose sentence (capitalised) is not taken for a statement.
_CODE_LINE = re.compile(
    r"^\s*(?:(?:try|else|finally)\s*:|(?:except|def|class|async)\b.*:\s*(?:#.*)?$"
    r"|(?:if|elif|while)\b.*[()=<>.\[].*:\s*(?:#.*)?$|for\b.+\bin\b.+:\s*(?:#.*)?$"
    r"|with\b.+(?:\(|\bas\b).*:\s*(?:#.*)?$|(?:return|raise|assert|yield|del)\b(?:\s*$|.*[(.\[=])"
    r"|(?:pass|continue|break)\s*(?:#.*)?$|import\s+[\w.]+|from\s+[\w.]+\s+import\b|@\w"
    r"|[A-Za-z_][\w.\[\]'\"]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*[-+*/%]?=(?!=)\s*\S|[A-Za-z_][\w.]*\(.*\)\s*(?:#.*)?$)")
_HEADER = re.compile(r"^\s*(?:try|else|finally|except|elif|if|for|while|with|def|class|async)\b[^#]*:\s*(?:#.*)?$")
_CONTINUATION = re.compile(r"^\s*(?:except|else|elif|finally)\b")
_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>)")
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]*_`]*(?=\s|$)|\s\|(?=\s|$)")  # table cells too
_CITATION = re.compile(r"\[[\w.-]+/[\w.-]+\]")  # quote ids such as [jones/assume-a-bug] are not advice
_CLAUSE_BREAK = re.compile(r"[,;:—–]|\s-{1,2}\s|\b(?:but|so|then|because|since|while|whereas|although|though"
                           r"|however|if|when|unless|until|otherwise)\b", re.IGNORECASE)
_NEG_BEFORE = re.compile(
    r"(?:\b(?:don['’]?t|do not|never|neither|avoid\w*|instead of|rather than|no need to|resist\w*|refrain\w*|against"
    r"|stop|(?:should|would|could|must|need|will|shall|might|may)(?:n['’]?t| not)|won['’]?t|cannot|can['’]?t)\b"
    r"(?:\W+\w+){0,6}?|^\W*not\b.*?|^\W*no\b(?:\W+\w+){0,1}?"
    # a comparison, not advice: "it only rescaled the step, like a small change in learning rate"
    r"|\b(?:like\s+(?:a|an|the)|as if|as though|(?:the )?same as|akin to|equivalent to|similar to)\b(?:\W+\w+){0,3}?|\bnot(?:\s+(?:a|an|the|to|by|just|simply|merely|yet|with|via|through|for"
    r"|any|more|even|use|using))?)\W*$", re.IGNORECASE | re.DOTALL)
_NEG_AFTER = re.compile(
    r"^\W*(?:(?!(?:if|when|because|since|as|until|while|so|unless|that|which)\b)\w+\W+){0,4}?(?:won['’]?t"
    r"|will not|wouldn['’]?t|would not|doesn['’]?t|does not|isn['’]?t|is not|can['’]?t|cannot|rarely|never"
    r"|is unlikely to|is no"
    # an account of what an attempt did, not advice: "lowering the lr only slowed the climb", "clipping hid it"
    r"|only\s+(?:slowed|slows|delayed|delays|hid|hides|masked|masks|postponed|shifted|moved|helped|make|makes|made)"
    r"|(?:did|does|do)(?:n['’]?t|\s+not)\s+(?:help|fix|change|solve|work)|would\s+only|made\s+no\s+difference"
    r"|had\s+no\s+effect|hid|hides|left\s+(?:all|every)|barely\s+helped|(?:is|are)(?:n['’]?t|\s+not)\s+needed"
    r"|stays\W+(?:null|none|off|false|disabled)"
    # what a function does, not advice: "AdamW and clip_grad_norm_ skip parameters with no gradient"
    r"|(?:skip|skips|skipped|ignore|ignores|ignored)\s+(?:parameters|params|tensors|those|them|it|any)|(?:changed|changes|did|does)\s+nothing|made\s+no\s+change)\b",
    re.IGNORECASE)


@dataclass(frozen=True)
class Unit:
    """A sentence of prose, or a line of code (a block header: its whole statement), with its context."""

    start: int  # offset of `text` in the input
    text: str
    scope: str  # where `unless` is read: the sentence, or the enclosing code block
    code: bool

    def matches(self, pattern: re.Pattern[str]) -> Iterator[re.Match[str]]:
        """Matches in reading order; in a block header, only those that start on the header line."""
        head_end = self.text.find("\n", 0, len(self.text.rstrip("\n")))
        if not self.code or head_end < 0:
            yield from pattern.finditer(self.text)
            return
        if "(?=" not in pattern.pattern:
            yield from pattern.finditer(self.text, 0, head_end)
            return
        for pos in range(head_end):  # match() at each start lets a lookahead read the body
            if found := pattern.match(self.text, pos):
                yield found

    def negated(self, start: int, end: int) -> bool:
        if not self.code:
            return _negated_in(self.text, start, end)
        first_line = self.text.split("\n", 1)[0]
        comment = first_line.find("#", 0, start)  # in code, only a comment can say "don't"
        return comment >= 0 and _negated_in(first_line[comment + 1:], start - comment - 1, end - comment - 1)


# The match as what is taken away: "you can drop the clip_grad_norm_ workaround" (its object, two words at most)
_REMOVAL = re.compile(r"\b(?:drop|remove|take out|get rid of|no longer need)\W+(?:\w+\W+){0,2}$", re.IGNORECASE)
# The rest of a list the match opens: "gradient clipping, warm-up or a different optimiser won't fix it"
_LIST_TAIL = re.compile(r"(?:\s*,\s*[^,.;:!?]{1,40}?){0,4}\s*,?\s+(?:or|and|nor)\s+[^,.;:!?]{1,40}?(?=\s)",
                        re.IGNORECASE)


def _negated_in(sentence: str, start: int, end: int) -> bool:
    cut = max((b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, start)), default=0)
    after = _CLAUSE_BREAK.search(sentence, end)
    post = sentence[end:after.start() if after else len(sentence)]
    if _NEG_BEFORE.search(sentence[cut:start]) or _NEG_AFTER.match(post) or _REMOVAL.search(sentence[cut:start]):
        return True
    listed = _LIST_TAIL.match(sentence, end)  # a list's negation comes after its last item
    return bool(listed and _NEG_AFTER.match(sentence[listed.end():])) or _in_negated_list(sentence, start)


_LIST_ITEM_START = re.compile(r",\s*(?:(?:or|and|nor)\s+)?$", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"[.;:!?]")


def _in_negated_list(sentence: str, start: int) -> bool:
    """The match is a later item of a list whose head is negated: "no need to switch to GroupNorm, lower the lr or
    clip" (the comma that cuts the clause also separates the items)."""
    prefix = sentence[:start]
    if not _LIST_ITEM_START.search(prefix):
        return False
    head, *items = prefix[max((m.end() for m in _SENTENCE_BREAK.finditer(prefix)), default=0):].split(",")
    return len(items) <= 5 and all(len(item) <= 60 for item in items) and bool(_NEG_BEFORE.search(head))


def split_units(text: str) -> list[Unit]:
    """Prose paragraphs cut into sentences, code (fenced, or lines that parse as Python) into lines."""
    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text)  # "\n" only, so offsets agree with line numbers
    kinds: list[str] = []  # prose, code, blank, or skip (fence markers, removed diff lines)
    masked: list[str] = []  # the lines as matched: same lengths, markers and quote ids blanked
    fence = diff = False
    for line in lines:
        kind, out = ("prose" if line.strip() else "blank"), line
        if fence_match := _FENCE.match(line):
            diff = not fence and fence_match.group(2).lower() in ("diff", "patch")
            fence, kind, out = not fence, "skip", re.sub(r"[^\r\n]", " ", line)
        elif fence and diff and line.startswith(("-", "@@")):  # removed lines are not advice
            kind, out = "skip", re.sub(r"[^\r\n]", " ", line)
        elif fence:
            kind, out = "code", (" " + line[1:] if diff and line[:1] == "+" else line)
        elif kind == "prose" and _CODE_LINE.match(line):
            kind = "code"
        kinds.append(kind)
        masked.append(_CITATION.sub(lambda m: " " * len(m.group()), out) if kind == "prose" else out)
    clean, offsets = "".join(masked), [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    units: list[Unit] = []
    i = 0
    while i < len(lines):
        j = i + 1
        while j < len(lines) and kinds[j] == kinds[i] and not (kinds[i] == "prose" and _BLOCK_START.match(lines[j])):
            j += 1
        if kinds[i] == "code":
            units += _code_units(clean, offsets, i, j)
        elif kinds[i] == "prose":
            units += _sentences(clean, offsets[i], offsets[j])
        i = j
    return units


def _sentences(clean: str, start: int, end: int) -> list[Unit]:
    cuts = [start] + [start + m.end() for m in _SENTENCE_END.finditer(clean[start:end])] + [end]
    units: list[Unit] = []
    for a, b in itertools.pairwise(cuts):
        a += len(clean[a:b]) - len(clean[a:b].lstrip())
        if a < b:
            units.append(Unit(a, clean[a:b], clean[a:b], False))
    return units


def _code_units(clean: str, offsets: list[int], first: int, stop: int) -> list[Unit]:
    line = {k: clean[offsets[k]:offsets[k + 1]] for k in range(first, stop)}
    rows = [(k, len(line[k]) - len(line[k].lstrip())) for k in range(first, stop) if line[k].strip()]
    ends: dict[int, int] = {}  # header line -> first line after its statement (continuation clauses included)
    for n, (k, ind) in enumerate(rows):
        if _HEADER.match(line[k]):
            later = (r for r, i in rows[n + 1:] if i < ind or (i == ind and not _CONTINUATION.match(line[r])))
            ends[k] = next(later, stop)
    units: list[Unit] = []
    open_blocks: list[tuple[int, int]] = []  # (line, indent) of the headers around the line, innermost last
    for k, ind in rows:
        while open_blocks and (ends[open_blocks[-1][0]] <= k or open_blocks[-1][1] >= ind):
            open_blocks.pop()
        lo, hi = (open_blocks[-1][0], ends[open_blocks[-1][0]]) if open_blocks else (first, stop)
        statement_end = min(ends.get(k, k + 1), k + 1 + HEADER_BODY_LINES)
        units.append(Unit(offsets[k], clean[offsets[k]:offsets[statement_end]], clean[offsets[lo]:offsets[hi]], True))
        if k in ends:
            open_blocks.append((k, ind))
    return units
