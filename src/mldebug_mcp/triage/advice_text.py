"""Cuts a draft answer into the units the anti-pattern rules read, tells negated clauses apart, and tells a move
put forward ("lower the lr") from one only named ("a lower lr did nothing").

Prose is cut into sentences (a table cell counts as one), code (fenced, or lines that look like Python)
into lines, where a block header carries its whole statement. Each unit carries the context its
`unless` rules read: the sentence (or, for `unless_reads: paragraph`, its paragraph), or the enclosing code
block; a sentence also carries its section heading and the lead line of the list it is an item of ("If you want
it smoother, any of these would help:"). Offsets always point into the input, so a match can be quoted and
located exactly."""

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
    r"(?:\b(?:don['’]?t|do not|doesn['’]?t|does not|didn['’]?t|did not|never|neither|nor|without|none of(?:\W+\w+){0,4}?|no"
    r"|there (?:is|was) no|avoid\w*|instead of|rather than|no need to|resist\w*|refrain\w*|against"
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
    context: str = ""  # prose: the section heading and the lead line of the list the sentence is an item of
    paragraph: str = ""  # prose: the paragraph (or list item) the sentence belongs to

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
            return _negated_in(self.text, start, end) or bool(_REJECTING_HEADING.search(self.context))
        first_line = self.text.split("\n", 1)[0]
        comment = first_line.find("#", 0, start)  # in code, only a comment can say "don't"
        return comment >= 0 and _negated_in(first_line[comment + 1:], start - comment - 1, end - comment - 1)


    def proposed(self, start: int, end: int) -> bool:
        """Prose only: whether the sentence puts the matched move forward as something to do (see `proposes`)."""
        return self.code or proposes(self.text, start, end, self.context)


# Base forms of the verbs a piece of advice opens with ("Lower the lr", "Try a bigger model", "Just skip the batch").
_IMPERATIVE = (r"(?:add|use|try|set|switch|swap|change|lower|reduce|decrease|drop|cut|halve|raise|increase|bump|boost"
               r"|double|tune|tweak|adjust|sweep|scale|divide|multiply|turn|dial|knock|bring|play|experiment|wrap|put"
               r"|surround|catch|skip|ignore|suppress|call|apply|append|insert|stick|tack|detach|run|do|compute|decay"
               r"|introduce|plug|attach|enable|make|give|stack|throw|widen|deepen|grow|expand|normali[sz]e|standardi[sz]e"
               r"|whiten|rescale|cast|convert|coerce|clip|replace|move|go|fall|revert|pick|choose|consider|train|keep"
               r"|include|start|let['’]s|let|shrink|trade|migrate|fiddle|mess|guard|protect|enclose|swallow"
               r"|trap|write|install|retrain|rerun|re-?tune|fix|check)")
_LEAD_IN = re.compile(r"^(?:[\s\-*+>#|_`\"'“(]|\d+[.)])*(?:(?:also|then|and|or|so|just|simply|first|next|now|instead"
                      r"|finally|additionally|optionally|alternatively|please|maybe|perhaps|ideally|otherwise)\b[\s,]*)*",
                      re.IGNORECASE)
# ... unless the word is the head of a noun ("Train accuracy crept up", "Step size 0.1 gave", "Set-up")
_OPENS_WITH_VERB = re.compile(rf"{_IMPERATIVE}\b(?![-’'])(?!\s+(?:loss|losses|accuracy|acc|set|sets|data|split|time|rate|size"
                              r"|mode|metrics?|curves?|errors?|values?|rows?|results?|runs?|logs?|steps?|scripts?|script)\b)",
                              re.IGNORECASE)
# Words that put a move forward wherever they stand before it in the clause: "you should", "I'd", "consider"
_ADVICE_CUE = re.compile(
    r"\b(?:you['’](?:ll|d)|(?:you|we|one|they)\s+(?:\w+\s+)?(?:should|could|can|might|may|must|need to|needs to|have to|has to"
    r"|ought to|want to|will want to|need)|(?:one|an|the (?:best|simplest|easiest|first))\s+(?:\w+\s+)?(?:option|idea"
    r"|alternative|thing to (?:try|do)|step) (?:is|would be)|i['’]d|i would|i['’]ll|i will|let['’]s|let us|i (?:recommend|suggest|propose"
    r"|advise)|recommend\w*|suggest(?:ion|ed|s)?|consider\w*|worth|try|trying|the (?:fix|solution|remedy|cure|answer"
    r"|next step|way forward) (?:is|would be|here is)|go with|opt for|maybe|perhaps|needs?|requires?)\b", re.IGNORECASE)
# Said after the move: "a smaller step size would probably fix the oscillation", "X should get it unstuck"
_OUTCOME_AFTER = re.compile(
    # "X is the answer", "X is the way to go"
    r"(?:[^.;:!?]|\.(?=\d)){0,80}?\b(?:is|are|would be|will be|seems|looks like)\s+(?:probably\s+|likely\s+|clearly\s+)?"
    r"(?:the|your|a|an|my)\s+(?:\w+\s+)?(?:way to go|answer|fix|solution|remedy|cure|best bet|way forward|right (?:move|call"
    r"|choice))\b"
    # "X usually stabilises this"
    r"|(?:[^.;:!?]|\.(?=\d)){0,80}?\b(?:usually|often|typically|generally|normally|tends? to)\s+(?:help|fix|stabili[sz]|solv"
    r"|cur|resolv|work)\w*"
    r"|(?:[^.;:!?]|\.(?=\d)){0,80}?\b(?:should|would|could|might|may|will|can|ought to)\s+(?:\w+\s+)?(?:help|fix|solve|work|stabili[sz]e"
    r"|cure|resolve|improve|get|make it|do the trick|unstick|prevent|stop|remove|rescue)\b", re.IGNORECASE)
# A lead before a colon that announces advice
_COLON_LEAD = re.compile(r"\b(?:suggest\w*|recommend\w*|options?|alternatives?|next steps?|what i['’]?d do|advice|to try"
                         r"|(?:quick|easy|simple) fix(?:es)?|try this|do this)\W*:\s*$", re.IGNORECASE)
# A success claimed for a move the clause opens with
_FIRST_PERSON_OR_NONE = re.compile(r"^(?:[\s\-*+>#|_`\"'“]|\d+[.)])*(?:(?:i|we)\s+(?:(?:just|then|also|simply|finally)\s+)?)?$",
                                   re.IGNORECASE)
_SUCCESS = re.compile(
    r"\b(?:fix(?:es|ed)|solv(?:es|ed)|cur(?:es|ed)|resolv(?:es|ed))\s+(?:it|this|that|everything|the\s+(?:\w+\s+)?\w+)"
    r"|\b(?:it|that|training|the (?:run|loss|model|network))\s+(?:now\s+)?(?:works|worked|converges|converged|trains|trained"
    r"|learns|is stable)\b|\b(?:went|goes|go) away\b|\bno (?:more|longer)\b"
    r"|\bnow (?:it |the \w+ )?(?:works|trains|converges|learns)\b", re.IGNORECASE)
# A diagnosis in the match itself: "the learning rate is too high", "the network lacks capacity"
_DIAGNOSIS = re.compile(r"\btoo\s+\w+|\bnot\s+(?:\w+\s+)?enough\b|\black\w*|\bneeds?\b", re.IGNORECASE)
# A clause that states a condition or a later time rather than the move itself: "if you ever need a scheduler, ..."
_ANTECEDENT = re.compile(r"\b(?:if|when|whenever|unless|until|whether|before|once)\s*$", re.IGNORECASE)
_ANTECEDENT_START = re.compile(r"^\W*(?:if|when|whenever|unless|until|whether|before|once)\b", re.IGNORECASE)
# Firm clause ends (not commas, which also separate list items)
_FIRM_BREAK = re.compile(r"[;:—–]|\s-{1,2}\s|\b(?:but|so|then|because|since|while|whereas|although|though|however)\b",
                         re.IGNORECASE)
# An optional extra offered on top of a fix, not a fix: "if it bothers you", "if you want it smoother", a
# "Suggestions (not part of the fix)" heading, "optional"
_OPTIONAL = re.compile(
    r"\bif (?:it|that|this|the (?:\w+ ){1,4}?)(?:really |still )?(?:matters|bothers)\b|\bif you (?:care|prefer|like)\b"
    r"|\bif you (?:\w+ )?(?:want|need|would like)\b[^.;,!?]{0,50}?(?:\b(?:smoother|steadier|better|tighter|cleaner|faster"
    r"|lower|higher|more|less|extra)\b|\bexact|\breliabl|\bsmooth|<|\bunder\b|\bbelow\b)|\boptional(?:ly)?\b|\bnot (?:part of|needed for|required for) the fix\b|\bnot a (?:bug )?fix\b"
    r"|\bnot applied\b|\bnot (?:a )?(?:bug|code) (?:fix|change)\b", re.IGNORECASE)
# A section heading or list lead that introduces what not to do or what was tried: "What not to do", "What didn't help"
_REJECTING_HEADING = re.compile(
    r"(?:^|\n)\s*#{1,6}[^\n]*(?:\bnot to\b|\bdon['’]?t\b|\bavoid|\bdid(?:n['’]t| not) (?:help|work|fix)|\bruled out\b|\btempting"
    r"|\bred herrings?\b|\bwhat you (?:tried|saw)\b|\bworkarounds?\b|\bwhy (?:\w+ ){0,4}(?:didn['’]t|did not|doesn['’]t"
    r"|does not|won['’]t|can['’]t|cannot)\b)", re.IGNORECASE)


def proposes(sentence: str, start: int, end: int, context: str = "") -> bool:
    """Whether a prose sentence puts the move matched at [start, end) forward, rather than naming it.

    A move is put forward by an imperative ("Lower the lr", "Try a bigger model", also as a later item of a list
    the imperative opens), by an advice word before it in the clause ("you should", "I'd", "consider"), by an
    outcome promised after it ("... would fix it"), or by a diagnosis in the match ("the lr is too high"). It is
    not put forward where it only names the move: an account ("A wider model helped a little", "Changing the lr
    makes no difference", "with the lower lr"), code named in passing, a question, the condition of an
    if/when/before clause, or an optional extra offered on top of the fix ("if you want it smoother, ...")."""
    sentence = sentence.replace("\n", " ")
    if sentence.rstrip(" *_`").endswith("?"):
        return False
    in_antecedent = _in_antecedent(sentence, start)
    if _DIAGNOSIS.search(sentence, start, end) and not in_antecedent:
        return True
    if _OPTIONAL.search(sentence[:start]) or _OPTIONAL.search(context) or in_antecedent:
        return False
    firm = max((b.end() for b in _FIRM_BREAK.finditer(sentence, 0, start)), default=0)
    wide = sentence[firm:start]
    clause = _clause_prefix(sentence, start)
    if _ANTECEDENT.search(sentence, 0, start - len(clause)) and _consequence(sentence, start, clause):
        return True  # "if it still fails switch to SGD": the move is what the condition leads to
    head = clause
    if not _opens_with_verb(clause + sentence[start:end]) and _LIST_ITEM_START.search(sentence[:start - len(clause)]):
        # a later item of a list: "Try gradient clipping, warm-up or a different optimiser" reads as its head does
        head = wide.split(",")[0]
        if _ANTECEDENT_START.match(head):
            return False
    if _opens_with_verb(head + (sentence[start:end] if head is clause else "")):
        return True
    if _ADVICE_CUE.search(wide + sentence[start:end]):
        return True
    if firm and sentence[firm - 1] == ":" and _COLON_LEAD.search(sentence, 0, firm):
        return True  # "My suggestion: a bigger model", "Options: a smaller lr, clipping or ..."
    if _FIRST_PERSON_OR_NONE.match(clause) and _SUCCESS.search(sentence, end):
        return True  # a move reported as what made it work: "I lowered the lr and now it trains", "Clipping fixed it"
    return bool(_OUTCOME_AFTER.match(sentence, start))


_PROPOSAL_BREAK = re.compile(rf"{_CLAUSE_BREAK.pattern}|(?<![\w.`])[(\[]", re.IGNORECASE)  # a parenthesis is an aside


def _clause_prefix(sentence: str, start: int) -> str:
    cut = max((b.end() for b in _PROPOSAL_BREAK.finditer(sentence, 0, start)), default=0)
    return sentence[cut:start]


def _in_antecedent(sentence: str, start: int) -> bool:
    """The match is in the condition of an if/when/before/until clause, not in what the sentence says to do.
    Without a comma the consequence follows the condition's own verb: "if it still fails switch to SGD"."""
    clause = _clause_prefix(sentence, start)
    opened = _ANTECEDENT.search(sentence, 0, start - len(clause))
    started = _ANTECEDENT_START.match(clause)
    if not (opened or started):
        return False
    return not _consequence(sentence, start, clause[started.end():] if started else clause)


def _consequence(sentence: str, start: int, condition: str) -> bool:
    return bool(_OPENS_WITH_VERB.match(sentence, start) and len(condition.split()) >= 2
                and not _CONDITION_TAIL.search(condition))


# The last words of a condition whose verb is still to come: "if you ever", "when you want to", "before we"
_CONDITION_TAIL = re.compile(r"\b(?:you|we|i|they|one|ever|still|also|just|later|then|first|want to|need to|have to|decide to"
                             r"|try to|choose to|to)\s*$", re.IGNORECASE)


def _opens_with_verb(text: str) -> bool:
    rest = text[_LEAD_IN.match(text).end():]
    return bool(_OPENS_WITH_VERB.match(rest))


# The match as what is taken away: "you can drop the clip_grad_norm_ workaround and the lowered learning rate"
# (its object: a few words, perhaps a list, but no second verb that would start a new move)
_REMOVAL = re.compile(rf"\b(?:drop|remove|delete|discard|ditch|revert|undo|roll back|take out|get rid of|no longer need)\W+"
                      rf"(?:(?!(?:and|or|then)\s+{_IMPERATIVE}\b)\w+\W+){{0,8}}(?<!\band )(?<!\bor )(?<!\bthen )$",
                      re.IGNORECASE)
# The rest of a list the match opens: "gradient clipping, warm-up or a different optimiser won't fix it"
_LIST_TAIL = re.compile(r"(?:\s*,\s*[^,.;:!?]{1,40}?){0,4}\s*,?\s+(?:or|and|nor)\s+[^,.;:!?]{1,40}?(?=\s)",
                        re.IGNORECASE)


def _negated_in(sentence: str, start: int, end: int) -> bool:
    sentence = sentence.replace("\n", " ")  # a line break inside a sentence is a space ("would\nnot fix it")
    cut = max((b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, start)), default=0)
    after = _CLAUSE_BREAK.search(sentence, end)
    post = sentence[end:after.start() if after else len(sentence)]
    if _NEG_BEFORE.search(sentence[cut:start]) or _NEG_AFTER.match(post) or _REMOVAL.search(sentence[cut:start]):
        return True
    listed = _LIST_TAIL.match(sentence, end)  # a list's negation comes after its last item
    return bool(listed and _NEG_AFTER.match(sentence[listed.end():])) or _in_negated_list(sentence, start)


_LIST_ITEM_START = re.compile(r",\s*(?:(?:or|and|nor)\s+)?$", re.IGNORECASE)
# the last item, after "or": "does not need clipping, warm-up or a new optimiser"
_LAST_ITEM_START = re.compile(r",[^,.;:!?]{1,40}?\s(?:or|and|nor)\s+(?:(?:a|an|the|any|some|more|your)\s+)?$", re.IGNORECASE)
_SENTENCE_BREAK = re.compile(r"[.;:!?]")


def _in_negated_list(sentence: str, start: int) -> bool:
    """The match is a later item of a list whose head is negated: "no need to switch to GroupNorm, lower the lr or
    clip" (the comma that cuts the clause also separates the items)."""
    prefix = sentence[:start]
    if not (_LIST_ITEM_START.search(prefix) or _LAST_ITEM_START.search(prefix)):
        return False
    segments = prefix[max((m.end() for m in _SENTENCE_BREAK.finditer(prefix)), default=0):].split(",")
    for k in range(len(segments) - 2, max(-1, len(segments) - 7), -1):  # the head: the segment before the items
        if len(segments[k + 1]) > 60:
            return False
        if _NEG_BEFORE.search(segments[k]):
            return True
    return False


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
            heading, lead = _heading_and_lead(lines, kinds, i)
            units += _sentences(clean, offsets[i], offsets[j], "\n".join(filter(None, (heading, lead))))
        i = j
    return units


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _heading_and_lead(lines: list[str], kinds: list[str], i: int) -> tuple[str, str]:
    """The section heading above prose line i, and, when line i opens a list item, the line that leads the list
    in ("If you want a smoother curve, any of these would help:")."""
    heading = next((lines[k].strip() for k in range(i, -1, -1) if kinds[k] == "prose" and _HEADING.match(lines[k])), "")
    lead = ""
    if _LIST_ITEM.match(lines[i]):
        for k in range(i - 1, -1, -1):
            if kinds[k] != "prose" or _LIST_ITEM.match(lines[k]) or lines[k][:1].isspace():
                continue  # blank lines, earlier items and their continuation lines
            if lines[k].rstrip().endswith(":") and not _HEADING.match(lines[k]):
                lead = lines[k].strip()
            break
    return heading, lead


def _sentences(clean: str, start: int, end: int, context: str = "") -> list[Unit]:
    cuts = [start] + [start + m.end() for m in _SENTENCE_END.finditer(clean[start:end])] + [end]
    units: list[Unit] = []
    for a, b in itertools.pairwise(cuts):
        a += len(clean[a:b]) - len(clean[a:b].lstrip())
        if a < b:
            units.append(Unit(a, clean[a:b], clean[a:b], False, context, clean[start:end]))
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
