"""Safe YAML reading with libyaml's C loader where PyYAML was built with it (about ten times faster than
the pure-Python one on the evidence and triage data, which decides how fast `quote` starts), else the
pure-Python loader. Both read the same documents the same way."""

from __future__ import annotations

import yaml

YAMLError = yaml.YAMLError
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> object:
    return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader, C or Python
