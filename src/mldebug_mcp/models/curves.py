"""Loss curves: the series read from a log, and what the shape of the training loss shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from .base import SCHEMA_CONFIG, Model


class _NonFiniteAsText:
    """JSON schema of a log value: a number, or NaN/Infinity spelled as text (bare NaN is not JSON)."""

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"anyOf": [{"type": "number"}, {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]}]}


# NaN and Inf are findings here, so JSON spells them "NaN"/"Infinity" instead of null, and the schema says
# so: MCP clients validate structured content against it.
LogValue = Annotated[float, _NonFiniteAsText()]
_KEEP_NON_FINITE = {**SCHEMA_CONFIG, "ser_json_inf_nan": "strings"}


class _CurveModel(Model):
    __pydantic_config__ = _KEEP_NON_FINITE


@dataclass(kw_only=True)
class CurveSeries(_CurveModel):
    """One series of a loss log, summarised."""

    name: str
    """Series name: CSV column, JSON field or TensorBoard tag."""
    points: int
    """Points after sorting by step and keeping the last value of a repeated step."""
    first_step: int | float | None
    """First step logged; null for an empty series."""
    last_step: int | float | None
    """Last step logged; null for an empty series."""
    first: LogValue | None
    """Value at the first step (NaN and Inf kept)."""
    last: LogValue | None
    """Value at the last step (NaN and Inf kept)."""
    min: float | None
    """Smallest finite value; null when none is finite."""
    non_finite: int
    """Number of NaN or Inf values."""


@dataclass(kw_only=True)
class CurveFinding(_CurveModel):
    """Why an observation key was given: where, the numbers measured, and what it usually means."""

    observation: str
    """Observation key from the shared vocabulary, e.g. 'nan' or 'plateau'."""
    step: int | float | None
    """Step where it starts or turns; null when it is about the whole run."""
    summary: str
    """One sentence with the measured numbers."""
    meaning: str
    """One plain sentence on what this usually means and what to check."""
    values: dict[str, int | LogValue] = field(default_factory=dict)
    """The numbers measured, by name."""


@dataclass(kw_only=True)
class CurveSpike(_CurveModel):
    """One loss spike: a sudden jump above the local median, and how (or whether) it came back."""

    step: int | float
    """First step above the spike threshold."""
    peak_step: int | float
    """Step of the highest value of the spike."""
    peak: LogValue
    """Highest loss value of the spike."""
    local_median: float
    """Median of the points just before the spike: the level it jumped from."""
    height: float | None
    """peak / local_median; null when the local median is not positive."""
    recovery_steps: int | float | None
    """Steps from the spike until the loss is back within the noise band; null if it never is."""
    recovery_points: int | None
    """The same in logged points; null if it never comes back."""
    kind: str | None
    """spike_fast_recovery, spike_slow_recovery or spike_no_recovery; null when the log ends too soon after the spike to tell."""


@dataclass(kw_only=True)
class CurveReport(_CurveModel):
    """What analyze_curve returns: the series read, the loss picked, and what its shape shows."""

    source: str
    """The log that was read (file or folder)."""
    format: str
    """csv, tsv, jsonl, json, trainer_state or tfevents."""
    run: str | None = None
    """Of a folder of event files: the run read, its folder relative to source ('.' for source itself); null for a file."""
    other_runs: list[str] = field(default_factory=list)
    """Other runs in that folder, left out (never paired with the run read); pass one as `run` to read it."""
    series: list[CurveSeries]
    """Every numeric series found, summarised."""
    loss_series: str | None
    """The series analysed as the training loss."""
    val_series: str | None = None
    """The series used as validation loss; null if none."""
    metric_series: str | None = None
    """The metric series read beside the loss (for 'loss falls, metric flat'); null if none."""
    num_classes: int | None = None
    """Classes given for the chance level ln k; null if not."""
    observations: list[str] = field(default_factory=list)
    """Observation keys found, most important first; empty if too short to tell."""
    findings: list[CurveFinding] = field(default_factory=list)
    """One per observation, in the same order."""
    spikes: list[CurveSpike] = field(default_factory=list)
    """Every spike found in the training loss."""
    notes: list[str] = field(default_factory=list)
    """What the reader skipped or could not decide (cut records, short logs)."""
    plot: str | None = None
    """Path of the PNG written, or null."""
