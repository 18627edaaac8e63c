"""Shared fixtures: a writable copy of the bundled content, and an in-process CLI runner."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from mldebug_mcp import cli, content


@pytest.fixture(autouse=True, scope="session")
def _private_cache_folder(tmp_path_factory):
    """The triage index cache goes to a folder of this run, never the user's own cache (subprocesses inherit it)."""
    import os

    previous = os.environ.get("MLDEBUG_CACHE_DIR")
    os.environ["MLDEBUG_CACHE_DIR"] = str(tmp_path_factory.mktemp("mldebug-cache"))
    yield
    if previous is None:
        os.environ.pop("MLDEBUG_CACHE_DIR", None)
    else:
        os.environ["MLDEBUG_CACHE_DIR"] = previous


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys):
    def run(*argv: str) -> CliResult:
        code = cli.main(list(argv))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def content_copy(tmp_path: Path) -> Path:
    """A private copy of skill/, refs/ and evidence/ that a test may break."""
    root = tmp_path / "content"
    for folder in content.FOLDERS:
        shutil.copytree(content.content_root() / folder, root / folder)
    return root


@pytest.fixture(scope="session")
def torch_import_seconds() -> float:
    """How long `import torch` takes in a fresh interpreter on this machine now: tests that give a child
    process a time limit set it from this, never from a fixed number (a loaded machine takes several times
    longer)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True, capture_output=True)
    return time.perf_counter() - started
