"""The report around the classifier: its JSON, its text, its plot, and what importing it costs."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import read_curve
from mldebug_mcp.analysis.curve_plot import write_curve_plot
from mldebug_mcp.errors import UsageError
from mldebug_mcp.render.curves import curve_text

from .curves import healthy, healthy_shape, log_of

FIXTURE_DIR = Path(__file__).parent / "fixtures" / "tfevents"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _troubled_log():
    loss = [(s, v * (4 if s in (200, 500) else 1)) for s, v in healthy()]
    loss = [(s, v if s < 900 else math.nan) for s, v in loss]
    return log_of(loss=loss, val_loss=[(s, 1.1 * healthy_shape(s)) for s in range(0, 1000, 50)])


def test_report_fields_and_json_keep_nan_spelled_out():
    report = analyze_curve(_troubled_log())
    assert report.observations == ["nan", "spike_fast_recovery"]
    assert [f.observation for f in report.findings] == report.observations
    data = json.loads(report.model_dump_json())
    assert set(data) >= {"source", "format", "series", "loss_series", "val_series", "observations", "findings",
                         "spikes", "plot", "notes", "num_classes"}
    loss = next(s for s in data["series"] if s["name"] == "loss")
    assert loss["last"] == "NaN" and loss["non_finite"] == 100 and loss["points"] == 1000
    assert data["spikes"][0]["kind"] == "spike_fast_recovery" and data["plot"] is None


def test_every_report_field_is_described():
    from mldebug_mcp.models.curves import CurveFinding, CurveReport, CurveSeries, CurveSpike

    for model in (CurveReport, CurveFinding, CurveSpike, CurveSeries):
        undocumented = [name for name, f in model.json_schema()["properties"].items() if not f.get("description")]
        assert undocumented == [], model.__name__


def test_text_names_the_series_observations_evidence_and_spikes():
    report = analyze_curve(_troubled_log())
    text = curve_text(report)
    assert "training    loss: 1000 points" in text and "validation  val_loss: 20 points" in text
    assert "observations: nan, spike_fast_recovery" in text
    assert "the training loss is NaN at step 900" in text and "why it matters:" in text
    assert "spikes (2):" in text


def test_text_of_a_short_log_says_it_is_too_short():
    text = curve_text(analyze_curve(log_of(loss=[(0, 1.0), (1, 0.9)])))
    assert "too little to classify" in text and "observations" not in text


def test_plot_writes_a_png_with_nan_zero_and_spikes(tmp_path):
    loss = [(s, v * (4 if s == 200 else 1)) for s, v in healthy()]
    loss = [(s, v if s < 600 else 0.0 if s < 900 else math.nan) for s, v in loss]
    log = log_of(loss=loss, val_loss=[(s, 1.1 * healthy_shape(s)) for s in range(0, 1000, 50)])
    report = analyze_curve(log)
    assert report.observations == ["nan", "loss_zero", "spike_fast_recovery"]
    path = write_curve_plot(log, report, tmp_path / "plots" / "curve.png")
    assert path == tmp_path / "plots" / "curve.png"
    assert path.read_bytes()[:8] == PNG_SIGNATURE


def test_plot_of_negative_losses_and_of_the_fixture(tmp_path):
    log = log_of(loss=[(s, -v) for s, v in healthy()])
    assert write_curve_plot(log, analyze_curve(log), tmp_path / "neg.png").read_bytes()[:8] == PNG_SIGNATURE
    log = read_curve(FIXTURE_DIR)
    assert write_curve_plot(log, analyze_curve(log), tmp_path / "tb.png").read_bytes()[:8] == PNG_SIGNATURE


def test_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` raise ImportError
    log = log_of(loss=healthy())
    with pytest.raises(UsageError, match=r'pip install "mldebug-mcp\[plots\]"'):
        write_curve_plot(log, analyze_curve(log), tmp_path / "curve.png")


def test_reading_and_classifying_never_import_torch_numpy_or_matplotlib():
    code = (
        "import sys\n"
        "import mldebug_mcp.analysis.curve, mldebug_mcp.analysis.curve_io, mldebug_mcp.analysis.curve_plot\n"
        "from mldebug_mcp.analysis.curve_io import read_curve\n"
        "from mldebug_mcp.analysis.curve import analyze_curve\n"
        "from mldebug_mcp.render.curves import curve_text\n"
        f"print(curve_text(analyze_curve(read_curve({str(FIXTURE_DIR)!r}))))\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy', 'matplotlib', 'tensorboard'))\n"
        "print('HEAVY', bad, file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "HEAVY []" in proc.stderr, proc.stderr
    assert "observations: nan" in proc.stdout
