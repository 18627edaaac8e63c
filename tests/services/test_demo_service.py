"""The demo picks a bundled example by name, never by path."""

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.demo import example_path, examples


def test_every_bundled_example_with_a_buggy_file_is_offered():
    assert "double_softmax" in examples() and example_path("double_softmax").name == "buggy.py"


@pytest.mark.parametrize("name", ["../../etc", "/etc/passwd", "double_softmax/../..", "no_such_example", ""])
def test_anything_but_a_bundled_name_is_refused_with_the_choices(name):
    with pytest.raises(UsageError, match="choose one of: .*double_softmax"):
        example_path(name)
