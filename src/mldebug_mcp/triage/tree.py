"""The triage decision tree (data/tree.yaml): loading, checking, a stateless walk, and its rendering
for the playbook."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict, ValidationError

from .. import _yaml as yaml
from ..errors import ContentError, UsageError
from ..models.observations import OBSERVATIONS
from .catalogue import describe


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Answer(_Strict):
    next: str
    meaning: str
    observation: str | None = None


class Node(_Strict):
    question: str
    how: str
    tool_call: str | None = None
    answers: dict[str, Answer]


class Leaf(_Strict):
    title: str
    advice: str


class Tree(_Strict):
    start: str
    nodes: dict[str, Node]
    leaves: dict[str, Leaf]


@dataclass
class Walk:
    path: list[tuple[str, str]]   # (node, answer) pairs taken
    position: str                 # node or leaf reached
    observations: list[str]
    ignored: list[str]


def parse_tree(text: str) -> Tree:
    try:
        tree = Tree(**yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError, TypeError) as exc:
        raise ContentError(f"triage tree.yaml is malformed: {describe(exc)}") from exc
    return tree


@cache
def load_tree() -> Tree:
    return parse_tree((resources.files("mldebug_mcp.triage") / "data" / "tree.yaml").read_text(encoding="utf-8"))


def tree_problems(tree: Tree) -> list[str]:
    """Dangling links, unknown observations, unreachable nodes or leaves, and cycles."""
    problems = []
    targets = set(tree.nodes) | set(tree.leaves)
    if tree.start not in tree.nodes:
        problems.append(f"start {tree.start!r} is not a node")
    for name, node in tree.nodes.items():
        for label, answer in node.answers.items():
            if answer.next not in targets:
                problems.append(f"{name}={label} leads to unknown {answer.next!r}")
            if answer.observation is not None and answer.observation not in OBSERVATIONS:
                problems.append(f"{name}={label} sets unknown observation {answer.observation!r}")
    reached, stack, order = set(), [tree.start], {}
    while stack:
        name = stack.pop()
        if name in reached or name not in tree.nodes:
            reached.add(name)
            continue
        reached.add(name)
        order[name] = len(order)
        stack.extend(a.next for a in tree.nodes[name].answers.values())
    problems += [f"{t} is never reached" for t in sorted(targets - reached)]
    problems += _cycles(tree)
    return problems


def _cycles(tree: Tree) -> list[str]:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = finished

    def visit(name: str) -> list[str]:
        if name not in tree.nodes or state.get(name) == 2:
            return []
        if state.get(name) == 1:
            return [f"cycle through {name}"]
        state[name] = 1
        found = [p for a in tree.nodes[name].answers.values() for p in visit(a.next)]
        state[name] = 2
        return found

    return visit(tree.start)


def walk(tree: Tree, answers: dict[str, str]) -> Walk:
    """Follow the answers from the start until a node without an answer, or a leaf."""
    path, observations, position = [], [], tree.start
    while position in tree.nodes:
        if position not in answers:
            break
        label, chosen = _chosen(tree, position, answers[position])
        path.append((position, label))
        if chosen.observation:
            observations.append(chosen.observation)
        position = chosen.next
    ignored = sorted(set(answers) - {name for name, _ in path})
    unknown = [name for name in ignored if name not in tree.nodes]
    if unknown:
        raise UsageError(f"unknown tree node(s) {', '.join(unknown)}; the nodes are: {', '.join(tree.nodes)}")
    # An answer off the path does not move along the tree, but it is still a fact about the run: the thin
    # report's questions are the nodes that split the hypotheses best, not the next ones from the start.
    for name in ignored:
        _, chosen = _chosen(tree, name, answers[name])
        if chosen.observation:
            observations.append(chosen.observation)
    return Walk(path, position, observations, ignored)


def _chosen(tree: Tree, name: str, answer: str):
    """The answer's label and its branch at node `name`, or UsageError naming the accepted answers."""
    node = tree.nodes[name]
    label = answer.strip().lower()
    if label not in node.answers:
        raise UsageError(f"answer {answer!r} to {name!r} is not one of: {', '.join(node.answers)} "
                         f"(question: {node.question})")
    return label, node.answers[label]


def render_tree(tree: Tree) -> str:
    """The tree as an indented text outline, in walking order, for the playbook."""
    lines = ["START"]
    seen: set[str] = set()

    def emit(name: str, depth: int) -> None:
        if name in seen or name not in tree.nodes:
            return
        seen.add(name)
        node = tree.nodes[name]
        pad = "   " * depth
        lines.append(f"{pad}[{name}] {node.question}")
        if node.tool_call:
            lines.append(f"{pad}   check: {node.tool_call}")
        onward = []
        for label, answer in node.answers.items():
            sets = f"  (observes {answer.observation})" if answer.observation else ""
            if answer.next in tree.leaves:
                leaf = tree.leaves[answer.next]
                lines.append(f"{pad}   {label}: {answer.meaning} -> {leaf.title}{sets}")
            else:
                lines.append(f"{pad}   {label}: {answer.meaning} -> [{answer.next}]{sets}")
                onward.append(answer.next)
        for target in dict.fromkeys(onward):
            emit(target, depth if target != name else depth + 1)

    emit(tree.start, 0)
    return "\n".join(lines)


def render_leaves(tree: Tree) -> str:
    """A markdown table of the leaves: what each means and what to do."""
    rows = ["| Leaf | What to do |", "|---|---|"]
    rows += [f"| {leaf.title} | {leaf.advice} |" for leaf in tree.leaves.values()]
    return "\n".join(rows)
