"""Rule documentation from the registry: every rule, or one by code or name."""

from __future__ import annotations

from ..errors import UsageError
from ..models.lint import RuleInfo
from .registry import RULES


def rule_infos() -> list[RuleInfo]:
    return [
        RuleInfo(code=r.code, name=r.name, category=r.category, severity=r.severity, message=r.message,
                 why=r.why, fix=r.fix, evidence=r.evidence, bad=r.BAD, good=r.GOOD)
        for r in RULES
    ]


def explain(code_or_name: str) -> RuleInfo:
    key = code_or_name.strip()
    for info in rule_infos():
        if key.upper() == info.code or key.lower() == info.name:
            return info
    choices = [i.code for i in rule_infos()] + [i.name for i in rule_infos()]
    import difflib  # only for suggestions after a miss

    close = difflib.get_close_matches(key, choices, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"unknown rule {code_or_name!r}.{hint} `mldebug-mcp rules` lists them all.")

