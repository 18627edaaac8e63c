"""The anti-pattern guard: finds moves in a proposed fix that quiet a symptom and leave the bug in place.

Rules over text, no language model. data/antipatterns.yaml gives each move its regular expressions
(`patterns`) and the context that shows it is done right (`unless`). Prose is matched per sentence, and a
match in a negated clause ("don't lower the LR") is dropped, as is one the sentence only names rather than
puts forward ("a wider model helped a little"; advice_text.proposes); code is matched per line (a block header
sees its whole statement), and `unless` is read over the enclosing block."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .. import _yaml as yaml
from ..errors import ContentError, UsageError
from ..models.advice import AdviceFinding, AdviceReport
from .advice_text import Unit, split_units

DATA_PACKAGE = "mldebug_mcp.triage"
SNIPPET_CHARS = 120
_WORD = r"\w+(?:['’.-]\w+)*"
_SEP = r"[^\w\n,;:|!?()\[\]]+"  # a gap between words never crosses a clause or a table cell
# Shared pieces, written {name} in the YAML, so that each paraphrase family is spelled once.
FRAGMENTS: dict[str, str] = {
    "lr": r"(?:learning[\s_-]*rates?|\blrs?\b|step[\s_-]*sizes?)",
    "gap": rf"(?:{_SEP}{_WORD}){{0,4}}?{_SEP}",
    "gap2": rf"(?:{_SEP}{_WORD}){{0,2}}?{_SEP}",
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
                r"|\bbefore (?:you |we |i )?(?:touch|tun|chang|lower|adjust|reach|add|switch|swap)\w*"
                r"|\b(?:it|the (?:model|network|net))\s+(?:already |now )?(?:overfits|memori[sz]es|fits)\s+(?:a|one|the)"
                r"\s+(?:single |small |tiny )?batch)",
    # "fixes it" / "fixed the NaN" as a result, not "the fix", "the fixed model" or "seed 0 fixes one draw of the weights"
    "fixedit": r"(?:fix(?:es|ed)\s+(?:it|this|that|them|everything|the\s+(?:\w+\s+)?(?:problem|issue|bug|nans?|divergence|loss"
               r"|crash\w*|instabilit\w*|spikes?|collapse|plateau)))",
    "later": r"\b(?:later(?: on)?|at the (?:very )?end|afterwards|as a (?:final|last) step|eventually"
             r"|(?:tun\w*|touch\w*|adjust\w*|do) (?:\w+ ){0,3}last)\b",
    "describes": r"(?:\b(?:we|they|the (?:paper|authors|original(?: \w+)?|reference(?: \w+)?|baseline|config"
                 r"|recipe|repo)|i|my (?:config|setup|run))\s+(?:(?:also|originally|currently|already)\s+)?"
                 r"(?:use[sd]?|trained|trains?\s+with|set|ran|chose|picked|has|have|had|employ\w*)\b"
                 r"|\b(?:i['’]?m|we['’]?re|i am|we are|currently|already)\s+(?:using|running|training with)\b"
                 r"|\b(?:as )?in the (?:paper|original|reference)\b"
                 # what the code does, with the code as subject: "adapt_norm_layers multiplied the momentum by 16"
                 r"|\b(?:[A-Za-z_]\w*(?:\.\w+|\(\))+|it|this|that|which)\s+(?:(?:always|silently|also|then|only)\s+)?(?:multiplie[sd]|scale[sd]"
                 r"|divide[sd]|lower(?:s|ed)|reduce[sd]|raise[sd]|increase[sd]|change[sd]|sets|overr?(?:ode|ides|wrote|writes))\b)",
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
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=10)
    why: str = Field(min_length=30)
    instead: str = Field(min_length=15)
    evidence: tuple[str, ...] = Field(min_length=1)
    patterns: tuple[re.Pattern[str], ...] = Field(min_length=1)
    unless: tuple[re.Pattern[str], ...] = ()
    # move: prose reports a match only where the sentence puts the move forward (advice_text.proposes); claim:
    # the anti-pattern is a statement ("it worked on seed 0", "I changed the lr, the batch size and ..."), read as is
    reads: Literal["move", "claim"] = "move"
    # where `unless` is read for prose: the sentence, or its whole paragraph (list item)
    unless_reads: Literal["sentence", "paragraph"] = "sentence"

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


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    unit: Unit


def check_advice(text: str) -> AdviceReport:
    """The anti-patterns a proposed fix or draft answer (prose, code or both) contains, one per id."""
    if not text or not text.strip():
        raise UsageError("check_advice needs the proposed fix or draft answer as text; got nothing. "
                         "Pass the prose and/or code you are about to suggest.")
    findings: list[tuple[int, AdviceFinding]] = []
    for item, hits in _hits_by_pattern(text):
        first = min(hits, key=lambda h: h.start)
        findings.append((first.start, AdviceFinding(
            id=item.id, title=item.title, why=item.why, instead=item.instead, evidence=list(item.evidence),
            matched=_snippet(text[first.start:first.end]), line=text.count("\n", 0, first.start) + 1,
            further_occurrences=len(hits) - 1)))
    ordered = [finding for _, finding in sorted(findings, key=lambda pair: pair[0])]
    return AdviceReport(text_chars=len(text), findings=ordered, clean=not ordered)


@dataclass(frozen=True)
class SentenceHit:
    """One sentence or code line that an anti-pattern matched (check_advice reports the first per id)."""

    id: str
    start: int  # the match, as offsets into the checked text
    end: int
    sentence: str  # the unit it rests on: the prose sentence or the code line, as in the text
    code: bool


def sentence_hits(text: str) -> list[SentenceHit]:
    """Every sentence or code line each anti-pattern matches, in order of anti-pattern then position."""
    return [SentenceHit(item.id, hit.start, hit.end, hit.unit.text, hit.unit.code)
            for item, hits in _hits_by_pattern(text) for hit in hits]


def _hits_by_pattern(text: str) -> list[tuple[AntiPattern, list[_Hit]]]:
    units = split_units(text)
    result = []
    for item in load_antipatterns():
        hits = [hit for unit in units if (hit := _first_hit(item, unit)) is not None]
        if hits:
            result.append((item, hits))
    return result


def _first_hit(item: AntiPattern, unit: Unit) -> _Hit | None:
    """The earliest reported match of one anti-pattern in one unit, or None (negated, excused, absent)."""
    best: _Hit | None = None
    for pattern in item.patterns:
        for match in unit.matches(pattern):
            if unit.negated(match.start(), match.end()):
                continue
            if item.reads == "move" and not unit.proposed(match.start(), match.end()):
                continue
            if best is None or match.start() < best.start - unit.start:
                best = _Hit(unit.start + match.start(), unit.start + match.end(), unit)
            break
    scope = unit.paragraph if item.unless_reads == "paragraph" and unit.paragraph else unit.scope
    if best is not None and any(rule.search(scope) for rule in item.unless):
        return None
    return best


def _snippet(raw: str) -> str:
    flat = " ".join(raw.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS - 1] + "…"
