"""Pydantic result models shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Source(BaseModel):
    """A primary source the evidence cites."""

    key: str = Field(description="Short id, e.g. 'jones'.")
    author: str
    title: str
    year: str = Field(description="Publication year or range, e.g. '2019' or '2015-'.")
    url: str
    kind: str = Field(description="blog, paper, book, docs, slides, code, tweet, course, wiki or forum.")
    credence: str = Field(description="high, medium or low: how much weight its advice deserves.")
    credence_reason: str
    licence: str
    verified_against: str | None = Field(
        default=None, description="Stored copy the excerpts were checked against; null if none exists."
    )


class Excerpt(BaseModel):
    """A verbatim excerpt of a source, as stored in evidence/excerpts/<source>.md."""

    id: str = Field(description="Stable id '<source>/<slug>'.")
    source: str
    locator: str = Field(description="Where in the original: section heading and paragraph.")
    checked: str = Field(description="The stored copy the text was compared with.")
    text: str
    path: str = Field(description="Excerpt file, relative to the content root.")
    line: int = Field(description="Line of the excerpt's heading in its file.")


class Quote(BaseModel):
    """An excerpt with its attribution and the claims it supports: what `quote` returns."""

    id: str
    source: str
    author: str
    title: str
    year: str
    url: str
    locator: str
    text: str
    claims: list[str] = Field(default_factory=list, description="Titles of the evidence-map claims it supports.")


class ClaimMatch(BaseModel):
    """A claim of the evidence map with the quotes that support it."""

    title: str
    text: str
    credence: float | None = None
    credence_reason: str | None = None
    score: float = Field(description="Match score against the query, 0 to 1.")
    quotes: list[Quote]


class Problem(BaseModel):
    """One defect found by `audit`: printed as `path:line: message`."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class QuoteResult(BaseModel):
    """What the `quote` tool returns: quotes for a key or search, or claims with their quotes."""

    query: str = Field(description="The lookup that was run, e.g. 'key=jones' or 'search=overfit'.")
    quotes: list[Quote] = Field(default_factory=list)
    claims: list[ClaimMatch] = Field(default_factory=list)


class SourceSummary(BaseModel):
    key: str
    author: str
    title: str
    year: str
    url: str
    credence: str
    excerpts: int = Field(description="Number of verified excerpts; 0 means cited for claims only.")


class SourceList(BaseModel):
    sources: list[SourceSummary]


class ReferenceSection(BaseModel):
    """One section of the skill, the playbook or a reference sheet."""

    document: str
    section: str | None = Field(description="Section title; null when the outline was asked for.")
    text: str = Field(description="Markdown of the section, or the document's introduction.")
    sections: list[str] = Field(description="Titles of the document's sections, to ask for next.")
    documents: list[str] = Field(description="Every document name read_reference accepts.")


class Finding(BaseModel):
    """One lint finding, as printed by `lint` and returned by the MCP tool."""

    code: str = Field(description="Rule code, e.g. MLD001.")
    name: str = Field(description="Rule name in kebab-case.")
    path: str
    line: int = Field(description="1-based line of the finding.")
    col: int = Field(description="1-based column.")
    end_line: int
    end_col: int
    severity: str = Field(description="error, warning or info.")
    message: str
    why: str
    fix: str
    evidence: str = Field(description="Excerpt id or source key behind the rule (see `quote`).")


class RuleInfo(BaseModel):
    """A lint rule's documentation, for `rules`, `explain` and the explain_rule tool."""

    code: str
    name: str
    category: str
    severity: str
    message: str
    why: str
    fix: str
    evidence: str
    bad: str = Field(description="Code that triggers the rule.")
    good: str = Field(description="The corrected code, which passes.")


class LintReport(BaseModel):
    """What the lint tool returns."""

    findings: list[Finding]
    files: int = Field(description="Number of files checked (1 for source text).")
    counts: dict[str, int] = Field(description="Findings per rule code.")


class DiagnosticCheck(BaseModel):
    """The verdict of one runtime check, with the evidence behind it."""

    id: str = Field(description="Stable check id, e.g. 'overfit_one_batch'.")
    title: str
    status: str = Field(description="pass, warn, fail or skipped.")
    summary: str = Field(description="One-sentence verdict with the measured value.")
    measured: dict[str, Any] = Field(default_factory=dict, description="What was measured.")
    expected: dict[str, Any] = Field(default_factory=dict, description="What a healthy setup gives.")
    meaning: str = Field(default="", description="What the result says about the training setup.")
    next_test: str = Field(default="", description="The next cheapest test to run.")
    quotes: list[str] = Field(default_factory=list, description="Excerpt ids behind the check (see the quote tool).")
    details: list[str] = Field(default_factory=list)
    series: dict[str, Any] = Field(default_factory=dict, description="Curves and per-layer values (for plots).")
    error: dict[str, Any] | None = Field(default=None, description="User-code exception raised under the check.")
    seconds: float = 0.0


class DiagnosticReport(BaseModel):
    """What `diagnose` returns: one verdict per check and an overall status."""

    target: str = Field(description="The debug spec that was diagnosed, or '<in-process>'.")
    status: str = Field(description="fail if any check failed, else warn if any warned, else pass.")
    checks: list[DiagnosticCheck]
    environment: dict[str, Any] = Field(default_factory=dict, description="torch and python versions, device, seed.")
    setup: dict[str, Any] = Field(default_factory=dict, description="Task, model class, parameter count.")
    seconds: float = 0.0
    plots: list[str] = Field(default_factory=list, description="PNG files written with --plot.")

    def counts(self) -> dict[str, int]:
        tally: dict[str, int] = {}
        for check in self.checks:
            tally[check.status] = tally.get(check.status, 0) + 1
        return tally

    def __str__(self) -> str:
        from .diagnostics.render import report_text

        return report_text(self)


# --- triage ---


class Hypothesis(BaseModel):
    """One candidate root cause, ranked by how well it explains what was described."""

    cause: str = Field(description="Cause id in the catalogue, e.g. 'double-softmax'.")
    title: str
    category: str = Field(description="data, loss, procedure, architecture, hyperparameters, numerics, "
                                      "environment, evaluation, null, llm, rl or pinn.")
    role: str = Field(description="likely (the front runner), alternative, subtle (leakage, sample size, "
                                  "confound, seed variance) or null (noise, or another change).")
    prior: float = Field(description="Base-rate probability before reading the description.")
    weight: float = Field(description="Updated probability after the description, observations and lint, "
                                      "normalised over the whole catalogue.")
    why: str = Field(description="What in the description or the observations points here.")
    test: str = Field(description="The cheapest test that separates this cause from the others.")
    tool_call: str | None = Field(description="The mldebug-mcp call that runs the test, if one does.")
    if_cause: str = Field(description="What the test shows if this is the cause.")
    if_not: str = Field(description="What the test shows if it is not.")
    fix: str = Field(description="What to do once the test confirms it.")
    avoid: list[str] = Field(description="Ids of anti-patterns tempting here (see check_advice).")
    evidence: list[Quote] = Field(description="Practitioner quotes behind the cause or its test.")


class TriageResult(BaseModel):
    """Ranked hypotheses for a described failure, with the test to run next."""

    symptom: str
    observations: list[str] = Field(description="Observation keys used: given, read from the text, or from lint.")
    read_from_text: list[str] = Field(description="Observation keys recognised in the description.")
    domains: list[str] = Field(description="Domains recognised in the description (llm, rl, pinn).")
    lint_codes: list[str] = Field(description="Lint rules that fired on code found in the description.")
    hypotheses: list[Hypothesis] = Field(description="Ordered, most probable first; always includes a "
                                                     "subtle hypothesis and a null one.")
    next_test: str = Field(description="The single most discriminating cheap test to run now.")


class TreeAnswer(BaseModel):
    label: str = Field(description="What to pass as the answer, e.g. 'yes'.")
    meaning: str


class TriageStep(BaseModel):
    """One step of the decision tree: the next question, or a leaf with its hypotheses."""

    path: list[str] = Field(description="Node ids answered so far, in order, as 'node=answer'.")
    ignored: list[str] = Field(description="Answers given for nodes this path never reaches.")
    node: str = Field(description="Id of the current node or leaf.")
    done: bool = Field(description="True at a leaf.")
    question: str | None = Field(description="The question to answer next (null at a leaf).")
    how_to_answer: str | None = Field(description="The cheapest way to find the answer.")
    tool_call: str | None = Field(description="The mldebug-mcp call that answers it, if one does.")
    answers: list[TreeAnswer] = Field(description="Accepted answers (empty at a leaf).")
    leaf_title: str | None = None
    leaf_advice: str | None = Field(default=None, description="What the leaf means and what to do.")
    observations: list[str] = Field(description="Observation keys the answers so far establish.")
    triage: TriageResult | None = Field(default=None, description="Ranked hypotheses at a leaf.")
