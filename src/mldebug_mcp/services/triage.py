"""Triage: read a description, lint any code in it, rank the catalogue, walk the tree. Shared by the CLI,
the MCP server and the Python API; the pure work happens in triage/.

A triage call reads the catalogue, the tree and the index from the snapshot (triage/snapshot.py) and the
quotes from their own file beside it, both kept on disk between processes: with both warm a call imports
neither pydantic nor YAML. The tree walk and the docs load the validated YAML when they are asked for."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from ..errors import UsageError
from ..models.evidence import Quote
from ..models.observations import OBSERVATIONS, unknown_observations
from ..models.triage import Detail, Hypothesis, PlannedTest, TreeAnswer, TriageResult, TriageStep
from ..triage import ranking, snapshot, test_plan
from ..triage.brief import FIX_CHARS, SYMPTOM_CHARS, TEST_CHARS, one_line
from ..triage.description import Description
from ..triage.signals import read_observations
from ..triage.text import tokens

if TYPE_CHECKING:
    from ..triage.catalogue import Cause
    from ..triage.matcher import CauseIndex

MAX_SYMPTOM_CHARS = 50_000
# Snippets in posts usually omit their imports; the linter resolves names through imports, so the
# conventional aliases are assumed (the snippet's own imports, coming later, still win).
USUAL_IMPORTS = "import numpy as np; import torch; import torch.nn as nn; import torch.nn.functional as F; import torch.optim as optim\n"
DEFAULT_LIMIT = 5
MAX_CANDIDATES = 20
PLAN_SIZE = 3  # tests in the plan, and tree questions asked when the report is thin
DETAILS = ("compact", "full")
QUOTES_PREFIX = "triage-quotes-"


def catalogue_index() -> str:
    """Every cause in one read: id | title | how it shows, by category (the mldebug://causes resource)."""
    return snapshot.bundled().catalogue_text


def triage(symptom: str = "", observations: list[str] | None = None, limit: int = DEFAULT_LIMIT,
           index: CauseIndex | None = None, detail: Detail = "full", include_catalogue: bool = False,
           candidates: list[str] | None = None) -> TriageResult:
    """Ranked hypotheses for a description in the user's words and/or observation keys.

    `detail="compact"` keeps per hypothesis what an agent needs to reorder and test them (the why, the test's
    first sentence and its tool call, a one-line fix, evidence ids) and leaves out the predictions of the
    test, the anti-patterns and the quotes (about a fifth of the size). `index` replaces the bundled matcher
    index (benchmarks use it to hold cases out of the case base). `include_catalogue` adds the compact list of
    every cause, for a reader who ranks the description against all of them. `candidates`: cause ids the caller
    suspects; they join the list with their own weights and the test plan covers them."""
    stated = list(dict.fromkeys(observations or []))
    unknown = unknown_observations(stated)
    if unknown:
        raise UsageError(f"unknown observation(s) {', '.join(unknown)}; use keys from: {', '.join(OBSERVATIONS)}")
    if not symptom.strip() and not stated:
        raise UsageError("describe the problem (symptom text) or give observation keys; "
                         "e.g. symptom='loss stuck at 2.30 from the first epoch'")
    if len(symptom) > MAX_SYMPTOM_CHARS:
        raise UsageError(f"symptom is {len(symptom)} characters; keep it under {MAX_SYMPTOM_CHARS} "
                         "(the description and the relevant code, not whole logs)")
    if not 1 <= limit <= 20:
        raise UsageError("limit must be between 1 and 20")
    if detail not in DETAILS:
        raise UsageError(f"detail must be 'compact' or 'full' (got {detail!r})")
    known_facts = snapshot.bundled()
    catalogue = known_facts.catalogue
    wanted = _known_causes(catalogue, candidates or [])
    description = Description.read(symptom)
    # Fixes already tried describe the person's guesses, not the run: "tried dropout, it overfits" is no gap.
    read = [k for k in read_observations(description.reported) if k not in stated]
    lint_codes = _lint_codes(description)
    domains = ranking.detect_domains(catalogue, description.text)
    scored = ranking.score_causes(catalogue, index or known_facts.index, description, stated, read, lint_codes, domains)
    chosen = ranking.choose(scored, limit)
    picked = {s.cause.id for s in chosen}
    listed = sorted(chosen + [s for s in scored if s.cause.id in wanted and s.cause.id not in picked],
                    key=lambda s: (-s.weight, s.cause.id))
    first_plain = next((s for s in listed if not s.cause.subtle and s.cause.category != "null"), None)
    if detail == "compact":
        hypotheses = [_compact_hypothesis(s, s is first_plain) for s in listed]
    else:
        quotes = _quotes()
        hypotheses = [_hypothesis(s, s is first_plain, quotes) for s in listed]
    for item, hypothesis in zip(listed, hypotheses):
        hypothesis.source = ("both" if item.cause.id in picked else "agent") if item.cause.id in wanted else "tool"
    leading = [test_plan.Candidate(s.cause, s.weight) for s in listed]
    known = set(stated + read)
    ranked = test_plan.plan(leading, known_facts.tree, tool_call, known)
    words = sum(1 for t in tokens(description.told) if not t.startswith("_"))
    thin = test_plan.thin_reason([s.weight for s in chosen if s.cause.category != "null"], len(known), words)
    questions = [t for t in ranked if t.kind == "question"][:PLAN_SIZE] if thin else []
    shown = symptom if detail == "full" or len(symptom) <= SYMPTOM_CHARS else one_line(symptom, SYMPTOM_CHARS)
    return TriageResult(
        symptom=shown, detail=detail, observations=stated + read, read_from_text=read, domains=domains, lint_codes=lint_codes,
        hypotheses=hypotheses, next_test=_next_test(chosen),
        test_plan=[_planned(t, detail) for t in ranked[:PLAN_SIZE]], thin=thin, questions=[_planned(t, detail) for t in questions],
        catalogue=known_facts.catalogue_text if include_catalogue else None,
    )


def triage_step(answers: dict[str, str] | None = None, symptom: str = "") -> TriageStep:
    """One step of the decision tree from the answers so far; at a leaf, the ranked hypotheses."""
    from ..triage.tree import load_tree, walk

    tree = load_tree()
    state = walk(tree, {k: str(v) for k, v in (answers or {}).items()})
    path = [f"{node}={answer}" for node, answer in state.path]
    if state.position in tree.leaves:
        leaf = tree.leaves[state.position]
        observations = list(dict.fromkeys(state.observations))
        result = triage(symptom, observations) if (symptom.strip() or observations) else None
        return TriageStep(path=path, ignored=state.ignored, node=state.position, done=True, question=None,
                          how_to_answer=None, tool_call=None, answers=[], leaf_title=leaf.title,
                          leaf_advice=leaf.advice, observations=observations, triage=result)
    node = tree.nodes[state.position]
    observations = list(dict.fromkeys(state.observations))
    # With a description, the answers so far rerank it at once: the agent that answered the thin report's
    # questions gets its new list without walking the rest of the tree.
    result = triage(symptom, observations) if symptom.strip() else None
    return TriageStep(
        path=path, ignored=state.ignored, node=state.position, done=False, question=node.question,
        how_to_answer=node.how, tool_call=node.tool_call,
        answers=[TreeAnswer(label=label, meaning=a.meaning) for label, a in node.answers.items()],
        observations=observations, triage=result,
    )


def _known_causes(catalogue, ids: list[str]) -> set[str]:
    """The caller's candidate ids, checked: an unknown one is an error that lists the close ones."""
    if len(ids) > MAX_CANDIDATES:
        raise UsageError(f"{len(ids)} candidates; give at most {MAX_CANDIDATES} cause ids")
    for cause_id in ids:
        if cause_id not in catalogue.causes:
            import difflib

            close = difflib.get_close_matches(cause_id, list(catalogue.causes), n=5, cutoff=0.5)
            hint = f"close ids: {', '.join(close)}" if close else "read mldebug://causes for every id"
            raise UsageError(f"unknown cause id {cause_id!r} in candidates; {hint}")
    return set(ids)


def _planned(test: test_plan.PlannedTest, detail: Detail) -> PlannedTest:
    what, how = test.what, test.how
    if detail == "compact":
        what, how = one_line(what, TEST_CHARS), one_line(how, TEST_CHARS)
    return PlannedTest(kind=test.kind, ref=test.ref, what=what, how=how, tool_call=test.tool_call,
                       cost=test.cost, value=test.value, confirms=list(test.confirms),
                       rules_out=list(test.rules_out), answers=list(test.answers))


def _lint_codes(description: Description) -> list[str]:
    """Rule codes that fire on code pasted into the description (lint never runs the code)."""
    if not description.code:
        return []
    # Imported here: most descriptions carry no code, and the rules cost start-up time.
    from ..lint.config import LintSettings
    from ..lint.engine import UNREADABLE, lint_source

    codes: list[str] = []
    settings = LintSettings(select=("MLD",), ignore=(UNREADABLE,))
    for snippet in description.code:
        codes += [f.code for f in lint_source(USUAL_IMPORTS + snippet, "<description>", settings)]
    return list(dict.fromkeys(codes))


def tool_call(cause: Cause) -> str | None:
    test = cause.test
    if test.tool == "lint":
        return f"mldebug-mcp lint FILE --select {test.ref} (MCP lint)"
    if test.tool == "diagnose":
        return f"mldebug-mcp diagnose FILE:FUNC --checks {test.ref} (MCP diagnose)"
    if test.tool == "curve":
        return "mldebug-mcp curve LOG (MCP analyze_curve)"
    return None


@cache
def _quotes() -> dict[str, dict]:
    """The quotes behind the catalogue's causes (evidence id -> the Quote's fields), kept on disk beside the
    snapshot: reading the evidence folder parses YAML and Argdown, which costs more than a triage call. Named
    by a digest of the ids, the evidence files and the code that reads them."""
    from pathlib import Path

    from ..content import evidence_dir
    from ..triage import index_cache

    ids = sorted({e for c in snapshot.bundled().catalogue.causes.values() for e in c.evidence})
    package = Path(__file__).resolve().parents[1]
    texts = [*ids, *snapshot.folder_texts(str(evidence_dir())), *snapshot.folder_texts(str(package / "citations")),
             (package / "models" / "evidence.py").read_bytes()]
    return index_cache.load_or_build(index_cache.digest(texts), lambda: _build_quotes(ids), _quotes_fit,
                                     prefix=QUOTES_PREFIX)


def _build_quotes(ids: list[str]) -> dict[str, dict]:
    from dataclasses import asdict

    from .evidence import load_store

    store = load_store()
    return {e: asdict(store.quote(e)) for e in ids if e in store.excerpts}


def _quotes_fit(state: dict) -> bool:
    fields = set(Quote.__dataclass_fields__)
    return all(isinstance(q, dict) and set(q) == fields for q in state.values())


def _quote(evidence_id: str, quotes: dict[str, dict]) -> Quote:
    """The quote of an evidence id, from the cached quotes; an id they lack goes to the evidence store
    (which says what is wrong with it)."""
    if evidence_id in quotes:
        return Quote(**quotes[evidence_id])
    from .evidence import load_store

    return load_store().quote(evidence_id)


def _hypothesis(item: ranking.Scored, first_plain: bool, quotes: dict[str, dict]) -> Hypothesis:
    cause = item.cause
    return Hypothesis(
        cause=cause.id, title=cause.title, category=cause.category, role=ranking.role(item, first_plain),
        prior=round(item.prior, 4), weight=round(item.weight, 4), why=ranking.explain(item),
        test=cause.test.description, tool_call=tool_call(cause), if_cause=cause.predicts.if_cause,
        if_not=cause.predicts.if_not, fix=cause.fix, avoid=list(cause.anti_patterns),
        evidence_ids=list(cause.evidence), evidence=[_quote(e, quotes) for e in cause.evidence],
    )


def _compact_hypothesis(item: ranking.Scored, first_plain: bool) -> Hypothesis:
    cause = item.cause
    return Hypothesis(
        cause=cause.id, title=cause.title, category=cause.category, role=ranking.role(item, first_plain),
        prior=round(item.prior, 4), weight=round(item.weight, 4), why=ranking.explain(item),
        test=one_line(cause.test.description, TEST_CHARS), tool_call=tool_call(cause), fix=one_line(cause.fix, FIX_CHARS),
        evidence_ids=list(cause.evidence),
    )


def _next_test(chosen: list[ranking.Scored]) -> str:
    """A test shared by two of the three front runners separates them from the rest at once; otherwise
    the front runner's own test, preferring one a tool runs over a manual one when the weights are close."""
    front = chosen[:3]
    refs = [(s.cause.test.tool, s.cause.test.ref) for s in front if s.cause.test.ref]
    shared = next((r for r in refs if refs.count(r) > 1), None)
    if shared:
        item = next(s for s in front if (s.cause.test.tool, s.cause.test.ref) == shared)
        owners = ", ".join(s.cause.id for s in front if (s.cause.test.tool, s.cause.test.ref) == shared)
        return f"{item.cause.test.description} (separates {owners} from the rest; {tool_call(item.cause)})"
    best = front[0]
    automated = next((s for s in front if s.cause.test.tool != "manual"), None)
    if best.cause.test.tool == "manual" and automated is not None and automated.weight > best.weight / 2:
        best = automated
    call = tool_call(best.cause)
    return f"{best.cause.test.description} (tests {best.cause.id}{'; ' + call if call else ''})"


def tree_markdown() -> str:
    """The decision tree and its leaves, for the generated section of the playbook."""
    from ..triage.tree import load_tree, render_leaves, render_tree

    tree = load_tree()
    return f"```text\n{render_tree(tree)}\n```\n\n{render_leaves(tree)}"


def catalogue_markdown() -> str:
    """The cause catalogue, for the generated section of refs/causes.md."""
    from ..triage.catalogue import load_catalogue
    from ..triage.render import catalogue_markdown as markdown

    return markdown(load_catalogue())
