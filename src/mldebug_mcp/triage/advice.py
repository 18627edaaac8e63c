"""The anti-pattern guard: finds moves in a proposed fix that quiet a symptom and leave the bug in place.

Rules over text, no language model. data/antipatterns.yaml gives each move its regular expressions
(`patterns`) and the context that shows it is done right (`unless`). Prose is matched per sentence, and a
match in a negated clause ("don't lower the LR") is dropped; code is matched per line (a block header
sees its whole statement), and `unless` is read over the enclosing block."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import ContentError, UsageError
from ..models import AdviceFinding, AdviceReport

DATA_PACKAGE = "mldebug_mcp.triage"
SNIPPET_CHARS = 120
_WORD = r"\w+(?:['’.-]\w+)*"
# Shared pieces, written {name} in the YAML, so that each paraphrase family is spelled once.
FRAGMENTS: dict[str, str] = {
    "lr": r"(?:learning[\s_-]*rates?|\blrs?\b|step[\s_-]*sizes?)",
    "gap": rf"(?:[^\w\n]+{_WORD}){{0,4}}?[^\w\n]+",
    "gap2": rf"(?:[^\w\n]+{_WORD}){{0,2}}?[^\w\n]+",
    "num": r"(?:\d*\.?\d+(?:e[-+]?\d+)?)",
    "opt": r"(?:optimi[sz]ers?|optimi[sz]ation (?:algorithm|method)s?)",
    "optname": r"(?:sgd|adam\w*|rmsprop|adagrad|adadelta|lion|lamb|lars|sophia|shampoo|adafactor|nadam|radam"
               r"|l-?bfgs|muon|ranger|novograd)",
    "sched": r"(?:(?:lr|learning[\s-]*rate)[\s_-]*(?:schedul\w*|decay|annealing|drops?)|schedul(?:er|e)s?\b"
             r"|(?:cosine|step|exponential|linear|polynomial|inverse[\s-]*sqrt|cyclic(?:al)?)[\s-]*"
             r"(?:decay|annealing|schedul\w*)|cosine[\s-]*anneal\w*|reduce[\s_-]*lr[\s_-]*on[\s_-]*plateau"
             r"|one[\s-]?cycle(?:lr|\s+policy|\s+schedule)?|cyclic[\s_-]?lr|(?:multi)?steplr|exponentiallr)",
    "knob": r"(?:{lr}|\b(?:batch[\s_-]*sizes?|optimi[sz]ers?|weight[\s_-]*decay|dropout|schedul\w*|momentum"
            r"|warm[\s-]?up|epochs?|augment\w*|init\w*|architecture|model (?:size|width|depth)|layers?"
            r"|loss(?: function)?|seeds?|normali[sz]ation|activations?|clipping|precision|tokeni[sz]er"
            r"|data(?:set)?|{optname})\b)",
    "verified": r"(?:\b(?:after|once|only (?:then|after|once|when|if)|as soon as|when)\b"
                r"(?:(?!\b(?:not|cannot|fails?|never|unable)\b|n['’]t\b)[^.!?]){0,60}?"
                r"\b(?:overfit\w*|memori[sz]\w*|fits? (?:a|one|the|that|this) (?:single |small |tiny )?batch"
                r"|verif\w*|confirm\w*|checked|pass(?:es|ed)?\b|sanity[\s-]*check\w*|init(?:ial(?:i[sz]ation)?)? loss"
                r"|beats? (?:a |the )?baseline|(?:shown|known|proven) (?:to be )?correct"
                r"|(?:those|these|that|this|they|it) (?:all )?(?:pass\w*|work\w*|check\w* out"
                r"|look\w* (?:right|fine|good|healthy)))|\bonly then\b"
                r"|\bbefore (?:you |we |i )?(?:touch|tun|chang|lower|adjust|reach|add|switch|swap)\w*)",
    "later": r"\b(?:later(?: on)?|at the (?:very )?end|afterwards|as a (?:final|last) step|eventually"
             r"|(?:tun\w*|touch\w*|adjust\w*|do) (?:\w+ ){0,3}last)\b",
    "describes": r"(?:\b(?:we|they|the (?:paper|authors|original(?: \w+)?|reference(?: \w+)?|baseline|config"
                 r"|recipe|repo)|i|my (?:config|setup|run))\s+(?:(?:also|originally|currently|already)\s+)?"
                 r"(?:use[sd]?|trained|trains?\s+with|set|ran|chose|picked|has|have|had|employ\w*)\b"
                 r"|\b(?:i['’]?m|we['’]?re|i am|we are|currently|already)\s+(?:using|running|training with)\b"
                 r"|\b(?:as )?in the (?:paper|original|reference)\b)",
}
_FRAGMENT_NAME = re.compile(r"\{([a-z][a-z0-9_]*)\}")


def compile_rule(source: str) -> re.Pattern[str]:
    """A YAML rule as a regex: fragments expanded, case-insensitive, `^`/`$` at line ends."""
    expanded = source
    for _ in range(3):  # fragments may use fragments, two levels deep
        expanded = _FRAGMENT_NAME.sub(lambda m: _fragment(m.group(1), source), expanded)
    try:
        return re.compile(expanded, re.IGNORECASE | re.MULTILINE)
    except re.error as exc:
        raise ValueError(f"pattern {source!r} is not a valid regular expression: {exc}") from exc


def _fragment(name: str, source: str) -> str:
    if name not in FRAGMENTS:
        raise ValueError(f"pattern {source!r} uses unknown fragment {{{name}}}; known: {', '.join(FRAGMENTS)}")
    return FRAGMENTS[name]


class AntiPattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=10)
    why: str = Field(min_length=30)
    instead: str = Field(min_length=15)
    evidence: tuple[str, ...] = Field(min_length=1)
    patterns: tuple[re.Pattern[str], ...] = Field(min_length=1)
    unless: tuple[re.Pattern[str], ...] = ()

    @field_validator("patterns", "unless", mode="before")
    @classmethod
    def _compile(cls, value: object) -> tuple[re.Pattern[str], ...]:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise ValueError("must be a list of regular expressions (strings)")
        return tuple(compile_rule(v) for v in value)


def parse_antipatterns(text: str) -> tuple[AntiPattern, ...]:
    """Anti-patterns from YAML text; ContentError names the entry and the field that is wrong."""
    try:
        entries = yaml.safe_load(text) or []
    except yaml.YAMLError as exc:
        raise ContentError(f"triage antipatterns.yaml is not valid YAML: {exc}") from exc
    if not isinstance(entries, list):
        raise ContentError("triage antipatterns.yaml must be a list of anti-patterns")
    result: dict[str, AntiPattern] = {}
    for index, entry in enumerate(entries):
        label = entry.get("id", f"entry {index}") if isinstance(entry, dict) else f"entry {index}"
        try:
            item = AntiPattern(**entry)
        except (ValidationError, TypeError) as exc:
            raise ContentError(f"triage antipatterns.yaml: anti-pattern {label} is malformed: {exc}") from exc
        if item.id in result:
            raise ContentError(f"triage antipatterns.yaml: anti-pattern id {item.id!r} is defined twice")
        result[item.id] = item
    return tuple(result.values())


@cache
def load_antipatterns() -> tuple[AntiPattern, ...]:
    """The bundled anti-patterns, parsed and compiled once per process."""
    path = resources.files(DATA_PACKAGE) / "data" / "antipatterns.yaml"
    return parse_antipatterns(path.read_text(encoding="utf-8"))


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
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]*_`]*(?=\s|$)")
_CLAUSE_BREAK = re.compile(r"[,;:—–]|\s-{1,2}\s|\b(?:but|so|then|because|since|while|whereas|although|though"
                           r"|however|if|when|unless|until|otherwise)\b", re.I)
_NEG_BEFORE = re.compile(
    r"(?:\b(?:don['’]?t|do not|never|avoid\w*|instead of|rather than|no need to|resist\w*|refrain\w*|against"
    r"|stop|(?:should|would|could|must|need|will|shall|might|may)(?:n['’]?t| not)|won['’]?t|cannot|can['’]?t)\b"
    r"(?:\W+\w+){0,6}?|^\W*not\b.*?|\bnot(?:\s+(?:a|an|the|to|by|just|simply|merely|yet|with|via|through|for"
    r"|any|more|even|use|using))?)\W*$", re.I | re.S)
_NEG_AFTER = re.compile(
    r"^\W*(?:(?!(?:if|when|because|since|as|until|while|so|unless|that|which)\b)\w+\W+){0,4}?(?:won['’]?t"
    r"|will not|wouldn['’]?t|would not|doesn['’]?t|does not|isn['’]?t|is not|can['’]?t|cannot|rarely|never"
    r"|is unlikely to|is no)\b", re.I)


@dataclass(frozen=True)
class Unit:
    """A sentence of prose, or a line of code (a block header: its whole statement), with its context."""

    start: int  # offset of `text` in the input
    text: str
    scope: str  # where `unless` is read: the sentence, or the enclosing code block
    code: bool

    def negated(self, start: int, end: int) -> bool:
        if not self.code:
            return _negated_in(self.text, start, end)
        line_end = self.text.find("\n") % (len(self.text) + 1)
        comment = self.text.find("#", 0, start)  # in code, only a comment can say "don't"
        return comment >= 0 and _negated_in(self.text[comment + 1:line_end], start - comment - 1, end - comment - 1)


def _negated_in(sentence: str, start: int, end: int) -> bool:
    cut = max((b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, start)), default=0)
    after = _CLAUSE_BREAK.search(sentence, end)
    post = sentence[end:after.start() if after else len(sentence)]
    return bool(_NEG_BEFORE.search(sentence[cut:start]) or _NEG_AFTER.match(post))


def split_units(text: str) -> list[Unit]:
    """Prose paragraphs cut into sentences, code (fenced, or lines that parse as Python) into lines."""
    lines = text.splitlines(keepends=True)
    kinds, masked, fence, diff = [], [], False, False
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
        masked.append(out)
    clean, offsets = "".join(masked), [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    units, i = [], 0
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
    units = []
    for a, b in zip(cuts, cuts[1:]):
        a += len(clean[a:b]) - len(clean[a:b].lstrip())
        if a < b:
            units.append(Unit(a, clean[a:b], clean[a:b], False))
    return units


def _code_units(clean: str, offsets: list[int], first: int, stop: int) -> list[Unit]:
    line = [clean[offsets[k]:offsets[k + 1]] for k in range(len(offsets) - 1)]
    rows = [(k, len(line[k]) - len(line[k].lstrip())) for k in range(first, stop) if line[k].strip()]
    indent, ends = dict(rows), {}
    for n, (k, ind) in enumerate(rows):
        if _HEADER.match(line[k]):
            later = (r for r, i in rows[n + 1:] if i < ind or (i == ind and not _CONTINUATION.match(line[r])))
            ends[k] = next(later, stop)
    units = []
    for k, ind in rows:
        parent = max((h for h, e in ends.items() if h < k < e and indent[h] < ind), default=None)
        lo, hi = (first, stop) if parent is None else (parent, ends[parent])
        units.append(Unit(offsets[k], clean[offsets[k]:offsets[ends.get(k, k + 1)]],
                          clean[offsets[lo]:offsets[hi]], True))
    return units


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int


def check_advice(text: str) -> AdviceReport:
    """The anti-patterns a proposed fix or draft answer (prose, code or both) contains, one per id."""
    if not text or not text.strip():
        raise UsageError("check_advice needs the proposed fix or draft answer as text; got nothing. "
                         "Pass the prose and/or code you are about to suggest.")
    units = split_units(text)
    findings: list[tuple[int, AdviceFinding]] = []
    for item in load_antipatterns():
        hits = [hit for unit in units if (hit := _first_hit(item, unit)) is not None]
        if not hits:
            continue
        first = min(hits, key=lambda h: h.start)
        findings.append((first.start, AdviceFinding(
            id=item.id, title=item.title, why=item.why, instead=item.instead, evidence=list(item.evidence),
            matched=_snippet(text[first.start:first.end]), line=text.count("\n", 0, first.start) + 1,
            further_occurrences=len(hits) - 1)))
    ordered = [finding for _, finding in sorted(findings, key=lambda pair: pair[0])]
    return AdviceReport(text_chars=len(text), findings=ordered, clean=not ordered)


def _first_hit(item: AntiPattern, unit: Unit) -> _Hit | None:
    """The earliest reported match of one anti-pattern in one unit, or None (negated, excused, absent)."""
    best: _Hit | None = None
    for pattern in item.patterns:
        for match in pattern.finditer(unit.text):
            if unit.code and "\n" in unit.text[:match.start()]:
                break  # a header only reports on its own line; body lines are units of their own
            if unit.negated(match.start(), match.end()):
                continue
            if best is None or match.start() < best.start - unit.start:
                best = _Hit(unit.start + match.start(), unit.start + match.end())
            break
    if best is not None and any(rule.search(unit.scope) for rule in item.unless):
        return None
    return best


def _snippet(raw: str) -> str:
    flat = " ".join(raw.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS - 1] + "…"
