"""`mldebug-mcp landscape`: a tiny MLP probed end to end in a child process, with and without a checkpoint,
and clear errors for bad input (unknown function, missing or unreadable checkpoint, invalid options)."""

from __future__ import annotations

import json
import textwrap

import pytest

torch = pytest.importorskip("torch")

SPEC = textwrap.dedent('''
    import torch
    import torch.nn.functional as F


    def build():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))


    def debug_spec():
        torch.manual_seed(1)
        x = torch.randn(48, 6)
        y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
        return {"model": build(), "batch": (x, y), "loss_fn": F.cross_entropy, "task": "classification",
                "num_classes": 3}
''')
QUICK = ("--points", "11", "--grid", "7", "--power-iterations", "10", "--budget", "20")


@pytest.fixture
def setup(tmp_path, monkeypatch):
    (tmp_path / "mlp.py").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    return tmp_path


def _trained_checkpoint(folder):
    namespace: dict = {}
    exec(SPEC, namespace)
    spec = namespace["debug_spec"]()
    model, (x, y) = spec["model"], spec["batch"]
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(60):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    path = folder / "trained.pt"
    torch.save({"epoch": 3, "model_state_dict": model.state_dict()}, path)
    with torch.no_grad():
        return path, torch.nn.functional.cross_entropy(model(x), y).item()


def test_json_report_and_plots_of_a_tiny_mlp(setup, run_cli):
    pytest.importorskip("matplotlib")
    result = run_cli("landscape", "mlp.py:debug_spec", "--json", "--plot", str(setup / "plots"), *QUICK)
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["verdict"] in ("minimum", "slope", "plateau", "saddle", "unclear")
    assert [line["direction"] for line in report["lines"]] == ["random_1", "random_2", "gradient"]
    assert report["surface"]["size"] == 7 and len(report["surface"]["losses"]) == 7
    assert report["sharpness"]["lambda_max"] > 0 and report["checkpoint"] is None
    assert report["parameters"] == 6 * 16 + 16 + 16 * 3 + 3 and report["perturbed"] == 6 * 16 + 16 * 3
    assert sorted(p.name for p in (setup / "plots").iterdir()) == ["landscape_1d.png", "landscape_2d.png"]
    # an untrained network: the gradient is the way down
    assert report["verdict"] == "slope", report["reason"]


def test_a_checkpoint_is_loaded_before_probing(setup, run_cli):
    path, trained_loss = _trained_checkpoint(setup)
    result = run_cli("landscape", "mlp.py:debug_spec", "--checkpoint", str(path), "--directions", "1", *QUICK)
    assert result.code == 0, result.err
    assert f"with {path}" in result.out
    loss = float(result.out.split("loss ", 1)[1].split()[0])
    assert loss == pytest.approx(trained_loss, rel=1e-4)


def test_an_unknown_function_says_what_the_file_has(setup, run_cli):
    result = run_cli("landscape", "mlp.py:no_such_spec", *QUICK)
    assert result.code == 2
    assert "has no attribute 'no_such_spec'" in result.err and "debug_spec" in result.err


def test_a_missing_file_is_refused_before_anything_runs(setup, run_cli):
    result = run_cli("landscape", "missing.py:debug_spec")
    assert result.code == 2 and "no such file: missing.py" in result.err


def test_a_missing_checkpoint_is_refused_before_anything_runs(setup, run_cli):
    result = run_cli("landscape", "mlp.py:debug_spec", "--checkpoint", "nowhere.pt")
    assert result.code == 2 and "no such checkpoint: nowhere.pt" in result.err


def test_a_pickled_model_is_not_a_weights_only_checkpoint(setup, run_cli):
    torch.save(torch.nn.Linear(2, 2), setup / "pickled.pt")
    result = run_cli("landscape", "mlp.py:debug_spec", "--checkpoint", "pickled.pt", *QUICK)
    assert result.code == 2
    assert "weights_only=True" in result.err and "state_dict" in result.err


@pytest.mark.parametrize(("option", "message"), [
    (("--points", "3"), "points must be between 5"),
    (("--budget", "200"), "below the timeout"),
    (("--timeout", "30", "--budget", "30"), "below the timeout"),
    (("--span", "0"), "span must be in"),
])
def test_invalid_options_are_usage_errors(setup, run_cli, option, message):
    result = run_cli("landscape", "mlp.py:debug_spec", *option)
    assert result.code == 2 and message in result.err


def test_a_target_without_function_is_a_usage_error(setup, run_cli):
    result = run_cli("landscape", "mlp.py")
    assert result.code == 2 and "no ':FUNCTION' part" in result.err
