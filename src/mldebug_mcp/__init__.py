"""mldebug-mcp: debug ML training the way practitioners do.

The public API is what ``__all__`` lists; everything else is private. Names are resolved on first
use, so `import mldebug_mcp` loads no submodule (and never torch): the CLI and the server start
without paying for the parts they do not call.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType

from ._version import __version__  # noqa: F401 (public, listed in __all__)

# public name -> module that defines it (relative to this package)
_HOME = {
    "AdviceReport": "models.advice",
    "ArgdownMap": "citations.argdown",
    "ArgdownSyntaxError": "errors",
    "ClaimMatch": "models.evidence",
    "ContentError": "errors",
    "CurveReport": "models.curves",
    "DebugSpec": "diagnostics.checks.spec",
    "DiagnoseError": "errors",
    "DiagnosticCheck": "models.diagnose",
    "DiagnosticReport": "models.diagnose",
    "EvidenceStore": "citations.store",
    "Excerpt": "models.evidence",
    "Hypothesis": "models.triage",
    "MldebugError": "errors",
    "Problem": "models.content",
    "Quote": "models.evidence",
    "Source": "models.evidence",
    "TriageResult": "models.triage",
    "TriageStep": "models.triage",
    "UnknownKeyError": "errors",
    "UsageError": "errors",
    "analyze_curve": "analysis.curve",
    "audit_content": "content.audit",
    "check_advice": "services.advice",
    "content_root": "content",
    "diagnose": "services.diagnose",
    "install_skill": "content.skill_install",
    "load_store": "services.evidence",
    "match_claims": "citations.lookup",
    "parse_argdown": "citations.argdown",
    "quotes_for_key": "citations.lookup",
    "read_curve": "analysis.curve_io",
    "search_quotes": "citations.lookup",
    "triage": "services.triage",
    "triage_step": "services.triage",
}

__all__ = sorted([*_HOME, "__version__"])


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(ModuleType):
    """`triage` names both a public function and the core package: the function must win.

    Importing a subpackage binds it on its parent, which would shadow the function once the core
    was loaded; submodules stay reachable through sys.modules, which is what imports use."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _HOME and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
