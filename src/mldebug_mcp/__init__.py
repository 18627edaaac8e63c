"""mldebug-mcp: debug ML training the way practitioners do.

The public API is what ``__all__`` lists; everything else is private. Importing this
package never imports torch.
"""

from __future__ import annotations

__version__ = "0.1.0"

from .audit import audit_content
from .citations.argdown import ArgdownMap, parse_argdown
from .citations.lookup import match_claims, quotes_for_key, search_quotes
from .citations.store import EvidenceStore, load_store
from .content import content_root
from .diagnostics import diagnose
from .diagnostics.checks.spec import DebugSpec
from .errors import ArgdownSyntaxError, ContentError, DiagnoseError, MldebugError, UnknownKeyError, UsageError
from .models import ClaimMatch, DiagnosticCheck, DiagnosticReport, Excerpt, Problem, Quote, Source
from .skill_install import install_skill

__all__ = [
    "ArgdownMap",
    "ArgdownSyntaxError",
    "ClaimMatch",
    "ContentError",
    "DebugSpec",
    "DiagnoseError",
    "DiagnosticCheck",
    "DiagnosticReport",
    "EvidenceStore",
    "Excerpt",
    "MldebugError",
    "Problem",
    "Quote",
    "Source",
    "UnknownKeyError",
    "UsageError",
    "__version__",
    "audit_content",
    "content_root",
    "diagnose",
    "install_skill",
    "load_store",
    "match_claims",
    "parse_argdown",
    "quotes_for_key",
    "search_quotes",
]
