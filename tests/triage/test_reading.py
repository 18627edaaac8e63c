"""Reading a description: observations, concepts and stems, and code pasted into it."""

import pytest

from mldebug_mcp.models.observations import OBSERVATIONS
from mldebug_mcp.triage.code_snippets import extract_code, prose_of
from mldebug_mcp.triage.signals import PATTERNS, read_observations
from mldebug_mcp.triage.text import concepts, stem, tokens

# For every observation: a way people phrase it (fires) and a near miss that must stay quiet.
PHRASES = {
    "crash": ("it dies with RuntimeError: expected scalar type Float", "it runs fine until the end"),
    "nan": ("after 300 iterations the loss turns into nan", "the loss is finite but high"),
    "loss_zero": ("the training loss is 0.0 from the second step", "the loss is 0.05 after an epoch"),
    "init_loss_high": ("the initial loss is really huge, around 80", "the initial loss is 2.3 as expected"),
    "init_loss_low": ("the starting loss is already very low before training", "the loss starts where it should"),
    "cannot_overfit": ("it can't even overfit a single batch of 8 images", "it overfits a single batch easily"),
    "overfits_batch": ("it does overfit a single batch without trouble", "it cannot overfit a single batch"),
    "flat_from_start": ("the model doesn't learn anything at all", "the model learns well"),
    "plateau": ("loss goes down for two epochs and then plateaus at 0.9", "loss keeps going down"),
    "plateau_at_chance": ("the loss stays at 2.302 and accuracy is 10%", "the loss is 0.4 and accuracy 91%"),
    "explodes": ("after epoch 4 the loss explodes to 1e6", "the val loss increases after epoch 4"),
    "spike_fast_recovery": ("the loss spikes every few thousand steps and recovers quickly", "a smooth curve"),
    "spike_slow_recovery": ("there is a sudden jump in the loss at step 9000", "a smooth curve"),
    "spike_no_recovery": ("it jumped up and never recovered", "it jumped up and came back"),
    "oscillates": ("the loss keeps going up and down", "the loss goes down steadily"),
    "train_val_gap": ("training accuracy is 99% but validation accuracy is 60%", "train and val agree closely"),
    "val_too_good": ("validation loss is lower than training loss the whole time", "validation loss is higher than training loss"),
    "loss_metric_mismatch": ("loss decreases but accuracy stays the same", "loss decreases and accuracy rises"),
    "constant_outputs": ("the network always predicts the same class", "predictions vary sensibly"),
    "slow_healthy": ("it converges slowly but steadily", "it converges in an hour"),
    "seed_variance": ("results change a lot between runs with the same config", "one run"),
    "multi_gpu_only": ("it only breaks with DDP on 8 GPUs", "on my laptop CPU"),
    "bad_after_export": ("the exported ONNX model outputs garbage", "the model is good on held-out data"),
    "weights_load_clean": ("load_state_dict says <All keys matched successfully>", "I load the weights with strict=False"),
    "worse_after_change": ("it used to work before I upgraded transformers", "it has never worked"),
    "memory_growth": ("memory usage keeps increasing until CUDA out of memory", "memory is stable at 3 GB"),
    "gradients_vanish": ("the gradients are None for the first layers", "gradients look healthy"),
    "gradients_explode": ("the gradient norm is huge, 1e5", "the gradient norm is about 1"),
    "bad_generation": ("the fine-tuned model generates gibberish", "the fine-tuned model answers well"),
    "reward_flat": ("the PPO reward is not increasing at all", "the reward rises over training"),
}


def test_every_observation_has_patterns_and_a_phrase_test():
    assert set(PATTERNS) == set(OBSERVATIONS) == set(PHRASES)


@pytest.mark.parametrize("key", sorted(PHRASES))
def test_observation_fires_on_its_phrase(key):
    assert key in read_observations(PHRASES[key][0])


@pytest.mark.parametrize("key", sorted(PHRASES))
def test_observation_stays_quiet_on_a_near_miss(key):
    assert key not in read_observations(PHRASES[key][1])


@pytest.mark.parametrize("text", [
    "the model is about 3% worse on torch 1.11 than on torch 1.10",
    "transformers 4.29.2 reaches the accuracy, 4.30.0 does not",
    "downgrading bitsandbytes brought the old curve back",
])
def test_two_library_versions_read_as_a_change(text):
    assert "worse_after_change" in read_observations(text)


@pytest.mark.parametrize("text", [
    "with torch 2.1 the loss stays at 0.69 and then 0.7",
    "loss is 0.56 with torch and 0.75 later",
])
def test_a_version_next_to_loss_values_is_no_change(text):
    assert "worse_after_change" not in read_observations(text)


def test_contrast_words_keep_loss_and_metric_apart():
    found = read_observations("loss decreases but accuracy stays the same")
    assert "loss_metric_mismatch" in found and "flat_from_start" not in found and "plateau" not in found


def test_stems_meet_across_spelling_and_inflection():
    assert stem("normalised") == stem("normalizing") == stem("normalization")
    assert stem("overfitting") == stem("overfit") and stem("labelled") == stem("label")
    assert stem("classes") == stem("class")


def test_concepts_map_paraphrases_onto_one_token():
    for text in ("loss is stuck", "the loss won't go down", "loss plateaus", "it stays at 2.3"):
        assert "_stuck" in concepts(text), text
    assert "_stuck" not in concepts("the loss goes down nicely")
    assert "_nan" in tokens("loss becomes NaN")


def test_field_specific_metric_names_read_as_a_metric():
    for text in ("the Dice stays at 0", "WER goes up", "NDCG@10 is below the paper", "mIoU is 0.2", "MAPE is 4000%"):
        assert "_metric" in concepts(text), text
    for text in ("the error is high", "the loss went down", "my dataloader is slow"):
        assert "_metric" not in concepts(text), text


FORUM_POST = """My classifier does not learn. Code:

class Net(nn.Module):
    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)

criterion = nn.CrossEntropyLoss()
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
epoch 1 loss = 2.30
Any ideas?"""


def test_code_is_recovered_from_an_unfenced_post():
    snippets = extract_code(FORUM_POST)
    assert len(snippets) == 1 and "F.softmax" in snippets[0] and "criterion = nn.CrossEntropyLoss()" in snippets[0]


def test_fenced_code_is_preferred_and_broken_lines_are_dropped():
    text = "prose\n```python\nx = model(inp\nloss = crit(out, y)\nloss.backward()\n```\nmore prose"
    assert extract_code(text) == ["loss = crit(out, y)\nloss.backward()"]


def test_prose_only_text_has_no_code():
    assert extract_code("The loss is stuck at 2.3 = chance. Any idea why?") == []


def test_prose_keeps_the_words_and_drops_code_and_log_lines():
    prose = prose_of(FORUM_POST)
    assert "does not learn" in prose and "Any ideas?" in prose
    assert "softmax" not in prose and "epoch 1 loss" not in prose


def test_markdown_marks_do_not_hide_an_observation():
    text = "With a single `GPU` the loss is fine, but on 4 `gpus` it gets `nan`; the model **always** predicts one class."
    assert {"multi_gpu_only", "nan", "constant_outputs"} <= set(read_observations(text))


def test_removing_markdown_marks_invents_no_observation():
    assert read_observations("The `loss` goes down **steadily** and `val_acc` follows it.") == []
