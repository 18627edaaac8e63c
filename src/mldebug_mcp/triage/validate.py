"""Cross-checks of the triage data against the rest of the product; returns problems, never raises.

The callers pass in what exists (excerpt ids, lint codes, diagnose checks, anti-pattern ids), so this
module stays independent of the lint and diagnostics packages."""

from __future__ import annotations

from ..models.observations import OBSERVATIONS
from .catalogue import Catalogue

MIN_CAUSES = 40


def catalogue_problems(catalogue: Catalogue, excerpt_ids: set[str], lint_codes: set[str],
                       check_ids: set[str], antipattern_ids: set[str]) -> list[str]:
    problems: list[str] = []
    if len(catalogue.causes) < MIN_CAUSES:
        problems.append(f"only {len(catalogue.causes)} causes; the catalogue promises at least {MIN_CAUSES}")
    total_rate = sum(c.rate for c in catalogue.categories.values())
    if abs(total_rate - 1.0) > 1e-6:
        problems.append(f"category rates sum to {total_rate:.3f}, not 1")
    for name in catalogue.categories:
        if not any(c.category == name for c in catalogue.causes.values()):
            problems.append(f"category {name!r} has no causes")
    for cause in catalogue.causes.values():
        where = f"cause {cause.id}"
        if cause.category not in catalogue.categories:
            problems.append(f"{where}: unknown category {cause.category!r}")
        for key in (*cause.signals, *cause.contradicts):
            if key not in OBSERVATIONS:
                problems.append(f"{where}: unknown observation {key!r}")
        if set(cause.signals) & set(cause.contradicts):
            problems.append(f"{where}: an observation is both a signal and a contradiction")
        for excerpt in cause.evidence:
            if excerpt not in excerpt_ids:
                problems.append(f"{where}: evidence {excerpt!r} is not an excerpt id")
        for code in cause.lint_rules:
            if code not in lint_codes:
                problems.append(f"{where}: lint rule {code!r} does not exist")
        for pattern in cause.anti_patterns:
            if pattern not in antipattern_ids:
                problems.append(f"{where}: anti-pattern {pattern!r} is not defined")
        problems.extend(_test_problems(where, cause.test.tool, cause.test.ref, lint_codes, check_ids))
        if len(set(s.lower() for s in cause.symptoms)) != len(cause.symptoms):
            problems.append(f"{where}: repeated symptom phrasing")
    seen: set[str] = set()
    for case in catalogue.cases:
        if case.cause not in catalogue.causes:
            problems.append(f"case {case.url}: unknown cause {case.cause!r}")
        if case.url in seen:
            problems.append(f"case {case.url} appears twice")
        seen.add(case.url)
    return problems


def _test_problems(where: str, tool: str, ref: str | None, lint_codes: set[str], check_ids: set[str]) -> list[str]:
    if tool == "lint" and ref not in lint_codes:
        return [f"{where}: test runs lint but ref {ref!r} is not a rule code"]
    if tool == "diagnose" and ref not in check_ids:
        return [f"{where}: test runs diagnose but ref {ref!r} is not a check id"]
    if tool in ("manual", "curve") and ref is not None:
        return [f"{where}: a {tool} test takes no ref"]
    return []
