"""Ranking: priors moved by the description, the observations, lint and the domain; the triplet rule."""

import math

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage import ranking
from mldebug_mcp.triage.catalogue import load_catalogue
from mldebug_mcp.triage.description import Description
from mldebug_mcp.triage.matcher import bundled_index


def _ids(result, n=3):
    return [h.cause for h in result.hypotheses[:n]]


def test_every_answer_holds_three_different_causes_a_subtle_one_and_the_null():
    for symptom in ("loss is nan after a few steps", "val accuracy much worse than train", "nothing"):
        result = triage(symptom)
        causes = [h.cause for h in result.hypotheses]
        assert len(set(causes)) == len(causes) >= 3
        roles = [h.role for h in result.hypotheses]
        assert "subtle" in roles and "null" in roles
        weights = [h.weight for h in result.hypotheses]
        assert weights == sorted(weights, reverse=True)


def test_observations_alone_move_the_ranking():
    base = triage(observations=["flat_from_start"])
    nan = triage(observations=["nan"])
    assert _ids(base) != _ids(nan)
    assert any(h.cause in ("unsafe-math", "fp16-range", "corrupt-or-nan-data", "lr-too-high") for h in nan.hypotheses[:3])


def test_a_contradicting_observation_costs_exactly_its_factor():
    catalogue = load_catalogue()
    contradicted = next(c for c in catalogue.causes.values() if "overfits_batch" in c.contradicts)
    text = "the loss does not go down"

    def log_weight(stated):
        scored = ranking.score_causes(catalogue, bundled_index(), Description.read(text), stated, [], [], [])
        return next(s.log_weight for s in scored if s.cause.id == contradicted.id)

    drop = log_weight([]) - log_weight(["overfits_batch"])
    assert drop == pytest.approx(-math.log(ranking.CONTRADICT_FACTOR))


def test_code_in_the_description_is_linted_and_the_finding_counts():
    text = ("my classifier is stuck at chance\n"
            "criterion = nn.CrossEntropyLoss()\nout = F.softmax(model(x), dim=1)\nloss = criterion(out, y)\nloss.backward()\n")
    result = triage(text)
    assert "MLD001" in result.lint_codes
    assert result.hypotheses[0].cause == "double-softmax"
    assert "lint found MLD001" in result.hypotheses[0].why


def test_domain_words_bring_domain_causes_forward_and_their_absence_holds_them_back():
    llm = triage("after fine-tuning llama with LoRA the model never stops generating")
    assert llm.domains == ["llm"] and load_catalogue().causes[llm.hypotheses[0].cause].category == "llm"
    plain = triage("my CNN's loss is stuck from the start")
    assert not plain.domains
    assert all(load_catalogue().causes[c].category not in ("llm", "rl", "pinn") for c in _ids(plain))


@pytest.mark.parametrize("symptom, expected", [
    ("I forgot to call optimizer.zero_grad() and the loss goes up", "missing-zero-grad"),
    ("training loss is exactly 0 from the first step when fine-tuning with SFTTrainer", "labels-all-masked"),
    ("test accuracy is 99.9%, too good to be true, I scaled with StandardScaler before train_test_split", "train-test-leakage"),
    ("NaN loss with fp16 autocast after 2000 steps, fine in fp32", "fp16-range"),
    ("the model always predicts the majority class, 95% of my labels are 0", "class-imbalance"),
    ("my validation set uses the training transform with RandomResizedCrop and flips, and val accuracy is noisy and "
     "below training", "validation-data-augmented"),
    ("my PPO agent learns on PongNoFrameskip-v4 but not on Pong-v0 with the same hyperparameters", "env-setup-differs"),
])
def test_textbook_descriptions_put_their_cause_in_the_top_three(symptom, expected):
    assert expected in _ids(triage(symptom)), _ids(triage(symptom), 5)


@pytest.mark.parametrize("symptom, absent", [
    ("the validation accuracy is 99.9% while training is 80%; the same patients are in both splits", "validation-data-augmented"),
    ("my PPO agent's value loss goes to NaN after an hour; the reward is huge, in the thousands", "env-setup-differs"),
])
def test_a_cause_stays_out_of_the_top_five_for_another_failure(symptom, absent):
    assert absent not in _ids(triage(symptom, limit=5), 5)


def test_weights_are_a_distribution_over_the_catalogue():
    catalogue = load_catalogue()
    scored = ranking.score_causes(catalogue, bundled_index(), Description.read("loss is nan"), [], ["nan"], [], [])
    assert sum(s.weight for s in scored) == pytest.approx(1.0)
    assert len(scored) == len(catalogue.causes)


def test_result_carries_tests_tool_calls_and_quotes():
    result = triage("loss stuck at 2.30 with 10 classes")
    for h in result.hypotheses:
        assert h.test and h.if_cause and h.if_not and h.fix and h.evidence
        assert all(q.author and q.url and q.text for q in h.evidence)
    assert result.next_test


@pytest.mark.parametrize("kwargs, message", [
    ({}, "describe the problem"),
    ({"symptom": "   "}, "describe the problem"),
    ({"observations": ["not_a_key"]}, "unknown observation"),
    ({"symptom": "x", "limit": 0}, "limit must be between 1 and 20"),
    ({"symptom": "x" * 60_000}, "keep it under"),
])
def test_bad_requests_name_the_problem_and_the_fix(kwargs, message):
    with pytest.raises(UsageError, match=message):
        triage(**kwargs)
