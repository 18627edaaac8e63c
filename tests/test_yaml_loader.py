"""The fast YAML reader gives what the pure-Python safe loader gives, on every YAML file the package reads."""

from pathlib import Path

import pytest
import yaml

from mldebug_mcp import _yaml

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted([*(ROOT / "src" / "mldebug_mcp" / "triage" / "data").rglob("*.yaml"), ROOT / "evidence" / "sources.yaml"])


def test_libyaml_is_used_where_pyyaml_has_it():
    assert _yaml._LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_data_as_the_pure_python_loader(path):
    text = path.read_text(encoding="utf-8")
    assert _yaml.safe_load(text) == yaml.load(text, Loader=yaml.SafeLoader)


def test_unsafe_tags_are_refused_and_errors_carry_the_line():
    with pytest.raises(_yaml.YAMLError):
        _yaml.safe_load("!!python/object/apply:os.system ['true']")
    with pytest.raises(_yaml.YAMLError) as info:
        _yaml.safe_load("a: 1\nb: [\n")
    assert info.value.problem_mark.line >= 1
