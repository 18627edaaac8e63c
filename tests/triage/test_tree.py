"""The decision tree: its data is sound, the walk is stateless and strict, and the playbook shows it."""

from pathlib import Path

import pytest

from mldebug_mcp.cli import docs as generated_docs
from mldebug_mcp.errors import ContentError, UsageError
from mldebug_mcp.services.triage import triage_step
from mldebug_mcp.triage.tree import (
    load_tree,
    parse_tree,
    render_tree,
    tree_problems,
    walk,
)

ROOT = Path(__file__).resolve().parents[2]
# The list of situations the tree must cover, as observation keys its answers establish.
REQUIRED = {"nan", "init_loss_high", "init_loss_low", "cannot_overfit", "flat_from_start", "plateau_at_chance",
            "explodes", "train_val_gap", "loss_metric_mismatch", "constant_outputs", "loss_zero",
            "spike_fast_recovery", "spike_slow_recovery", "spike_no_recovery"}


def test_bundled_tree_is_sound_and_covers_every_required_situation():
    tree = load_tree()
    assert tree_problems(tree) == []
    established = {a.observation for node in tree.nodes.values() for a in node.answers.values()}
    assert REQUIRED <= established
    assert "leaf-slow-healthy" in tree.leaves


def test_every_leaf_is_reachable_by_some_walk():
    tree = load_tree()
    reached = set()

    def explore(answers):
        state = walk(tree, answers)
        if state.position in tree.leaves:
            reached.add(state.position)
            return
        for label in tree.nodes[state.position].answers:
            explore({**answers, state.position: label})

    explore({})
    assert reached == set(tree.leaves)


SMALL = """
start: a
nodes:
  a:
    question: Q?
    how: look
    answers:
      "yes": {next: b, observation: nan, meaning: "m"}
      "no": {next: leaf-x, meaning: "m"}
  b:
    question: Q2?
    how: look
    answers:
      "yes": {next: a, meaning: "m"}
      "no": {next: leaf-missing, observation: not_a_key, meaning: "m"}
leaves:
  leaf-x: {title: X, advice: do x}
  leaf-unused: {title: U, advice: never}
"""


def test_tree_problems_names_cycles_dangling_links_bad_observations_and_orphans():
    problems = "\n".join(tree_problems(parse_tree(SMALL)))
    assert "b=no leads to unknown 'leaf-missing'" in problems
    assert "unknown observation 'not_a_key'" in problems
    assert "leaf-unused is never reached" in problems
    assert "cycle through a" in problems


def test_malformed_tree_is_a_content_error():
    with pytest.raises(ContentError, match="tree.yaml is malformed"):
        parse_tree("start: a\nnodes: {a: {question: q}}\nleaves: {}\n")


def test_walk_collects_observations_and_stops_at_the_first_unanswered_node():
    state = walk(load_tree(), {"crash": "no", "nan": "No", "loss-zero": "no", "init-loss": "high"})
    assert state.position == "leaf-init-high" and state.observations == ["init_loss_high"]
    state = walk(load_tree(), {"crash": "no"})
    assert state.position == "nan" and state.observations == []


def test_walk_rejects_an_answer_that_is_not_offered():
    with pytest.raises(UsageError, match=r"'maybe' to 'crash' is not one of: yes, no"):
        walk(load_tree(), {"crash": "maybe"})


def test_walk_rejects_unknown_nodes_but_reports_answers_off_the_path():
    with pytest.raises(UsageError, match="unknown tree node"):
        walk(load_tree(), {"no-such-node": "yes"})
    state = walk(load_tree(), {"crash": "yes", "nan": "no"})
    assert state.position == "leaf-crash" and state.ignored == ["nan"]


def test_triage_step_asks_then_ranks_at_the_leaf():
    first = triage_step({})
    assert not first.done and first.node == "crash" and [a.label for a in first.answers] == ["yes", "no"]
    leaf = triage_step({"crash": "no", "nan": "yes"})
    assert leaf.done and leaf.leaf_title == "Non-finite values" and leaf.observations == ["nan"]
    assert leaf.triage is not None and len(leaf.triage.hypotheses) >= 3
    assert "nan" in leaf.triage.hypotheses[0].why


def test_triage_step_at_a_leaf_without_observations_gives_advice_only():
    step = triage_step({"crash": "no", "nan": "no", "loss-zero": "no", "init-loss": "ok", "overfit": "yes",
                        "stuck": "no", "explodes": "no", "spikes": "no", "oscillates": "no",
                        "constant-outputs": "no", "gap": "similar", "metric": "no", "variance": "no"})
    assert step.done and step.node == "leaf-slow-healthy"
    assert step.observations == ["overfits_batch"] and step.triage is not None


def test_rendering_lists_every_node_once():
    headers = [line.strip() for line in render_tree(load_tree()).splitlines() if line.lstrip().startswith("[")]
    for name in load_tree().nodes:
        assert sum(h.startswith(f"[{name}] ") for h in headers) == 1


def test_playbook_tree_section_is_current():
    playbook = (ROOT / "skill" / "PLAYBOOK.md").read_text(encoding="utf-8")
    keys = generated_docs.SECTIONS_OF["skill/PLAYBOOK.md"]
    assert generated_docs.apply(playbook, keys) == playbook, "run: python -m mldebug_mcp.cli.docs"


def _path_to(tree, target):
    """Answers that reach `target` from the start (depth-first over the answers)."""
    def search(node, answers):
        if node == target:
            return answers
        if node not in tree.nodes:
            return None
        for label, answer in tree.nodes[node].answers.items():
            found = search(answer.next, {**answers, node: label})
            if found is not None:
                return found
        return None
    return search(tree.start, {})


@pytest.mark.parametrize("node", sorted(load_tree().nodes))
def test_each_node_fires_its_observation_and_stays_quiet_otherwise(node):
    tree = load_tree()
    before = _path_to(tree, node)
    assert before is not None
    baseline = walk(tree, before).observations
    for label, answer in tree.nodes[node].answers.items():
        state = walk(tree, {**before, node: label})
        added = state.observations[len(baseline):]
        assert added == ([answer.observation] if answer.observation else []), (node, label)  # fires, or stays quiet
        assert state.path[len(before)] == (node, label)


def test_an_answer_off_the_path_still_counts_as_an_observation():
    """The thin report asks the nodes that split the hypotheses best (here `gap`, far from the start);
    answering them must inform the ranking even though the walk from the start never reaches them."""
    tree = load_tree()
    state = walk(tree, {"crash": "no", "gap": "worse"})
    assert "gap" in state.ignored and "train_val_gap" in state.observations
    with pytest.raises(UsageError, match="not one of"):
        walk(tree, {"crash": "no", "gap": "sideways"})


def test_triage_step_reranks_a_description_before_reaching_a_leaf():
    from mldebug_mcp.services.triage import triage_step

    symptom = "my model does not work well"
    bare = triage_step({"crash": "no"}, symptom)
    answered = triage_step({"crash": "no", "gap": "worse"}, symptom)
    assert not answered.done and answered.triage is not None
    assert "train_val_gap" in answered.triage.observations
    assert [h.cause for h in answered.triage.hypotheses] != [h.cause for h in bare.triage.hypotheses]
    assert triage_step({"crash": "no"}).triage is None  # no description, nothing to rerank
