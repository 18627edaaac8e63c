"""The cause catalogue: data/categories.yaml and data/causes/*.yaml, loaded and validated.

Each cause is one root cause a failing training run can have, written as data so that the matcher,
the ranking, the playbook and the tests all read the same facts."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import _yaml as yaml
from ..errors import ContentError

DATA_PACKAGE = "mldebug_mcp.triage"
Frequency = Literal["common", "occasional", "rare"]
# How much of its category's base rate each cause gets, before normalising within the category.
FREQUENCY_SHARE: dict[str, float] = {"common": 3.0, "occasional": 1.5, "rare": 0.5}
TestTool = Literal["lint", "diagnose", "curve", "manual"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Category(Strict):
    title: str
    rate: float = Field(gt=0, le=1, description="Base rate: the share of failing runs whose cause is here.")
    domain: bool = Field(default=False, description="Only likely when the description is about this domain.")
    context: tuple[str, ...] = Field(default=(), description="Words that say the run is in this domain.")


class CauseTest(Strict):
    description: str = Field(min_length=20)
    tool: TestTool
    ref: str | None = Field(default=None, description="Lint rule code or diagnose check id the tool runs.")


class Prediction(Strict):
    if_cause: str = Field(min_length=15)
    if_not: str = Field(min_length=15)


class Cause(Strict):
    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=10)
    category: str
    frequency: Frequency
    summary: str = Field(min_length=30, description="What goes wrong and why the run still looks plausible.")
    symptoms: tuple[str, ...] = Field(min_length=5)
    keywords: tuple[str, ...] = Field(default=())
    signals: tuple[str, ...] = Field(min_length=1)
    contradicts: tuple[str, ...] = Field(default=())
    test: CauseTest
    predicts: Prediction
    fix: str = Field(min_length=20)
    anti_patterns: tuple[str, ...] = Field(default=())
    evidence: tuple[str, ...] = Field(min_length=1)
    lint_rules: tuple[str, ...] = Field(default=())
    subtle: bool = False


class Case(Strict):
    """A real forum thread with a confirmed cause, kept as our paraphrase of how the asker described it."""

    url: str
    cause: str
    symptom: str = Field(min_length=20)


class Catalogue(BaseModel):
    model_config = ConfigDict(frozen=True)

    categories: dict[str, Category]
    causes: dict[str, Cause]
    cases: tuple[Case, ...] = ()

    def prior(self, cause: Cause) -> float:
        """Category base rate split between its causes by their stated frequency."""
        peers = [c for c in self.causes.values() if c.category == cause.category]
        total = sum(FREQUENCY_SHARE[c.frequency] for c in peers)
        return self.categories[cause.category].rate * FREQUENCY_SHARE[cause.frequency] / total


def describe(exc: Exception) -> str:
    """A validation error as 'field: problem' pairs, without pydantic's links."""
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'entry'}: {e['msg']}" for e in exc.errors())
    return str(exc)


def _read(name: str) -> str:
    return (resources.files(DATA_PACKAGE) / "data" / name).read_text(encoding="utf-8")


def _data_files(folder: str) -> list[str]:
    root = resources.files(DATA_PACKAGE) / "data" / folder
    return sorted(f"{folder}/{entry.name}" for entry in root.iterdir() if entry.name.endswith(".yaml"))


def parse_cases(case_texts: dict[str, str]) -> tuple[Case, ...]:
    cases = []
    for name, text in case_texts.items():
        try:
            cases += [Case(**entry) for entry in yaml.safe_load(text) or []]
        except (yaml.YAMLError, ValidationError, TypeError) as exc:
            raise ContentError(f"triage {name} is malformed: {describe(exc)}") from exc
    return tuple(cases)


def parse_catalogue(categories_text: str, cause_texts: dict[str, str], case_texts: dict[str, str] | None = None) -> Catalogue:
    """Build a catalogue from YAML texts (file name -> text); ContentError names the bad file and field."""
    try:
        categories = {k: Category(**v) for k, v in (yaml.safe_load(categories_text) or {}).items()}
    except (yaml.YAMLError, ValidationError, TypeError) as exc:
        raise ContentError(f"triage categories.yaml is malformed: {describe(exc)}") from exc
    causes: dict[str, Cause] = {}
    for name, text in cause_texts.items():
        try:
            entries = yaml.safe_load(text) or []
        except yaml.YAMLError as exc:
            raise ContentError(f"triage {name} is not valid YAML: {exc}") from exc
        for index, entry in enumerate(entries):
            try:
                cause = Cause(**entry)
            except (ValidationError, TypeError) as exc:
                label = entry.get("id", f"entry {index}") if isinstance(entry, dict) else f"entry {index}"
                raise ContentError(f"triage {name}: cause {label} is malformed: {describe(exc)}") from exc
            if cause.id in causes:
                raise ContentError(f"triage {name}: cause id {cause.id!r} is defined twice")
            causes[cause.id] = cause
    return Catalogue(categories=categories, causes=causes, cases=parse_cases(case_texts or {}))


@cache
def _bundled() -> tuple[str, dict[str, str], dict[str, str]]:
    return (_read("categories.yaml"), {name: _read(name) for name in _data_files("causes")},
            {name: _read(name) for name in _data_files("cases")})


@cache
def load_catalogue() -> Catalogue:
    """The bundled catalogue, parsed once per process."""
    return parse_catalogue(*_bundled())
