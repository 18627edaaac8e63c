"""`mldebug-mcp sweep`: text and JSON output on the bundled example, exit codes, and no heavy import."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sweep"


def test_text_report_of_the_warmup_example(run_cli):
    result = run_cli("sweep", str(EXAMPLES / "warmup.csv"))
    assert result.code == 0, result.err
    assert "arms by     warmup_steps; baseline '0'" in result.out
    assert re.search(r"^  500 +BETTER ", result.out, re.M) and re.search(r"^  2000 +noise ", result.out, re.M)
    assert "[crashed]" in result.out and "does not share all seeds" in result.out


def test_json_report_of_the_twenty_arm_trap(run_cli):
    result = run_cli("sweep", str(EXAMPLES / "twenty_arms.csv"), "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert len(report["comparisons"]) == 20
    assert {c["verdict"] for c in report["comparisons"]} == {"within_noise"}
    assert min(c["p"] for c in report["comparisons"]) < 0.05
    assert report["correction"].startswith("Holm-Bonferroni over 20 comparisons")


def test_options_reach_the_analysis(run_cli):
    result = run_cli("sweep", str(EXAMPLES / "warmup.csv"), "--metric", "train_loss", "--baseline", "500",
                     "--json")
    report = json.loads(result.out)
    assert report["metric"] == "train_loss" and report["higher_is_better"] is False
    assert report["baseline"] == "500"
    flipped = json.loads(run_cli("sweep", str(EXAMPLES / "warmup.csv"), "--higher-is-better", "--metric",
                                 "train_loss", "--json").out)
    assert flipped["higher_is_better"] is True


def test_usage_errors_exit_2_with_the_fix(run_cli, tmp_path):
    result = run_cli("sweep", str(tmp_path / "missing.csv"))
    assert result.code == 2 and "no such file or folder" in result.err
    result = run_cli("sweep", str(EXAMPLES / "warmup.csv"), "--baseline", "300")
    assert result.code == 2 and "Arms: '0', '500', '2000'" in result.err


def test_plot_is_written(run_cli, tmp_path):
    pytest.importorskip("matplotlib")
    result = run_cli("sweep", str(EXAMPLES / "warmup.csv"), "--plot", str(tmp_path / "sweep.png"))
    assert result.code == 0 and (tmp_path / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_sweep_command_imports_no_heavy_package():
    code = ("import sys, mldebug_mcp.cli as c\n"
            f"c.main(['sweep', {str(EXAMPLES / 'warmup.csv')!r}, '--json'])\n"
            "print('HEAVY', sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'numpy', 'matplotlib', "
            "'scipy', 'pandas')), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert "HEAVY []" in proc.stderr, proc.stderr[-2000:]


def test_the_example_data_is_what_its_script_writes(tmp_path):
    script = EXAMPLES / "make_sweep.py"
    copy = tmp_path / "make_sweep.py"
    copy.write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
    subprocess.run([sys.executable, str(copy)], check=True)
    for name in ("warmup.csv", "twenty_arms.csv"):
        assert (tmp_path / name).read_text(encoding="utf-8") == (EXAMPLES / name).read_text(encoding="utf-8"), name


def test_the_example_readme_shows_the_current_output(run_cli, monkeypatch):
    """examples/sweep/README.md quotes each command with its output: they must still agree."""
    monkeypatch.chdir(EXAMPLES.parents[1])
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n\$ mldebug-mcp ([^\n]+)\n(.*?)```", readme, re.S)
    assert len(blocks) == 2
    for command, output in blocks:
        result = run_cli(*command.split())
        assert result.code == 0 and result.out == output, command
