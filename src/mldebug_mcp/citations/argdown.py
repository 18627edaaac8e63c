"""A parser for the subset of Argdown the evidence map uses.

Supported (standard Argdown): YAML frontmatter between ``===`` lines; ``//`` line
comments and ``/* */`` block comments; ``#`` headings; statements ``[Title]: text``
and references ``[Title]``; arguments ``<Title>: text`` and references ``<Title>``;
``#tags``; inline YAML data ``{key: value}`` at the end of a definition or on its own
indented line below it; premise-conclusion structures ``(1) ...`` with ``----``
inference lines; indented relations ``+ - +> -> <+ <- ><`` below a statement or
argument, nested by indentation.

Relation semantics follow Argdown: below ``[A]``, ``+ <B>`` means B supports A,
``+> <B>`` means A supports B, ``- <B>`` means B attacks A, ``-> <B>`` means A attacks
B, ``>< [B]`` means A and B contradict.  As in the reference implementation, a
support between an argument and its own conclusion, or from a premise to its own
argument, is implied by the premise-conclusion structure and not listed twice.

Anything else raises ArgdownSyntaxError with its 1-based line number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import _yaml as yaml
from ..errors import ArgdownSyntaxError

_TAG = re.compile(r"(?<![\w#])#(\([^)]*\)|[A-Za-z0-9][\w-]*)")
_DEFINITION = re.compile(r"^(\[(?P<st>[^\[\]]+)\]|<(?P<arg>[^<>]+)>)(?P<colon>:)?(?P<rest>.*)$")
_RELATION = re.compile(r"^(?P<op>\+>|->|<\+|<-|><|\+|-)\s+(?P<target>.*)$")
_PCS_LINE = re.compile(r"^\((?P<n>\d+)\)\s*(?P<body>.*)$")
_INFERENCE = re.compile(r"^-{2,}\s*$")
_DATA = re.compile(r"^(?P<text>.*?)\s*(?P<data>\{.*\})\s*$")

SUPPORT, ATTACK, CONTRADICTORY = "support", "attack", "contradictory"


@dataclass
class Statement:
    title: str
    text: str = ""
    tags: list[str] = field(default_factory=list)
    data: dict = field(default_factory=dict)
    line: int = 0


@dataclass
class Argument(Statement):
    """An argument has a statement's fields plus its premise-conclusion structure, if any."""

    premises: list[str] = field(default_factory=list)
    conclusion: str | None = None


@dataclass(frozen=True)
class Relation:
    source: str
    source_kind: str  # "statement" | "argument"
    target: str
    target_kind: str
    kind: str  # support | attack | contradictory
    line: int = field(default=0, compare=False)


@dataclass
class ArgdownMap:
    frontmatter: dict = field(default_factory=dict)
    statements: dict[str, Statement] = field(default_factory=dict)
    arguments: dict[str, Argument] = field(default_factory=dict)
    relations: list[Relation] = field(default_factory=list)

    def relation_set(self) -> set[tuple[str, str, str]]:
        return {(r.source, r.target, r.kind) for r in self.relations}


@dataclass
class _Node:
    kind: str  # statement | argument
    title: str


def parse_argdown(text: str, path: str = "argdown") -> ArgdownMap:
    """Parse Argdown text into statements, arguments and relations; `path` names it in errors."""
    return _Parser(text, path).parse()


class _Parser:
    def __init__(self, text: str, path: str) -> None:
        self.path = path
        self.lines = text.splitlines()
        self.map = ArgdownMap()
        self.untitled = 0
        # (indent, node) stack for nested relations; the top-level node has indent -1.
        self.stack: list[tuple[int, _Node]] = []
        self.last_argument: str | None = None
        self.pcs: Argument | None = None
        self.pcs_expect = 1
        self.pcs_after_inference = False
        self.pcs_line = 0
        self.last_text_target: Statement | Argument | None = None

    def error(self, number: int, message: str) -> ArgdownSyntaxError:
        return ArgdownSyntaxError(message, self.path, number)

    def parse(self) -> ArgdownMap:
        start = self._frontmatter()
        in_block_comment = False
        for index in range(start, len(self.lines)):
            number = index + 1
            raw = self.lines[index]
            if in_block_comment:
                if "*/" in raw:
                    in_block_comment = False
                    raw = raw.split("*/", 1)[1]
                    if not raw.strip():
                        continue
                else:
                    continue
            if "/*" in raw and not raw.lstrip().startswith("//"):
                before, after = raw.split("/*", 1)
                if "*/" in after:
                    raw = before + after.split("*/", 1)[1]
                else:
                    in_block_comment = True
                    raw = before
                    if not raw.strip():
                        continue
            stripped = raw.strip()
            if stripped.startswith("//"):
                continue
            if not stripped:
                self._blank()
                continue
            indent = len(raw) - len(raw.lstrip(" \t"))
            self._line(number, indent, stripped)
        if in_block_comment:
            raise self.error(len(self.lines), "unterminated /* block comment")
        self._close_pcs(len(self.lines))
        self._drop_implied_supports()
        return self.map

    # -- structure -------------------------------------------------------------------

    def _frontmatter(self) -> int:
        first = next((i for i, line in enumerate(self.lines) if line.strip()), None)
        if first is None or self.lines[first].strip() != "===":
            return 0
        for end in range(first + 1, len(self.lines)):
            if self.lines[end].strip() == "===":
                block = "\n".join(self.lines[first + 1 : end])
                try:
                    data = yaml.safe_load(block) or {}
                except yaml.YAMLError as exc:
                    raise self.error(first + 1, f"invalid YAML in frontmatter: {exc}") from exc
                if not isinstance(data, dict):
                    raise self.error(first + 1, "frontmatter must be a YAML mapping")
                self.map.frontmatter = data
                return end + 1
        raise self.error(first + 1, "frontmatter opened with '===' is never closed")

    def _blank(self) -> None:
        self.last_text_target = None

    def _line(self, number: int, indent: int, stripped: str) -> None:
        if stripped.startswith("#") and re.match(r"^#+\s", stripped):
            self._close_pcs(number)
            self.stack = []
            self.last_argument = None
            return
        if m := _PCS_LINE.match(stripped):
            self._pcs_member(number, int(m.group("n")), m.group("body"))
            return
        if _INFERENCE.match(stripped) and self.pcs is not None:
            self.pcs_after_inference = True
            self.last_text_target = None
            return
        if stripped.startswith("{") and stripped.endswith("}") and self.last_text_target is not None:
            self.last_text_target.data.update(self._data(number, stripped))
            return
        if m := _RELATION.match(stripped):
            if indent == 0:
                raise self.error(number, f"relation {stripped[:30]!r} must be indented below a statement or argument")
            self._relation(number, indent, m.group("op"), m.group("target"))
            return
        if m := _DEFINITION.match(stripped):
            if indent == 0:
                self._close_pcs(number)
            node = self._define(number, m)
            if indent == 0:
                self.stack = [(-1, node)]
            return
        if stripped[0] in "[<" :
            raise self.error(number, f"unclosed title in {stripped[:40]!r}: close it with ']' or '>'")
        if self.last_text_target is not None:
            text, tags, data = self._split(number, stripped)
            self.last_text_target.text = (self.last_text_target.text + " " + text).strip()
            self._add_tags(self.last_text_target, tags)
            self.last_text_target.data.update(data)
            return
        raise self.error(
            number,
            f"cannot read {stripped[:40]!r}: expected a statement [Title]: text, an argument <Title>: text, "
            "a numbered premise (1) ..., or an indented relation",
        )

    # -- elements --------------------------------------------------------------------

    def _split(self, number: int, body: str) -> tuple[str, list[str], dict]:
        data: dict = {}
        if m := _DATA.match(body):
            body, data = m.group("text"), self._data(number, m.group("data"))
        tags = [t[1:-1] if t.startswith("(") else t for t in _TAG.findall(body)]
        return body.strip(), tags, data

    def _data(self, number: int, block: str) -> dict:
        try:
            data = yaml.safe_load(block)
        except yaml.YAMLError as exc:
            raise self.error(number, f"invalid YAML data {block[:40]!r}: {exc.__class__.__name__}") from exc
        if not isinstance(data, dict):
            raise self.error(number, f"data {block[:40]!r} must be a YAML mapping such as {{key: value}}")
        return data

    def _add_tags(self, element: Statement | Argument, tags: list[str]) -> None:
        for tag in tags:
            if tag not in element.tags:
                element.tags.append(tag)

    def _define(self, number: int, m: re.Match) -> _Node:
        title = (m.group("st") or m.group("arg")).strip()
        if not title:
            raise self.error(number, "empty title")
        rest = m.group("rest")
        if m.group("colon") is None and rest.strip() and not rest.strip().startswith(("{", "#")):
            raise self.error(number, f"text after {m.group(1)} needs a colon: {m.group(1)}: text")
        text, tags, data = self._split(number, rest)
        if m.group("st") is not None:
            element: Statement | Argument = self._statement(title, number)
            node = _Node("statement", title)
        else:
            element = self._argument(title, number)
            node = _Node("argument", title)
            self.last_argument = title
        if text and not element.text:
            element.text = text
        self._add_tags(element, tags)
        element.data.update(data)
        self.last_text_target = element
        return node

    def _statement(self, title: str, number: int) -> Statement:
        if title not in self.map.statements:
            self.map.statements[title] = Statement(title=title, line=number)
        return self.map.statements[title]

    def _argument(self, title: str, number: int) -> Argument:
        if title not in self.map.arguments:
            self.map.arguments[title] = Argument(title=title, line=number)
        return self.map.arguments[title]

    def _relation(self, number: int, indent: int, op: str, target_text: str) -> None:
        while self.stack and self.stack[-1][0] >= indent:
            self.stack.pop()
        if not self.stack:
            raise self.error(number, "relation has no statement or argument above it to attach to")
        parent = self.stack[-1][1]
        m = _DEFINITION.match(target_text.strip())
        if not m:
            raise self.error(number, f"relation target {target_text[:40]!r} must be [Statement] or <Argument>")
        node = self._define(number, m)
        if op in ("+", "-"):
            source, target = node, parent
        elif op in ("+>", "->"):
            source, target = parent, node
        elif op in ("<+", "<-"):
            source, target = node, parent
        else:
            source, target = parent, node
        kind = {"+": SUPPORT, "+>": SUPPORT, "<+": SUPPORT, "-": ATTACK, "->": ATTACK, "<-": ATTACK}.get(op, CONTRADICTORY)
        relation = Relation(source.title, source.kind, target.title, target.kind, kind, number)
        if relation not in self.map.relations:
            self.map.relations.append(relation)
        self.stack.append((indent, node))

    # -- premise-conclusion structures ----------------------------------------------

    def _pcs_member(self, number: int, n: int, body: str) -> None:
        if self.pcs is None:
            if self.last_argument is None:
                raise self.error(number, "premise-conclusion structure without an <Argument> title line above it")
            self.pcs = self.map.arguments[self.last_argument]
            if self.pcs.premises or self.pcs.conclusion:
                raise self.error(number, f"argument <{self.pcs.title}> already has a premise-conclusion structure")
            self.pcs_expect, self.pcs_after_inference, self.pcs_line = 1, False, number
        if n != self.pcs_expect:
            raise self.error(number, f"premise numbered ({n}) where ({self.pcs_expect}) was expected")
        self.pcs_expect += 1
        if m := _DEFINITION.match(body.strip()):
            if m.group("arg"):
                raise self.error(number, "a premise or conclusion must be a statement, not an <argument>")
            node = self._define(number, m)
            title = node.title
        else:
            text, tags, data = self._split(number, body)
            if not text:
                raise self.error(number, f"({n}) has no statement")
            self.untitled += 1
            title = f"Untitled {self.untitled}"
            statement = self._statement(title, number)
            statement.text, statement.tags, statement.data = text, tags, data
            self.last_text_target = statement
        if self.pcs_after_inference:
            if self.pcs.conclusion is not None:
                self.pcs.premises.append(self.pcs.conclusion)  # intermediary conclusion
            self.pcs.conclusion = title
            self.pcs_after_inference = False
        else:
            if self.pcs.conclusion is not None:
                self.pcs.premises.append(self.pcs.conclusion)
                self.pcs.conclusion = None
            self.pcs.premises.append(title)

    def _close_pcs(self, number: int) -> None:
        if self.pcs is None:
            return
        if self.pcs.conclusion is None:
            raise self.error(
                self.pcs_line, f"argument <{self.pcs.title}> has premises but no '----' line and conclusion"
            )
        self.pcs = None
        self.last_argument = None

    def _drop_implied_supports(self) -> None:
        kept = []
        for r in self.map.relations:
            if r.kind == SUPPORT and r.source_kind == "argument" and r.target_kind == "statement":
                arg = self.map.arguments[r.source]
                if arg.conclusion == r.target:
                    continue
            if r.kind == SUPPORT and r.source_kind == "statement" and r.target_kind == "argument":
                arg = self.map.arguments[r.target]
                if r.source in arg.premises:
                    continue
            kept.append(r)
        self.map.relations = kept
