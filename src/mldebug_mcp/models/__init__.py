"""Pydantic result models shared by the CLI and the MCP server."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, WithJsonSchema


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
        from ..render.diagnose import report_text

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


# --- loss curves ---

# NaN and Inf are findings here, so JSON spells them "NaN"/"Infinity" instead of null, and the schema says
# so: MCP clients validate structured content against it, and bare NaN is not JSON.
_KEEP_NON_FINITE = {"ser_json_inf_nan": "strings"}
LogValue = Annotated[float, WithJsonSchema({"anyOf": [
    {"type": "number"}, {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]}]})]


class CurveSeries(BaseModel):
    """One series of a loss log, summarised."""

    model_config = _KEEP_NON_FINITE

    name: str = Field(description="Series name: CSV column, JSON field or TensorBoard tag.")
    points: int = Field(description="Points after sorting by step and keeping the last value of a repeated step.")
    first_step: int | float | None = Field(description="First step logged; null for an empty series.")
    last_step: int | float | None = Field(description="Last step logged; null for an empty series.")
    first: LogValue | None = Field(description="Value at the first step (NaN and Inf kept).")
    last: LogValue | None = Field(description="Value at the last step (NaN and Inf kept).")
    min: float | None = Field(description="Smallest finite value; null when none is finite.")
    non_finite: int = Field(description="Number of NaN or Inf values.")


class CurveFinding(BaseModel):
    """Why an observation key was given: where, the numbers measured, and what it usually means."""

    model_config = _KEEP_NON_FINITE

    observation: str = Field(description="Observation key from the shared vocabulary, e.g. 'nan' or 'plateau'.")
    step: int | float | None = Field(description="Step where it starts or turns; null when it is about the whole run.")
    summary: str = Field(description="One sentence with the measured numbers.")
    meaning: str = Field(description="One plain sentence on what this usually means and what to check.")
    values: dict[str, int | LogValue] = Field(default_factory=dict, description="The numbers measured, by name.")


class CurveSpike(BaseModel):
    """One loss spike: a sudden jump above the local median, and how (or whether) it came back."""

    model_config = _KEEP_NON_FINITE

    step: int | float = Field(description="First step above the spike threshold.")
    peak_step: int | float = Field(description="Step of the highest value of the spike.")
    peak: LogValue = Field(description="Highest loss value of the spike.")
    local_median: float = Field(description="Median of the points just before the spike: the level it jumped from.")
    height: float | None = Field(description="peak / local_median; null when the local median is not positive.")
    recovery_steps: int | float | None = Field(
        description="Steps from the spike until the loss is back within the noise band; null if it never is."
    )
    recovery_points: int | None = Field(description="The same in logged points; null if it never comes back.")
    kind: str | None = Field(
        description="spike_fast_recovery, spike_slow_recovery or spike_no_recovery; null when the log ends "
        "too soon after the spike to tell."
    )


class CurveReport(BaseModel):
    """What analyze_curve returns: the series read, the loss picked, and what its shape shows."""

    model_config = _KEEP_NON_FINITE

    source: str = Field(description="The log that was read (file or folder).")
    format: str = Field(description="csv, tsv, jsonl, json, trainer_state or tfevents.")
    series: list[CurveSeries] = Field(description="Every numeric series found, summarised.")
    loss_series: str | None = Field(description="The series analysed as the training loss.")
    val_series: str | None = Field(default=None, description="The series used as validation loss; null if none.")
    num_classes: int | None = Field(default=None, description="Classes given for the chance level ln k; null if not.")
    observations: list[str] = Field(
        default_factory=list, description="Observation keys found, most important first; empty if too short to tell."
    )
    findings: list[CurveFinding] = Field(default_factory=list, description="One per observation, in the same order.")
    spikes: list[CurveSpike] = Field(default_factory=list, description="Every spike found in the training loss.")
    notes: list[str] = Field(
        default_factory=list, description="What the reader skipped or could not decide (cut records, short logs)."
    )
    plot: str | None = Field(default=None, description="Path of the PNG written, or null.")

    def __str__(self) -> str:
        from ..render.curves import curve_text

        return curve_text(self)


# --- advice ---


class AdviceFinding(BaseModel):
    """One anti-pattern found in a proposed fix, with why it misleads and what to do instead."""

    id: str = Field(description="Anti-pattern id, e.g. 'tune-before-correct'.")
    title: str = Field(description="The move, named in one line.")
    why: str = Field(description="Why the move quiets the symptom and leaves the bug in place.")
    instead: str = Field(description="What to do instead.")
    evidence: list[str] = Field(description="Excerpt ids behind the judgement (render them with the quote tool).")
    matched: str = Field(description="The text that triggered it, whitespace collapsed, at most 120 characters.")
    line: int = Field(description="1-based line of the first occurrence in the checked text.")
    further_occurrences: int = Field(
        default=0, description="How many more sentences or code lines contain the same anti-pattern."
    )


class AdviceReport(BaseModel):
    """What `check_advice` returns: the anti-patterns a draft answer or proposed fix contains."""

    text_chars: int = Field(description="Length of the checked text in characters.")
    findings: list[AdviceFinding] = Field(description="One per anti-pattern found, in order of first occurrence.")
    clean: bool = Field(description="True when no anti-pattern was found.")
