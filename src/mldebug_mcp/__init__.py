"""mldebug-mcp: debug ML training the way practitioners do.

The public API is what ``__all__`` lists; everything else is private. Importing this
package never imports torch.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .analysis.curve import analyze_curve
from .analysis.curve_io import read_curve
from .content.audit import audit_content
from .citations.argdown import ArgdownMap, parse_argdown
from .citations.lookup import match_claims, quotes_for_key, search_quotes
from .citations.store import EvidenceStore, load_store
from .content import content_root
from .diagnostics import diagnose
from .diagnostics.checks.spec import DebugSpec
from .errors import ArgdownSyntaxError, ContentError, DiagnoseError, MldebugError, UnknownKeyError, UsageError
from .models import (
    AdviceReport,
    ClaimMatch,
    CurveReport,
    DiagnosticCheck,
    DiagnosticReport,
    Excerpt,
    Hypothesis,
    Problem,
    Quote,
    Source,
    TriageResult,
    TriageStep,
)
from .content.skill_install import install_skill
from .triage.advice import check_advice
from .services.triage import triage, triage_step

__all__ = [
    "AdviceReport",
    "ArgdownMap",
    "ArgdownSyntaxError",
    "ClaimMatch",
    "ContentError",
    "CurveReport",
    "DebugSpec",
    "DiagnoseError",
    "DiagnosticCheck",
    "DiagnosticReport",
    "EvidenceStore",
    "Excerpt",
    "Hypothesis",
    "MldebugError",
    "Problem",
    "Quote",
    "Source",
    "TriageResult",
    "TriageStep",
    "UnknownKeyError",
    "UsageError",
    "__version__",
    "analyze_curve",
    "audit_content",
    "check_advice",
    "content_root",
    "diagnose",
    "install_skill",
    "load_store",
    "match_claims",
    "parse_argdown",
    "quotes_for_key",
    "read_curve",
    "search_quotes",
    "triage",
    "triage_step",
]
