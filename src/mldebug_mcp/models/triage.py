"""Triage: ranked hypotheses for a described failure, and steps of the decision tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .base import Model
from .evidence import Quote

Detail = Literal["compact", "full"]
# compact: what an agent needs to reorder and test the hypotheses, a few thousand tokens for limit=10;
# full: adds what each test shows either way, the anti-patterns and the quotes themselves.
FULL_ONLY = ("if_cause", "if_not", "avoid", "evidence")  # Hypothesis fields left out of the compact JSON


@dataclass(kw_only=True)
class Hypothesis(Model):
    """One candidate root cause, ranked by how well it explains what was described."""

    cause: str
    """Cause id in the catalogue, e.g. 'double-softmax'."""
    title: str
    category: str
    """data, loss, procedure, architecture, hyperparameters, numerics, environment, evaluation, null, llm, rl or pinn."""
    role: str
    """likely (the front runner), alternative, subtle (leakage, sample size, confound, seed variance) or null (noise, or another change)."""
    prior: float
    """Base-rate probability before reading the description."""
    weight: float
    """Updated probability after the description, observations and lint, normalised over the whole catalogue."""
    why: str
    """What in the description or the observations points here."""
    test: str
    """The cheapest test that separates this cause from the others (its first sentence in the compact form)."""
    tool_call: str | None
    """The mldebug-mcp call that runs the test, if one does."""
    fix: str
    """What to do once the test confirms it (one line in the compact form)."""
    evidence_ids: list[str]
    """Ids of the practitioner quotes behind the cause or its test; the quote tool prints each (quote key=ID)."""
    if_cause: str | None = None
    """What the test shows if this is the cause; null in the compact form."""
    if_not: str | None = None
    """What the test shows if it is not; null in the compact form."""
    avoid: list[str] = field(default_factory=list)
    """Ids of anti-patterns tempting here (see check_advice); empty in the compact form."""
    evidence: list[Quote] = field(default_factory=list)
    """The quotes of evidence_ids, with attribution; empty in the compact form."""
    source: Literal["tool", "agent", "both"] = "tool"
    """Who put it on the list: the tool's ranking, the caller's candidates, or both."""


@dataclass(kw_only=True)
class PlannedTest(Model):
    """A cheap test and how well it splits the hypotheses on the list."""

    kind: Literal["question", "cause-test"]
    """question: a node of the triage tree (answer it, then pass the answer to triage_step); cause-test: the
    test of one or more listed causes."""
    ref: str
    """The tree node (for triage_step's answers) or the test's tool call."""
    what: str
    """The question, or what the test does."""
    how: str
    """How to answer the question cheaply, or what the test shows if the cause is present."""
    tool_call: str | None
    """The mldebug-mcp call that answers it, if one does."""
    cost: str
    """How long it takes, in words."""
    value: float
    """Expected share of the listed hypotheses' weight it rules out (0.5 = halves it)."""
    confirms: list[str]
    """Causes an outcome of the test points to."""
    rules_out: list[str]
    """Causes some outcome makes implausible."""
    answers: list[str] = field(default_factory=list)
    """For a question: the accepted answers."""


@dataclass(kw_only=True)
class TriageResult(Model):
    """Ranked hypotheses for a described failure, with the test to run next."""

    symptom: str
    """The description as given (its first 200 characters in the compact form)."""
    detail: Detail = "full"
    """compact (the default over MCP): per hypothesis the why, the test and its tool call, a one-line fix and
    evidence ids; full: also what the test shows either way, anti-patterns and the quotes."""
    observations: list[str]
    """Observation keys used: given, read from the text, or from lint."""
    read_from_text: list[str]
    """Observation keys recognised in the description."""
    domains: list[str]
    """Domains recognised in the description (llm, rl, pinn)."""
    lint_codes: list[str]
    """Lint rules that fired on code found in the description."""
    hypotheses: list[Hypothesis]
    """Ordered, most probable first; always includes a subtle hypothesis and a null one."""
    next_test: str
    """The single most discriminating cheap test to run now."""
    test_plan: list[PlannedTest] = field(default_factory=list)
    """The few cheap tests that split the listed hypotheses best, best first (cheaper first among near ties)."""
    thin: str | None = None
    """Set when the description cannot separate the hypotheses (why, in words): answer `questions` first."""
    questions: list[PlannedTest] = field(default_factory=list)
    """When thin: the tree's questions that split the hypotheses best, to answer before ranking."""
    catalogue: str | None = None
    """With include_catalogue: every cause the tool knows, one line each (id | title | how it shows), so the
    reader can pick causes the ranking missed."""

    def to_json_data(self) -> object:
        """As Model's; the compact form leaves out the fields it does not fill (they are optional in the schema)."""
        data = super().to_json_data()
        if self.detail == "compact":
            for hypothesis in data["hypotheses"]:
                for name in FULL_ONLY:
                    hypothesis.pop(name, None)
        return data


@dataclass(kw_only=True)
class TreeAnswer(Model):
    label: str
    """What to pass as the answer, e.g. 'yes'."""
    meaning: str


@dataclass(kw_only=True)
class TriageStep(Model):
    """One step of the decision tree: the next question, or a leaf with its hypotheses."""

    path: list[str]
    """Node ids answered so far, in order, as 'node=answer'."""
    ignored: list[str]
    """Answers given for nodes this path never reaches: they do not move along the tree, but their observations
    count."""
    node: str
    """Id of the current node or leaf."""
    done: bool
    """True at a leaf."""
    question: str | None
    """The question to answer next (null at a leaf)."""
    how_to_answer: str | None
    """The cheapest way to find the answer."""
    tool_call: str | None
    """The mldebug-mcp call that answers it, if one does."""
    answers: list[TreeAnswer]
    """Accepted answers (empty at a leaf)."""
    leaf_title: str | None = None
    leaf_advice: str | None = None
    """What the leaf means and what to do."""
    observations: list[str]
    """Observation keys the answers so far establish."""
    triage: TriageResult | None = None
    """Ranked hypotheses: at a leaf, and before one when a symptom is given (reranked by the answers so far)."""
