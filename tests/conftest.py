"""Shared fixtures: a writable copy of the bundled content, and an in-process CLI runner."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from mldebug_mcp import cli, content


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
