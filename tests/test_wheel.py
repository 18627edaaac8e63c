"""The wheel carries the content: build it, install it in a fresh venv, run the CLI from elsewhere."""

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_installs_and_quotes_from_its_own_content(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)],
        check=True, capture_output=True, text=True,
    )
    [wheel] = dist.glob("mldebug_mcp-*.whl")
    env_dir = tmp_path / "venv"
    python = _venv_with_our_dependencies(env_dir)
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--quiet", str(wheel)],
                   check=True, capture_output=True, text=True)
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    result = subprocess.run([str(env_dir / "bin" / "mldebug-mcp"), "quote", "jones"],
                            cwd=workdir, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "\u2014 Andy Jones" in result.stdout and "[jones/assume-a-bug]" in result.stdout
    where = subprocess.run(
        [str(python), "-c", "from mldebug_mcp import content; print(content.content_root())"],
        cwd=workdir, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(env_dir), f"content came from {where}, not the installed wheel"
    audit = subprocess.run([str(env_dir / "bin" / "mldebug-mcp"), "audit"], cwd=workdir, capture_output=True, text=True)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    demo = subprocess.run([str(env_dir / "bin" / "mldebug-mcp"), "demo"], cwd=workdir, capture_output=True, text=True)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "MLD001" in demo.stdout and "FAIL  overfit_one_batch" in demo.stdout
    assert str(env_dir) in demo.stdout.splitlines()[0], "demo ran an example outside the installed wheel"
    # The triage knowledge (catalogue, tree, anti-patterns, case base) is package data: it must ship too.
    ranked = subprocess.run([str(env_dir / "bin" / "mldebug-mcp"), "triage", "--symptom",
                             "loss is nan after 300 steps with fp16", "--json"], cwd=workdir, capture_output=True, text=True)
    assert ranked.returncode == 0, ranked.stderr
    assert len(json.loads(ranked.stdout)["hypotheses"]) >= 3
    advice = subprocess.run([str(env_dir / "bin" / "mldebug-mcp"), "advice", "switch to SGD"],
                            cwd=workdir, capture_output=True, text=True)
    assert advice.returncode == 1 and "swap-optimizer" in advice.stdout


def _venv_with_our_dependencies(env_dir: Path) -> Path:
    """A venv made by the base interpreter (so it also works when the tests run inside a venv), whose
    dependencies (mcp, pydantic, markdown-it, PyYAML, psutil) come from the environment running the tests: its
    site-packages folders are appended to the new venv's path, after the venv's own, so no network is
    needed and the wheel installed into the venv is what gets imported. Lines of a .pth file only add
    folders; the .pth files inside them (such as this checkout's editable install) are not processed."""
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (Path(own) / "_test_dependencies.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    return python


@pytest.mark.slow
def test_sdist_and_wheel_pass_twine_check(tmp_path):
    # what the release workflow checks before publishing: metadata, README rendering, both archives
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--wheel", "--no-isolation", "--outdir", str(dist),
                    str(ROOT)], check=True, capture_output=True, text=True)
    archives = sorted(str(p) for p in dist.iterdir())
    assert sorted(Path(a).suffix for a in archives) == [".gz", ".whl"]
    check = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *archives],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_release_workflow_builds_and_checks_before_publishing():
    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    build, check, publish = (workflow.index(step) for step in
                             ("python -m build", "twine check --strict", "pypa/gh-action-pypi-publish"))
    assert build < check < publish
    assert "id-token: write" in workflow  # trusted publishing: no token stored in the repository
