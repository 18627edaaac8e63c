"""What every result model shares.

Result models are plain dataclasses: building one costs nothing at start-up, while importing pydantic
alone costs about seven times a bare interpreter's start (benchmarks/startup.py), a price `lint` and
`quote` would pay on every call. Pydantic still reads them where it is already loaded (the MCP
server, JSON output): field descriptions are the attribute docstrings, so the JSON schema a client
sees is the one a pydantic model with `Field(description=...)` would give.
"""

from __future__ import annotations

import dataclasses
from functools import cache

# `use_attribute_docstrings`: the string under a field is its description in the JSON schema.
SCHEMA_CONFIG: dict[str, object] = {"use_attribute_docstrings": True}


@cache
def _adapter(cls: type):
    from pydantic import TypeAdapter  # only where structured output is wanted

    return TypeAdapter(cls)


class Model:
    """Base of the result models: a dataclass with pydantic's names for dumping and validating."""

    __pydantic_config__ = SCHEMA_CONFIG

    def model_dump(self) -> dict[str, object]:
        """The fields as plain Python values (nested models as dicts)."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    def model_dump_json(self, indent: int | None = None) -> str:
        """JSON text, with each model's own settings (NaN written as "NaN" where the model says so)."""
        return _adapter(type(self)).dump_json(self, indent=indent).decode("utf-8")

    def to_json_data(self) -> object:
        """JSON-ready values: what `model_dump_json` writes, read back (so NaN stays "NaN" where the model
        says so; pydantic's python mode would keep it a float)."""
        import json

        return json.loads(self.model_dump_json())

    @classmethod
    def model_validate(cls, data: object) -> Model:
        """Build (nested models included) from plain data, checking every field's type."""
        return _adapter(cls).validate_python(data)

    @classmethod
    def json_schema(cls) -> dict[str, object]:
        return _adapter(cls).json_schema()
