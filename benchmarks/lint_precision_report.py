"""How often a lint warning is right on real code: the judged precision samples, per rule and overall.

Reads every judged sample under benchmarks/lint_precision/ (each finding: code, verdict true/false/unsure; a
sample may be a list or a mapping with `findings`, and a stratified one carries `strata`, the number of
warning/error findings each rule gave on the population it was drawn from). Prints, per rule, the true share of
each sample and of all of them pooled, with a 95% Wilson interval; for a stratified sample, the population's
precision estimated from its strata (each rule's share weighted by its count), with a bootstrap interval.
Unsure verdicts count in neither the numerator nor the denominator.

    python benchmarks/lint_precision_report.py [--sample NAME ...] [--min-judged 6]

Verdicts judged at one commit say how that commit's rules did; a finding fixed since still counts here (the
samples are history: the README beside them says what each fix changed).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent / "lint_precision"


def _shared_wilson():
    """The Wilson interval of the agent A/B summary (benchmarks/agent_ab/summarise.py), one implementation for both."""
    spec = importlib.util.spec_from_file_location("agent_ab_summarise", Path(__file__).resolve().parent / "agent_ab"
                                                  / "summarise.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.wilson


wilson = _shared_wilson()


def verdict(finding: dict) -> bool | None:
    text = str(finding.get("verdict", "")).strip().lower()
    return True if text == "true" else False if text == "false" else None


def load(path: Path) -> tuple[list[dict], dict[str, int]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        findings, strata = data.get("findings") or [], data.get("strata") or {}
    else:
        findings, strata = data or [], {}
    warned = [f for f in findings if str(f.get("sample", "we")) not in ("info",) and f.get("code") != "MLD000"]
    return warned, {str(k): int(v) for k, v in strata.items()}


def stratified(findings: list[dict], strata: dict[str, int], rounds: int = 2000) -> tuple[float, float, float]:
    """The population's precision from per-rule shares weighted by each rule's count; the interval resamples
    each stratum's verdicts (a rule with no judged finding is left out of the weights)."""
    by_rule: dict[str, list[bool]] = defaultdict(list)
    for f in findings:
        if (v := verdict(f)) is not None:
            by_rule[f["code"]].append(v)
    judged = {code: vs for code, vs in by_rule.items() if code in strata}
    total = sum(strata[code] for code in judged)

    def estimate(samples: dict[str, list[bool]]) -> float:
        return sum(strata[code] * sum(vs) / len(vs) for code, vs in samples.items()) / total

    rng = random.Random(0)
    draws = sorted(estimate({c: [rng.choice(vs) for _ in vs] for c, vs in judged.items()}) for _ in range(rounds))
    return estimate(judged), draws[int(0.025 * rounds)], draws[int(0.975 * rounds) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", action="append", help="sample file stem(s); default: all")
    parser.add_argument("--min-judged", type=int, default=6, help="pooled rows shown for rules judged this often")
    args = parser.parse_args()
    paths = sorted(p for p in ROOT.glob("*.yaml") if not args.sample or p.stem in args.sample)
    if not paths:
        raise SystemExit(f"no judged sample in {ROOT}" + (f" named {args.sample}" if args.sample else ""))
    pooled: dict[str, list[bool]] = defaultdict(list)
    for path in paths:
        findings, strata = load(path)
        votes = [v for f in findings if (v := verdict(f)) is not None]
        low, high = wilson(sum(votes), len(votes))
        print(f"{path.stem}: {sum(votes)}/{len(votes)} true = {sum(votes) / max(1, len(votes)):.1%} "
              f"(95% Wilson {low:.1%}-{high:.1%}), {len(findings) - len(votes)} unsure")
        if strata:
            point, lo, hi = stratified(findings, strata)
            print(f"  population estimate from {len(strata)} strata ({sum(strata.values())} findings): "
                  f"{point:.1%} (95% bootstrap {lo:.1%}-{hi:.1%})")
        for f in findings:
            if (v := verdict(f)) is not None:
                pooled[f["code"]].append(v)
    print(f"\nper rule, pooled over {len(paths)} samples (rules judged at least {args.min_judged} times):")
    print(f"  {'rule':8} {'true':>5} {'judged':>6} {'share':>6}  95% Wilson")
    for code in sorted(pooled, key=lambda c: sum(pooled[c]) / len(pooled[c])):
        votes = pooled[code]
        if len(votes) >= args.min_judged:
            low, high = wilson(sum(votes), len(votes))
            print(f"  {code:8} {sum(votes):5d} {len(votes):6d} {sum(votes) / len(votes):6.0%}  {low:.0%}-{high:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
