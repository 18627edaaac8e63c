"""A report is read once into its parts; each reader of a description takes the part meant for it."""

from mldebug_mcp.services.triage import triage
from mldebug_mcp.triage.description import Description

REPORT = """My classifier's loss is stuck at 2.30 from the first epoch.
I tried lowering the learning rate, it didn't help.
epoch 3 loss: nan
```python
probs = F.softmax(model(x), dim=1)
loss = nn.CrossEntropyLoss()(probs, y)
```
"""


def test_the_parts_of_a_report():
    d = Description.read(REPORT)
    assert "stuck at 2.30" in d.told and "learning rate" not in d.told
    assert any("learning rate" in t for t in d.tried)
    assert "softmax" not in d.prose and "CrossEntropyLoss" in d.code[0]
    assert "epoch 3 loss: nan" in d.reported and "learning rate" not in d.reported  # log lines stay, tried fixes go
    assert d.given == REPORT and d.text == REPORT  # nothing to gloss in English


def test_chinese_terms_are_glossed_before_matching_but_code_is_read_as_given():
    d = Description.read("训练时 loss 变成 nan\n```python\nx = torch.log(p)\ny = x.sum()\n```")
    assert "nan" in d.text and d.text != d.given
    assert d.code and "torch.log" in d.code[0]


def test_a_tried_fix_is_no_evidence_and_logged_values_are():
    # "nan" is read from the log line; the tried fix names dropout, which is not an observation of the run
    result = triage("Validation is fine. I tried adding dropout, it didn't help.\nstep 400 loss: nan")
    assert "nan" in result.read_from_text
    assert result.lint_codes == []
    coded = triage(REPORT)
    assert "MLD001" in coded.lint_codes


def test_the_persons_guess_at_the_cause_is_not_matched_against_the_catalogue():
    """What a person suspects ("I think the model is overfitting") is what triage should test, not echo: the A/B
    benchmark's complaints each carry such a guess, and matched as evidence it ranked the guess first."""
    report = ("Val accuracy 0.985, test month 0.21. I think the model is overfitting to product names. "
              "It looks like exploding gradients to me. The loss is 2.3 from the start.")
    told = Description.read(report).told
    assert "overfitting" not in told and "exploding" not in told
    assert "Val accuracy 0.985" in told and "from the start" in told
    assert "overfitting" in Description.read(report).prose  # kept for everything else that reads the prose


def test_a_guess_names_no_keyword_either():
    """Left out of the matched prose, a guess must not come back through the keyword score, which reads the whole
    text: triage cited "it mentions exploding" for "It looks like exploding gradients to me" (A/B task t08)."""
    steady = "Training is unstable: the step loss jumps from 1.2 to 3e6 and back, and the hold-out error swings."
    guessed = triage(steady + " It looks like exploding gradients to me.", limit=10)
    why = {h.cause: h.why for h in guessed.hypotheses}
    assert "exploding" not in why.get("exploding-gradients", "")
    assert Description.read(steady + " It looks like exploding gradients to me.").guesses
    stated = triage(steady + " The gradients are exploding: the norm grows to 1e4.", limit=10)
    assert "exploding" in {h.cause: h.why for h in stated.hypotheses}["exploding-gradients"]


def test_the_pasted_code_and_logs_are_kept_apart_from_the_prose():
    d = Description.read(REPORT)
    assert "softmax" in d.pasted and "CrossEntropyLoss" in d.pasted
    assert "stuck at 2.30" not in d.pasted and "learning rate" not in d.pasted
    logged = Description.read("The loss goes nowhere.\nepoch 1 loss 2.3026\nepoch 2 loss 2.3025")
    assert "epoch 2 loss 2.3025" in logged.pasted and "epoch 2" not in logged.prose


def test_tried_fixes_and_pasted_code_add_their_words_once_and_never_the_guesses():
    """What was tried and what was pasted say which part of the pipeline is in play: their words join the matched
    words once each (a long paste cannot outweigh the prose), never a concept token, never a word of a guess."""
    from mldebug_mcp.triage.matcher import aside_words
    from mldebug_mcp.triage.text import tokens

    report = REPORT + "I think the tokenizer is broken.\n" + "\n".join(["probs = F.softmax(logits, dim=1)"] * 20)
    d = Description.read(report)
    prose = set(tokens(d.told))
    aside = aside_words(d, prose)
    assert "softmax" in aside and "learn" in aside  # the pasted code, the tried learning-rate change
    assert len(aside) == len(set(aside)) and not prose & set(aside)
    assert not any(t.startswith("_") for t in aside)
    assert "token" not in aside and "tokenis" not in aside  # the guess stays out
