"""The example pairs in examples/: each spec builds and runs, and the linter sees what the README says.

The mapping below is the README table's lint column; a test keeps the two in sync.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"

# example folder -> the lint rules buggy.py triggers (exactly these); clean.py triggers none
LINT_RULES: dict[str, tuple[str, ...]] = {
    "double_softmax": ("MLD001", "MLD020"),
    "view_not_transpose": ("MLD040",),
    "missing_causal_mask": (),
    "leaky_normalisation": ("MLD051",),
    "detached_features": (),
    "dropout_in_eval": ("MLD023",),
    "mse_broadcast": ("MLD005",),
    "missing_zero_grad": ("MLD010",),
    "unscaled_pixels": (),
    "all_labels_masked": (),
}
VARIANTS = ("buggy", "clean")
FILES = [(slug, variant) for slug in LINT_RULES for variant in VARIANTS]


def _path(slug: str, variant: str) -> Path:
    return EXAMPLES_DIR / slug / f"{variant}.py"


def _load(slug: str, variant: str):
    spec = importlib.util.spec_from_file_location(f"_example_{slug}_{variant}", _path(slug, variant))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _call(model, inputs):
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, (tuple, list)):
        return model(*inputs)
    return model(inputs)


@pytest.fixture(scope="module")
def lint_codes() -> dict[tuple[str, str], set[str]]:
    """Rule codes per file, from one `mldebug-mcp lint` process per file, run side by side."""
    procs = {
        key: subprocess.Popen([sys.executable, "-m", "mldebug_mcp", "lint", "--format", "json", str(_path(*key))],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for key in FILES
    }
    codes = {}
    for key, proc in procs.items():
        out, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, 1), f"lint failed on {_path(*key)}: {err}"
        codes[key] = {finding["code"] for finding in json.loads(out)}
    return codes


def test_every_example_folder_is_covered():
    """Every bug example (a folder with buggy.py and clean.py) is in the lint mapping; the other folders show
    one tool each (sweep tables, distributed runs) and say how to run it in their README."""
    folders = [p for p in EXAMPLES_DIR.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
    bug_pairs = {p.name for p in folders if (p / "buggy.py").exists()}
    assert bug_pairs == set(LINT_RULES)
    tool_examples = [p for p in folders if p.name not in bug_pairs]
    assert all((p / "README.md").exists() for p in tool_examples if any(p.iterdir()))


def test_readme_table_matches_the_lint_mapping():
    rows = re.findall(r"^\| `(\w+)` \|[^|]*\| ([^|]+) \|", (EXAMPLES_DIR / "README.md").read_text(), re.MULTILINE)
    table = {slug: tuple(c.strip() for c in rules.split(",") if c.strip() != "none") for slug, rules in rows}
    assert table == LINT_RULES


@pytest.mark.parametrize(("slug", "variant"), FILES)
def test_files_mark_the_bug_and_the_fix(slug, variant):
    text = _path(slug, variant).read_text()
    assert ("# BUG:" in text) == (variant == "buggy")
    assert ("# FIX:" in text) == (variant == "clean")
    assert 'if __name__ == "__main__":' in text


@pytest.mark.parametrize(("slug", "variant"), FILES)
def test_debug_spec_builds_and_the_loss_runs(slug, variant):
    module = _load(slug, variant)
    spec = module.debug_spec()
    assert isinstance(spec, dict)
    assert {"model", "batch", "loss_fn", "task"} <= set(spec)
    assert isinstance(spec["model"], torch.nn.Module)
    if spec["task"] == "classification":
        assert "num_classes" in spec
    if spec["task"] == "lm":
        assert "vocab_size" in spec
    inputs, targets = spec["batch"]
    model = spec["model"]
    model.eval()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # mse_broadcast's buggy loss warns about sizes, by design
        loss = spec["loss_fn"](_call(model, inputs), targets)
    assert isinstance(loss, torch.Tensor) and loss.ndim == 0
    if variant == "clean":
        assert torch.isfinite(loss)
    if "train_step" in spec:  # the step the script trains with must run on the spec's batch
        model.train()
        step_loss = spec["train_step"](model, spec["batch"], spec["optimizer"](model.parameters()))
        assert torch.isfinite(torch.as_tensor(step_loss))
    if "preprocess" in spec:
        train, test = spec["preprocess"](inputs, spec["val_batch"][0])
        assert train.shape == inputs.shape and test.shape == spec["val_batch"][0].shape


@pytest.mark.parametrize("slug", list(LINT_RULES))
def test_lint_flags_the_buggy_file_and_not_the_clean_one(slug, lint_codes):
    assert lint_codes[slug, "buggy"] == set(LINT_RULES[slug])
    assert lint_codes[slug, "clean"] == set()


# example folder -> the diagnose check that must fire on buggy.py (README's diagnose column)
DIAGNOSE_CHECK: dict[str, str] = {
    "double_softmax": "overfit_one_batch",
    "view_not_transpose": "batch_independence",
    "missing_causal_mask": "causality",
    "leaky_normalisation": "leakage",
    "detached_features": "gradient_flow",
    "dropout_in_eval": "train_eval_modes",
    "mse_broadcast": "odd_shapes",
    "missing_zero_grad": "parameter_updates",
    "unscaled_pixels": "batch_sanity",
    "all_labels_masked": "batch_sanity",
}


def test_diagnose_mapping_covers_every_example_and_matches_the_readme():
    assert set(DIAGNOSE_CHECK) == set(LINT_RULES)
    readme = (EXAMPLES_DIR / "README.md").read_text(encoding="utf-8")
    for slug, check in DIAGNOSE_CHECK.items():
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{slug}`"))
        assert row.split("|")[4].strip().startswith(f"`{check}`"), row


@pytest.mark.slow
@pytest.mark.parametrize("slug", sorted(DIAGNOSE_CHECK))
def test_diagnose_catches_the_bug_and_passes_the_fix(slug):
    from mldebug_mcp.diagnostics.checks import run_checks

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the buggy scripts provoke PyTorch's own warnings on purpose
        buggy = {c["id"]: c["status"] for c in run_checks(_load(slug, "buggy").debug_spec())["checks"]}
        clean = run_checks(_load(slug, "clean").debug_spec())
    assert buggy[DIAGNOSE_CHECK[slug]] in ("warn", "fail")
    alarms = {c["id"]: c["summary"] for c in clean["checks"] if c["status"] in ("warn", "fail")}
    assert alarms == {}
