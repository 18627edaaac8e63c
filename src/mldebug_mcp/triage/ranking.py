"""Prior times likelihood: each cause starts at its base rate and is moved by what the description says,
the observations, lint findings in any code shown, and the domain. Naive-Bayes in spirit: the factors
are treated as independent, which overstates confidence, so the weights are for ordering and a rough
sense of spread, never a calibrated probability."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .description import Description
from .matcher import CauseIndex, TextFit, standardised

if TYPE_CHECKING:  # the pydantic catalogue or the snapshot's facts (snapshot.py): the ranking reads either
    from .catalogue import Catalogue, Cause

# Likelihood factors (our judgement, then tuned on real forum threads and the case base: benchmarks/triage_tune.py).
TEXT_BETA = 1.5          # exp(TEXT_BETA * text score): how far wording alone can move a cause (the score is a
                         # sum of standardised fits, matcher.py)
# exp(CATEGORY_WEIGHT * z): the fit of the cause's whole category (category_fits); on a/b/c forum top-3 55% -> 58%,
# case-base CV top-10 86.4% -> 86.6% (benchmarks/triage_retrieval.py), flat from 0.3 to 1.0.
CATEGORY_WEIGHT = 0.6
SIGNAL_FACTOR = 3.0      # an observation the cause predicts (the commonest kind; rarer ones count more)
SIGNAL_POWER = 0.5       # how much more a rare observation counts (0: all alike)
CONTRADICT_FACTOR = 0.15  # an observation that argues against the cause
READ_STRENGTH = 1.0      # power on the factors of observations read from prose (weaker settings scored worse)
MAX_SIGNALS = 2          # beyond two matching observations, more say little new
LINT_FACTOR = 25.0       # a lint rule that fired on the user's code and tests this very cause
DOMAIN_FACTOR = 15.0     # the description is about this cause's domain (LLM, RL, PINN)
OFF_DOMAIN_FACTOR = 0.4  # a domain cause when nothing says the run is in that domain
# The factors are treated as independent though they are not (the same wording moves several of them), which
# makes raw weights overconfident; dividing the log-weights by this brings the mean weight of the front
# runner close to how often it is right on real forum wording (benchmarks/triage_tune.py).
TEMPERATURE = 3.5  # a/b/c: front runner's mean weight 0.33, right 33% of the time
MIN_DOMAIN_WORDS = 2     # distinct context words needed to call a description LLM, RL or PINN work


@dataclass
class Scored:
    cause: Cause
    prior: float
    log_weight: float
    fit: TextFit
    signals: list[str] = field(default_factory=list)
    against: list[str] = field(default_factory=list)
    lint: list[str] = field(default_factory=list)
    in_domain: bool = False
    weight: float = 0.0


def detect_domains(catalogue: Catalogue, text: str) -> list[str]:
    """Domain categories whose context words appear in the text."""
    lowered = text.lower()
    found = []
    for name, category in catalogue.categories.items():
        # A plain substring test first: compiling a pattern for each of the hundred context words costs more
        # than the rest of a triage call, and a description holds few of them.
        hits = [w for w in category.context
                if w in lowered and re.search(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", lowered)]
        # One domain word in passing ("1700 tokens long", "the env var") is weak; two make it the setting.
        if category.domain and len(hits) >= MIN_DOMAIN_WORDS:
            found.append(name)
    return found


def signal_strengths(catalogue: Catalogue) -> dict[str, float]:
    """Log-factor of each observation for a cause that predicts it. An observation few causes produce
    (multi_gpu_only) separates them better than one that many produce (plateau): the factor grows with
    (causes / causes producing it) ** SIGNAL_POWER, from SIGNAL_FACTOR for the commonest."""
    producers: dict[str, int] = {}
    for cause in catalogue.causes.values():
        for key in cause.signals:
            producers[key] = producers.get(key, 0) + 1
    most = max(producers.values(), default=1)
    return {key: math.log(SIGNAL_FACTOR) + SIGNAL_POWER * math.log(most / n) for key, n in producers.items()}


def category_fits(catalogue: Catalogue, text: dict[str, float]) -> dict[str, float]:
    """Per cause, how well the words fit its category as a whole: the log-sum-exp of its category's text
    log-weights, standardised over the causes. A report whose words point at a family of causes (several data
    causes fit a little) lifts that family's members, and the one whose own wording is thin with them."""
    if not text:
        return {}
    members: dict[str, list[float]] = {}
    for cause_id, value in text.items():
        members.setdefault(catalogue.causes[cause_id].category, []).append(value)
    pooled = {}
    for category, values in members.items():
        top = max(values)
        pooled[category] = top + math.log(sum(math.exp(v - top) for v in values))
    ids = list(text)
    return dict(zip(ids, standardised([pooled[catalogue.causes[c].category] for c in ids])))


def score_causes(catalogue: Catalogue, index: CauseIndex, description: Description, stated: list[str],
                 read: list[str], lint_codes: list[str], domains: list[str]) -> list[Scored]:
    """Every cause with its normalised weight, most probable first."""
    fits = index.fit(description, tuple(stated)) if description.text.strip() else {}
    empty = TextFit(0.0, None, ())
    strength = signal_strengths(catalogue)
    family = category_fits(catalogue, {c: TEXT_BETA * f.score for c, f in fits.items()})
    scored = []
    for cause in catalogue.causes.values():
        prior = catalogue.prior(cause)
        fit = fits.get(cause.id, empty)
        item = Scored(cause, prior, math.log(prior) + TEXT_BETA * fit.score + CATEGORY_WEIGHT * family.get(cause.id, 0.0), fit)
        for keys, weight in ((stated, 1.0), (read, READ_STRENGTH)):
            hits = [k for k in keys if k in cause.signals and k not in item.signals]
            item.signals += hits
            strongest = sorted((strength[k] for k in hits), reverse=True)[:MAX_SIGNALS]
            item.log_weight += weight * sum(strongest)
            against = [k for k in keys if k in cause.contradicts and k not in item.against]
            item.against += against
            item.log_weight += weight * math.log(CONTRADICT_FACTOR) * len(against)
        item.lint = [code for code in lint_codes if code in cause.lint_rules]
        item.log_weight += math.log(LINT_FACTOR) * len(item.lint)
        if catalogue.categories[cause.category].domain:
            item.in_domain = cause.category in domains
            item.log_weight += math.log(DOMAIN_FACTOR if item.in_domain else OFF_DOMAIN_FACTOR)
        scored.append(item)
    top = max(s.log_weight for s in scored)
    total = sum(math.exp((s.log_weight - top) / TEMPERATURE) for s in scored)
    for s in scored:
        s.weight = math.exp((s.log_weight - top) / TEMPERATURE) / total
    return sorted(scored, key=lambda s: (-s.weight, s.cause.id))


def choose(scored: list[Scored], limit: int) -> list[Scored]:
    """The top `limit` causes, then the best subtle and the best null hypothesis if not already in."""
    chosen = scored[:limit]
    for wanted in (lambda s: s.cause.subtle, lambda s: s.cause.category == "null" and not s.cause.subtle):
        if not any(wanted(s) for s in chosen):
            chosen.append(next(s for s in scored if wanted(s)))
    return sorted(chosen, key=lambda s: (-s.weight, s.cause.id))


def role(item: Scored, first_plain: bool) -> str:
    if item.cause.subtle:
        return "subtle"
    if item.cause.category == "null":
        return "null"
    return "likely" if first_plain else "alternative"


def explain(item: Scored) -> str:
    """Why this cause is on the list, in one or two sentences."""
    parts = []
    if item.fit.matched_symptom:
        parts.append(f"the description reads like \u201c{item.fit.matched_symptom}\u201d")
    if item.fit.keywords:
        parts.append("it mentions " + ", ".join(item.fit.keywords[:4]))
    if item.signals:
        parts.append("this cause produces " + ", ".join(item.signals))
    if item.lint:
        parts.append("lint found " + ", ".join(item.lint) + " in the code shown")
    if item.in_domain:
        parts.append(f"the run is {item.cause.category.upper()} work")
    text = "; ".join(parts) if parts else "a common cause of this kind of failure (base rate)"
    if item.against:
        text += "; but " + ", ".join(item.against) + " argues against it"
    return text[0].upper() + text[1:] + "."
