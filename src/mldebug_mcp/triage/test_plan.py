"""Which cheap test splits the leading hypotheses best, and whether the description can split them at all.

Two kinds of test are weighed. A question of the decision tree: each answer establishes an observation
(or none), and a cause stays plausible under an answer unless it contradicts that observation or it
predicts another answer of the same question. A cause's own test: under a single-fault assumption a
positive result keeps the causes that share that test and a negative one keeps the rest.

The value of a test is the share of the leading hypotheses' weight it is expected to rule out: each
cause spreads its weight over the answers it allows, which gives each answer's probability, and each
answer rules out the weight of the causes it leaves implausible. A test that halves the weight scores
0.5, one that cannot rule anything out scores 0. Cost breaks near ties: a look at the log before a
static check before a minute of training before a manual experiment."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the cold triage call reads the snapshot's records (no pydantic, no YAML)
    from .catalogue import Cause
    from .tree import Tree

# How long each kind of test takes a person or an agent, cheapest first.
COSTS = {"look": (0, "seconds: read the log or the console"), "lint": (1, "seconds: static check, runs nothing"),
         "curve": (1, "seconds: reads the logged loss"), "diagnose": (2, "about a minute: runs a few training steps"),
         "manual": (3, "minutes to hours: an experiment by hand")}
COST_PENALTY = 0.1     # per cost step: a test this much more valuable is worth the next cost level
UNKNOWN_ANSWERS = {"unknown"}
# When the description cannot separate the leading hypotheses (see `thin_reason`):
FLAT_RATIO = 1.6       # the front runner weighs less than this many times the third
FEW_WORDS = 12         # fewer content words than this in the prose, and no observation read


@dataclass(frozen=True)
class Candidate:
    """A leading hypothesis as the plan sees it: its cause and its weight among the leading ones."""

    cause: Cause
    weight: float


@dataclass(frozen=True)
class PlannedTest:
    kind: str                     # "question" (a node of the decision tree) or "cause-test"
    ref: str                      # the tree node, or the tool call / cause id of the test
    what: str                     # the question, or the test's description
    how: str                      # how to answer or run it cheaply
    tool_call: str | None
    cost: str
    cost_rank: int                # 0 = cheapest (COSTS)
    value: float                  # expected share of the leading weight ruled out
    confirms: tuple[str, ...]     # causes an outcome points to
    rules_out: tuple[str, ...]    # causes some outcome makes implausible
    answers: tuple[str, ...] = ()  # for a question: the accepted answers

    @property
    def merit(self) -> float:
        """The value, less COST_PENALTY per cost step: near ties go to the cheaper test."""
        return self.value - COST_PENALTY * self.cost_rank


def _normalised(candidates: list[Candidate]) -> list[Candidate]:
    total = sum(c.weight for c in candidates) or 1.0
    return [Candidate(c.cause, c.weight / total) for c in candidates]


def _value(allowed: dict[str, set[str]], weights: dict[str, float], outcomes: list[str]) -> float:
    """Expected weight ruled out, when each cause spreads its weight over the outcomes it allows."""
    probability = {o: 0.0 for o in outcomes}
    for cause, outs in allowed.items():
        for o in outs:
            probability[o] += weights[cause] / len(outs)
    expected = 0.0
    for o in outcomes:
        kept = sum(weights[c] for c, outs in allowed.items() if o in outs)
        expected += probability[o] * (1.0 - kept)
    return expected


def question_tests(tree: Tree, candidates: list[Candidate], known: set[str]) -> list[PlannedTest]:
    weights = {c.cause.id: c.weight for c in candidates}
    tests = []
    for name, node in tree.nodes.items():
        outcomes = [label for label in node.answers if label not in UNKNOWN_ANSWERS]
        observes = {label: node.answers[label].observation for label in outcomes}
        if any(o in known for o in observes.values() if o):
            continue  # already established: asking again tells nothing
        allowed, confirms, rules_out = {}, [], []
        for c in candidates:
            predicted = {label for label, o in observes.items() if o and o in c.cause.signals}
            outs = {label for label, o in observes.items()
                    if not (o and o in c.cause.contradicts) and (not predicted or label in predicted)}
            allowed[c.cause.id] = outs or set(outcomes)  # a cause no answer fits is not ruled out by one
            if predicted:
                confirms.append(c.cause.id)
            if outs and outs != set(outcomes):
                rules_out.append(c.cause.id)
        value = _value(allowed, weights, outcomes)
        if value <= 0:
            continue
        rank, cost = COSTS[_tool_kind(node.tool_call) if node.tool_call else "look"]
        tests.append(PlannedTest("question", name, node.question, node.how, node.tool_call, cost, rank,
                                 round(value, 3), tuple(confirms), tuple(rules_out), tuple(node.answers)))
    return tests


def cause_tests(candidates: list[Candidate], tool_call) -> list[PlannedTest]:
    weights = {c.cause.id: c.weight for c in candidates}
    groups: dict[str, list[Candidate]] = {}
    for c in candidates:
        key = tool_call(c.cause) or c.cause.id  # one tool call tests every cause it is the test of
        groups.setdefault(key, []).append(c)
    tests = []
    for key, members in groups.items():
        ids = {m.cause.id for m in members}
        allowed = {c.cause.id: ({"positive"} if c.cause.id in ids else {"negative"}) for c in candidates}
        value = _value(allowed, weights, ["positive", "negative"])
        first = members[0].cause
        # A positive result points to the group; a negative one rules the group out.
        rank, cost = COSTS[first.test.tool]
        tests.append(PlannedTest("cause-test", key, first.test.description, first.predicts.if_cause,
                                 tool_call(first), cost, rank, round(value, 3),
                                 tuple(sorted(ids)), tuple(sorted(ids))))
    return tests


def plan(candidates: list[Candidate], tree: Tree, tool_call, known: set[str]) -> list[PlannedTest]:
    """Every test that can split the leading hypotheses, best first (cheaper first among near ties)."""
    leading = _normalised(candidates)
    tests = question_tests(tree, leading, known) + cause_tests(leading, tool_call)
    return sorted(tests, key=lambda t: (-t.merit, t.ref))


def thin_reason(weights: list[float], observations: int, prose_words: int) -> str | None:
    """Why the description cannot separate the leading hypotheses, or None when it can.

    Flat: the front runner weighs less than FLAT_RATIO times the third. Sparse: no observation was read
    or given and the prose has fewer than FEW_WORDS content words. Either one makes ranking a guess."""
    reasons = []
    top = sorted(weights, reverse=True)
    if len(top) >= 3 and top[0] < FLAT_RATIO * top[2]:
        reasons.append(f"the leading weights are flat ({top[0]:.2f}, {top[1]:.2f}, {top[2]:.2f}: the first is "
                       f"under {FLAT_RATIO:g}x the third)")
    if observations == 0 and prose_words < FEW_WORDS:
        reasons.append(f"the report is short ({prose_words} content words) and no observation was read from it")
    return "; ".join(reasons) or None


def _tool_kind(call: str) -> str:
    for kind in ("lint", "curve", "diagnose"):
        if f"mldebug-mcp {kind}" in call:
            return kind
    return "manual"
