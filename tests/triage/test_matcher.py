from mldebug_mcp.triage.catalogue import Case, load_catalogue
from mldebug_mcp.triage.matcher import CauseIndex
from mldebug_mcp.triage.text import tokens

SHARED = "the validation accuracy of my convolutional network drops sharply after the third epoch"


def _index_with(cases: list[Case]) -> CauseIndex:
    catalogue = load_catalogue()
    return CauseIndex(catalogue.model_copy(update={"cases": tuple(cases)}))


def _fits(index: CauseIndex, text: str) -> dict[str, float]:
    query = index.vector(tokens(text))
    return {cause.id: fit for cause, fit in zip(index.causes, index.case_fits(query))}


def test_the_closest_case_decides_the_case_fit():
    index = _index_with([Case(url="https://a/1", cause="overfitting", symptom=SHARED),
                         Case(url="https://b/1", cause="lr-too-high", symptom="the loss explodes to nan after a few steps")])
    fits = _fits(index, SHARED)
    assert fits["overfitting"] > fits["lr-too-high"]
    assert fits["dead-relu"] == 0.0  # a cause without cases gets no case evidence
