"""Result models, one module per family; they import nothing of this package but each other and errors.

Code inside the package imports the family module (`from ..models.lint import Finding`); this
package resolves the same names lazily for everyone else, so `from mldebug_mcp.models import
Finding` loads only the lint models.
"""

from __future__ import annotations

from importlib import import_module

FAMILY_OF = {
    "Source": "evidence", "Excerpt": "evidence", "Quote": "evidence", "ClaimMatch": "evidence",
    "QuoteResult": "evidence", "SourceSummary": "evidence", "SourceList": "evidence",
    "Problem": "content", "ReferenceSection": "content",
    "Finding": "lint", "RuleInfo": "lint", "LintReport": "lint",
    "DiagnosticCheck": "diagnose", "DiagnosticReport": "diagnose",
    "Hypothesis": "triage", "TriageResult": "triage", "TreeAnswer": "triage", "TriageStep": "triage",
    "CurveSeries": "curves", "CurveFinding": "curves", "CurveSpike": "curves", "CurveReport": "curves",
    "AdviceFinding": "advice", "AdviceReport": "advice",
}
__all__ = sorted(FAMILY_OF)


def __getattr__(name: str) -> object:
    family = FAMILY_OF.get(name)
    if family is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{family}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(FAMILY_OF))
