import os

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.paths import ENV_VAR, AllowedDirs


@pytest.fixture
def tree(tmp_path):
    allowed = tmp_path / "allowed"
    (allowed / "sub").mkdir(parents=True)
    (allowed / "sub" / "train.py").write_text("x = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("s = 2\n")
    (allowed / "escape").symlink_to(outside)
    (allowed / "inner-link").symlink_to(allowed / "sub")
    return allowed, outside


def test_paths_inside_are_resolved(tree):
    allowed, _ = tree
    guard = AllowedDirs.from_config([str(allowed)])
    assert guard.check(str(allowed / "sub" / "train.py")) == (allowed / "sub" / "train.py").resolve()
    assert guard.check("sub/train.py") == (allowed / "sub" / "train.py").resolve()  # relative to the first root
    assert guard.check("inner-link/train.py") == (allowed / "sub" / "train.py").resolve()  # symlink staying inside


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("sub/../sub/train.py", "contains '..'"),
        ("escape/secret.py", "symlink"),
        ("", "empty path"),
        ("a\x00b", "NUL byte"),
    ],
)
def test_bad_paths_are_refused_with_the_reason(tree, path, fragment):
    allowed, _ = tree
    with pytest.raises(UsageError, match=fragment):
        AllowedDirs.from_config([str(allowed)]).check(path)


def test_outside_path_names_the_flag_that_would_allow_it(tree):
    allowed, outside = tree
    with pytest.raises(UsageError) as info:
        AllowedDirs.from_config([str(allowed)]).check(str(outside / "secret.py"))
    assert "outside the allowed directories" in str(info.value)
    assert f"--allow-dir {outside.resolve()}" in str(info.value)


def test_configuration_order_flag_then_environment_then_cwd(tree, monkeypatch):
    allowed, outside = tree
    env = {ENV_VAR: f"{outside}{os.pathsep}{allowed}"}
    assert AllowedDirs.from_config([str(allowed)], env).roots == (allowed.resolve(),)
    assert AllowedDirs.from_config(None, env).roots == (outside.resolve(), allowed.resolve())
    monkeypatch.chdir(allowed)
    assert AllowedDirs.from_config(None, {}).roots == (allowed.resolve(),)


def test_missing_allowed_directory_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="not an existing folder"):
        AllowedDirs.from_config([str(tmp_path / "absent")])
