"""The output schema a client sees is the result dataclass's own: what pydantic reads off the dataclass and
what the SDK reads off the model made for it agree, for every result model."""

import pytest

from mldebug_mcp.models import FAMILY_OF
from mldebug_mcp.models.base import Model
from mldebug_mcp.server.common import field_docstrings, output_model

RESULTS = ["QuoteResult", "SourceList", "ReferenceSection", "LintReport", "RuleInfo", "DiagnosticReport",
           "TriageResult", "TriageStep", "AdviceReport", "CurveReport"]


@pytest.mark.parametrize("name", RESULTS)
def test_the_output_model_has_the_dataclass_schema(name):
    import mldebug_mcp.models as models

    result = getattr(models, name)
    assert output_model(result).model_json_schema() == result.json_schema()


def test_field_docstrings_are_what_pydantic_reads():
    import mldebug_mcp.models as models

    for name in FAMILY_OF:
        cls = getattr(models, name)
        described = {k: v["description"] for k, v in cls.json_schema()["properties"].items() if "description" in v}
        assert field_docstrings(cls) == described, name


def test_every_result_model_round_trips_through_json():
    import mldebug_mcp.models as models

    quote = models.Quote(id="a/b", source="a", author="A", title="T", year="2020", url="u", locator="l", text="x")
    result = models.QuoteResult(query="key=a", quotes=[quote])
    assert isinstance(result, Model)
    assert models.QuoteResult.model_validate(result.to_json_data()) == result
    assert result.model_dump()["quotes"][0]["claims"] == []
