"""check_advice: every anti-pattern fires on its paraphrases and stays quiet on correct advice."""

import pytest

from mldebug_mcp.errors import ContentError, UsageError
from mldebug_mcp.services.evidence import load_store
from mldebug_mcp.triage.advice import (
    check_advice,
    load_antipatterns,
    parse_antipatterns,
    sentence_hits,
)

FIRES: dict[str, list[str]] = {
    "tune-before-correct": [
        "Try lowering the learning rate to 1e-5 and rerun.",
        "I'd cut the LR by a factor of ten; 3e-3 is aggressive for this model.",
        "Your learning rate looks too high for a transformer this size.",
        "Bump the batch size to 512 so the gradient is less noisy.",
        "Do a quick hyperparameter sweep over weight decay and dropout.",
        "A smaller step size would probably fix the oscillation.",
        "It could be the learning rate: try 1e-4 and compare.",
        "```python\noptimizer = torch.optim.Adam(model.parameters(), lr=1e-5)  # was 1e-3\n```",
        "```python\nfor group in optimizer.param_groups:\n    group['lr'] = 1e-5\n```",
    ],
    "try-except-training": [
        "Wrap the training loop in try/except so a single bad batch cannot kill the run.",
        "Put the forward and backward pass inside a try-catch and move on when it throws.",
        "Catch the RuntimeError and skip that batch.",
        "Just skip any batches that raise a CUDA error.",
        ("```python\nfor xb, yb in loader:\n    try:\n        loss = loss_fn(model(xb), yb)\n        loss.backward()\n"
         "        optimizer.step()\n    except RuntimeError:\n        continue\n```"),
        "try:\n    loss = criterion(net(inputs), targets)\n    loss.backward()\nexcept Exception:\n    pass",
    ],
    "swap-optimizer": [
        "Switch to SGD with momentum 0.9.",
        "Use AdamW instead; plain Adam handles weight decay badly.",
        "Try a different optimiser, maybe RMSprop.",
        "Swap Adam for Lion and compare the curves.",
        "```python\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)\n```",
    ],
    "detach-to-silence": [
        "Add .detach() to the encoder output and the error goes away.",
        "Call .item() on the tensor before you add it to the loss.",
        "Wrap that part in torch.no_grad() and the in-place error disappears.",
        "Detach it before the second backward call.",
        "```python\nfeatures = encoder(x).detach()\nloss = criterion(head(features), y)\n```",
        "```python\nloss = criterion(logits.detach(), y)\n```",
    ],
    "scheduler-as-fix": [
        "Add a ReduceLROnPlateau scheduler so the rate drops when the loss stalls.",
        "Use cosine decay to help it converge.",
        "A one-cycle schedule should get it unstuck.",
        "Decay the learning rate by 10x every 30 epochs.",
        "```python\nscheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)\n```",
    ],
    "bigger-model-first": [
        "Add more layers; the network is too shallow to fit this.",
        "Use a bigger model, say ResNet-50 rather than ResNet-18.",
        "Double the hidden size to 1024.",
        "Make the network deeper and wider.",
        "The network is probably too shallow for data like this.",
        "```python\nmodel = MLP(hidden_dim=1024, n_layers=8)  # was 256 and 2\n```",
    ],
    "normalise-unchecked": [
        "Normalize your inputs to zero mean and unit variance.",
        "Add BatchNorm after every conv layer.",
        "Standardise the features with a StandardScaler before training.",
        "Divide the pixel values by 255.",
        "```python\nx = (x - x.mean()) / x.std()\n```",
        "```python\ntfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])\n```",
    ],
    "cast-to-silence": [
        "Cast the inputs to float32 and the warning goes away.",
        "Just call .double() on the targets.",
        "Convert everything to float64 so the types agree.",
        "Use .astype(np.float32) on the array before making the tensor.",
        "```python\nx = x.to(torch.float32)\n```",
        "```python\ny = y.float()\n```",
    ],
    "clip-without-logging": [
        "Clip the gradients to norm 1.0.",
        "Add gradient clipping; the spikes will stop.",
        "Use clip_grad_norm_ with max_norm=1.",
        "```python\nloss.backward()\ntorch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\noptimizer.step()\n```",
        "```python\ntrainer = pl.Trainer(max_epochs=10, gradient_clip_val=0.5)\n```",
    ],
    "one-seed-victory": [
        "It worked with seed 42, so the bug is fixed.",
        "One run shows the new loss is better.",
        "With seed 0 the accuracy is 2 points higher, so keep the change.",
        "In a single run the fix improved validation loss by 5%.",
        "```python\ntorch.manual_seed(1234)  # this seed works\n```",
    ],
    "many-changes-at-once": [
        "I changed the lr, the batch size and the optimizer.",
        "Lower the learning rate, double the batch size and add dropout, then retrain.",
        "Change the learning rate and the warmup together in the next run.",
        "Apply all of these fixes at once and rerun.",
        "Switch to AdamW, turn on augmentation and increase the weight decay.",
    ],
}

QUIET: dict[str, list[str]] = {
    "tune-before-correct": [
        "Don't lower the learning rate yet: overfit one batch of eight examples first.",
        "Once the model can memorise a single batch and the initial loss is near ln(10), tune the learning rate.",
        "The paper trains with a learning rate of 3e-4 and a batch size of 256.",
        "Lowering the learning rate won't repair a sign error in the loss.",
        "Tune the learning rate last, after the model beats the constant-prediction baseline.",
        "The model already overfits one batch, so a larger batch size is a fair next experiment.",
        "```python\noptimizer = torch.optim.Adam(model.parameters(), lr=3e-4)\n```",
    ],
    "try-except-training": [
        "Don't wrap the step in try/except; let it crash and read the traceback.",
        "Remove the try/except around loss.backward() so the real error surfaces.",
        "A try/except that catches KeyboardInterrupt, saves a checkpoint and re-raises is fine.",
        ("```python\nfor xb, yb in loader:\n    try:\n        loss = loss_fn(model(xb), yb)\n        loss.backward()\n"
         "    except KeyboardInterrupt:\n        save_checkpoint(model)\n        raise\n```"),
        "```python\ntry:\n    import wandb\nexcept ImportError:\n    wandb = None\n```",
    ],
    "swap-optimizer": [
        "Instead of switching optimiser, find out why Adam cannot fit one batch.",
        "Don't swap the optimizer while you are still debugging.",
        "The reference implementation used SGD with momentum, and we match it.",
        "Keep Adam at 3e-4 rather than moving to SGD.",
        "```python\noptimizer = torch.optim.Adam(model.parameters(), lr=3e-4)\n```",
    ],
    "detach-to-silence": [
        "Remove the .detach() on the logits; it cuts the gradient to the encoder.",
        "Use torch.no_grad() in the evaluation loop.",
        "For logging, use loss.item() so the graph is not kept alive.",
        "Detach the hidden state between chunks, as truncated BPTT requires.",
        "```python\nrunning_loss += loss.item()\n```",
        "```python\ntarget = reward + gamma * next_q.detach()\n```",
        ("```python\nwith torch.no_grad():  # frozen pretrained backbone\n    feats = backbone(xb)\n"
         "loss = loss_fn(head(feats), yb)\n```"),
    ],
    "scheduler-as-fix": [
        "The learning rate schedule in the paper is cosine.",
        "The fix is a constant LR, not a scheduler.",
        "Once it learns at a constant rate, add cosine annealing for the last few points.",
        "Don't add a scheduler to a run that cannot learn at a constant rate.",
        ("```python\noptimizer = torch.optim.Adam(model.parameters(), lr=3e-4)\n"
         "# add an lr scheduler later, once it learns\n```"),
    ],
    "bigger-model-first": [
        "Don't add more layers until one batch overfits.",
        "I would not reach for a bigger model here.",
        "It can already overfit a single batch, so a wider network is a fair thing to try on the full set.",
        "The baseline has a deeper encoder than ours, which explains part of the gap.",
        "After you have confirmed it memorises 16 examples, try increasing the width.",
    ],
    "normalise-unchecked": [
        "Print the per-feature mean and std of a batch; if the std is far from 1, normalise the inputs.",
        "The data is already normalised by the dataset class, so normalising again would scale it twice.",
        "Don't add normalisation blindly; look at a batch first.",
        "We normalise the images with the ImageNet statistics, as in the paper.",
        ("```python\nprint(x.mean(0), x.std(0))  # look before changing anything\n"
         "tfm = transforms.Normalize(mean, std)\n```"),
    ],
    "cast-to-silence": [
        "Trace where the float64 comes from (probably np.load) and fix the dtype at the source.",
        "Print x.dtype at each stage of the pipeline to see where it turns into float64.",
        "Don't cast to float32 to make the error disappear; find which stage produces float64.",
        "Use mixed precision with autocast rather than casting by hand.",
        "```python\nimages = images.float() / 255.0\n```",
    ],
    "clip-without-logging": [
        "Clip gradients at 1.0 and log the pre-clip norm every step.",
        "Gradient clipping won't fix this; find what drives the norm up.",
        "Log the gradient norm before clipping so you can see whether clipping fires on every step.",
        "PPO clips the probability ratio at 0.2; that is part of the algorithm.",
        ("```python\nloss.backward()\nnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
         "logger.log({'grad_norm': norm.item()})\noptimizer.step()\n```"),
    ],
    "one-seed-victory": [
        "Run five seeds of each arm before you believe the gain.",
        "Set the seed to 0 for reproducibility.",
        "One run shows nothing; the difference could be seed noise.",
        "Compare several seeds of the old and the new config in pairs.",
        "```python\ntorch.manual_seed(0)  # reproducible debugging\n```",
    ],
    "many-changes-at-once": [
        "Change one thing per run: first the learning rate, then, separately, the batch size.",
        "Run an ablation that changes the lr, the batch size and the optimizer one at a time.",
        "Check the data, the loss and the learning rate before changing anything.",
        "Don't change the lr, the batch size and the optimizer in one run.",
        "We use lr 3e-4, batch size 64 and AdamW, as in the reference.",
    ],
}

AGENT_ANSWER = """\
Your loss is stuck at 2.30, which usually means the learning rate is too high for this setup.

Here is what I would do:

1. Lower the learning rate to 1e-4 and switch the optimiser to SGD with momentum, which tends to
   generalise better.
2. Add BatchNorm after each linear layer so the activations stay well scaled.
3. Wrap the step in a try/except so the occasional NaN batch does not crash the run:

```python
for xb, yb in loader:
    try:
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
    except RuntimeError:
        continue
```

After these changes my last run reached 91% with seed 42, so this should work for you as well.
"""

GOOD_ANSWER = """\
Before changing any hyperparameter, find out whether the code is correct.

1. Overfit one small batch: take 8 examples and train on them alone for a few hundred steps. The loss
   should go to nearly zero; if it does not, there is a bug in the model, the loss or the data path.
2. Check the loss at initialisation. With 10 balanced classes it should be close to ln(10) = 2.30; a
   very different value points at the output layer or the loss function.
3. Look at a batch right before it enters the model: print its shape, dtype, per-feature mean and
   standard deviation, and a few labels.
4. Only once those checks pass, tune the learning rate, one change per run, over three seeds.

```python
xb, yb = next(iter(train_loader))
print(xb.shape, xb.dtype, xb.mean(0), xb.std(0), yb[:8])
for step in range(300):
    optimizer.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    optimizer.step()
print(loss.item())
```
"""


def _ids(text: str) -> list[str]:
    return [finding.id for finding in check_advice(text).findings]


@pytest.mark.parametrize(("pattern_id", "text"), [(k, t) for k, texts in FIRES.items() for t in texts])
def test_fires(pattern_id, text):
    assert pattern_id in _ids(text)


@pytest.mark.parametrize(("pattern_id", "text"), [(k, t) for k, texts in QUIET.items() for t in texts])
def test_stays_quiet(pattern_id, text):
    assert pattern_id not in _ids(text)


def test_every_antipattern_has_three_firing_and_three_quiet_texts():
    for item in load_antipatterns():
        assert len(FIRES.get(item.id, [])) >= 3, item.id
        assert len(QUIET.get(item.id, [])) >= 3, item.id


def test_agent_answer_gives_exactly_its_antipatterns():
    report = check_advice(AGENT_ANSWER)
    assert [f.id for f in report.findings] == [
        "tune-before-correct", "swap-optimizer", "normalise-unchecked", "try-except-training", "one-seed-victory",
    ]
    assert not report.clean and report.text_chars == len(AGENT_ANSWER)
    first = report.findings[0]
    assert first.matched == "learning rate is too high" and first.line == 1 and first.further_occurrences == 1
    try_except = next(f for f in report.findings if f.id == "try-except-training")
    assert try_except.further_occurrences == 1  # the prose line and the code block
    assert try_except.evidence == ["karpathy-recipe/fails-silently", "spinningup/broken-rl-code-fails-silently"]


def test_good_debugging_answer_is_clean():
    report = check_advice(GOOD_ANSWER)
    assert report.findings == [] and report.clean


def test_matched_is_the_input_snippet_with_its_line():
    text = "The loss is flat.\nMaybe   it helps to\nswitch to   SGD here."
    finding = check_advice(text).findings[0]
    assert (finding.id, finding.matched, finding.line) == ("swap-optimizer", "switch to SGD", 3)


def test_long_match_is_trimmed():
    text = "loss = criterion(" + "scale * " * 30 + "logits.detach(), y)"
    matched = next(f.matched for f in check_advice(text).findings if f.id == "detach-to-silence")
    assert len(matched) <= 120 and matched.endswith("…")


def test_removed_diff_lines_are_not_advice():
    diff = "```diff\n-    features = encoder(x).detach()\n+    features = encoder(x)\n```"
    assert _ids(diff) == []


@pytest.mark.parametrize("text", ["", "   \n\t "])
def test_empty_text_is_a_usage_error(text):
    with pytest.raises(UsageError, match="proposed fix"):
        check_advice(text)


def test_bundled_antipatterns_validate_and_cite_existing_excerpts():
    excerpts = load_store().excerpts
    items = load_antipatterns()
    assert len({item.id for item in items}) == len(items) >= 11
    for item in items:
        assert item.patterns, item.id
        assert [e for e in item.evidence if e not in excerpts] == [], item.id


ENTRY = "- id: tiny\n  title: A move for the tests\n  why: It hides the cause and leaves the bug in place.\n" \
        "  instead: Find the cause first.\n  evidence: [a/b]\n"


@pytest.mark.parametrize(("extra", "message"), [
    ("", "patterns"),
    ("  patterns: ['(unclosed']\n", "not a valid regular expression"),
    ("  patterns: ['{nosuch} x']\n", "unknown fragment"),
    ("  patterns: [x]\n  colour: red\n", "colour"),
])
def test_malformed_entries_raise_content_error(extra, message):
    with pytest.raises(ContentError, match=message):
        parse_antipatterns(ENTRY + extra)


def test_duplicate_ids_and_non_lists_raise_content_error():
    entry = ENTRY + "  patterns: [x]\n"
    with pytest.raises(ContentError, match="defined twice"):
        parse_antipatterns(entry + entry)
    with pytest.raises(ContentError, match="must be a list"):
        parse_antipatterns("id: tiny\n")
    assert parse_antipatterns(entry)[0].patterns[0].search("X")


# Shapes taken from agents' answers in the A/B pilot (benchmarks/agent_ab/results): each explains why the
# user's attempt did not help, or takes a workaround away; none recommends the move it names.
ACCOUNTS = [
    "Gradient clipping or a lower lr only   make the steps toward the garbage targets smaller.",
    "This isn't an optimiser problem, and gradient clipping, warm-up or a different optimiser won't fix it.",
    "Changing the learning rate, the number of epochs or the width can't get past a limit built into the loss.",
    "A wider model (256x256) barely helped: capacity was never the issue.",
    "You can drop the `clip_grad_norm_` workaround and go back to lr 0.05.",
    "`grad_clip` stays `null`; it isn't needed.",
    "Lowering the lr only slowed the climb, and clipping hid it.",
]


@pytest.mark.parametrize("text", ACCOUNTS)
def test_an_account_of_a_failed_attempt_is_not_advice(text):
    assert check_advice(text).findings == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Drop the batch size and add a scheduler.", {"tune-before-correct", "scheduler-as-fix"}),
    ("Try gradient clipping, warm-up or a different optimiser.", {"clip-without-logging", "swap-optimizer"}),
])
def test_the_same_moves_recommended_still_fire(text, expected):
    assert {f.id for f in check_advice(text).findings} == expected


@pytest.mark.parametrize("text", [
    "It isn't a batch shift, and neither a wider model nor more weight decay would fix it.",
    "That is why grad clipping, a different lr, and the loss-scaling check changed nothing.",
])
def test_more_accounts_from_the_second_pilot_are_not_advice(text):
    assert check_advice(text).findings == []


@pytest.mark.parametrize("text", [
    "No bigger network or lagged-load feature is needed to get there.",
    "The weight only rescales the step size batch by batch, like a small change in learning rate.",
    "AdamW and `clip_grad_norm_` skip parameters with no gradient, so the probe never moves.",
    "Lint found only `torch.load` without `weights_only` and a `clip_grad_norm_` result that isn't logged.",
    "AdamW skips a parameter whose grad is None, and so does `clip_grad_norm_`.",
    "Side note from lint: `trainer.py:33` throws away the return value of `clip_grad_norm_`.",
    "At seed 4 the probe seems to gain 2.3 points, by the same mechanism.",
])
def test_accounts_from_the_fourth_pilot_are_not_advice(text):
    # a sentence opened by 'no', a comparison, and what a function does are descriptions, not moves
    assert check_advice(text).findings == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Use a bigger network for the load model.", {"bigger-model-first"}),
    ("Lower the learning rate to 1e-4 and retrain.", {"tune-before-correct"}),
    ("Add `clip_grad_norm_` with max_norm=1.0 before the step.", {"clip-without-logging"}),
    ("The new loss worked better on seed 0, so keep it.", {"one-seed-victory"}),
])
def test_their_recommended_twins_still_fire(text, expected):
    assert {f.id for f in check_advice(text).findings} == expected


@pytest.mark.parametrize("text", [
    "Root cause found. No need to switch to GroupNorm, lower the lr or clip.",
    "Don't add warmup, lower the learning rate or clip harder: fix the data instead.",
    "AccumulationPlan.adapt_norm_layers multiplied the BatchNorm momentum by accum_steps (1.6 at 16).",
    "trainer.step() lowered the learning rate every batch, so the schedule ran six times too fast.",
    "Its docstring says weighted mean, but it divides by the batch size, not by the sum of the weights.",
])
def test_accounts_from_the_full_ab_run_are_not_advice(text):
    # a later item of a negated list, and what a function did (the code as subject), are not moves (A/B run t12)
    assert check_advice(text).findings == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Switch to GroupNorm, lower the lr and clip the gradients.", {"tune-before-correct"}),
    ("You should multiply the momentum by 16.", {"tune-before-correct"}),
])
def test_the_moves_of_the_full_ab_run_recommended_still_fire(text, expected):
    assert expected <= {f.id for f in check_advice(text).findings}


@pytest.mark.parametrize(("text", "fires"), [
    ("Add a learning-rate warmup after resuming so the loss does not jump.", True),
    ("I would add a warmup on restart to smooth it out.", True),
    ("A warmup after resuming would only hide the problem.", False),
    ("Use a 1000-step warmup for the transformer from the start.", False),
])
def test_a_warmup_added_after_resuming_is_a_schedule_used_as_a_fix(text, fires):
    """A/B task t14: the user proposed a warmup after resume to hide a checkpoint that restores nothing, and the guard let
    it through in four after-runs' checks."""
    assert ("scheduler-as-fix" in {f.id for f in check_advice(text).findings}) is fires


# Reading rules from the hand-labelled A/B answers (benchmarks/advice_cases/agent_answers.yaml, issue 23): a move
# named in a sentence is advice only where the sentence puts it forward. Each rule has quiet and firing sentences of
# our own (not copied from the answers).
READING_QUIET: dict[str, list[str]] = {
    "account": [  # what an attempt did, said with the move as subject or in a noun phrase
        "Halving the batch size made the curve noisier but did not change the plateau.",
        "A deeper encoder reached 0.71, barely above the shallow one.",
        "The run with the lower learning rate ended at the same loss.",
        "Switching the optimiser changed nothing in your logs.",
        "Raising the lr to 0.4 helped a little.",
    ],
    "code named in passing": [
        "`trainer.py` builds a `CosineAnnealingLR` with T_max in epochs.",
        "The validation loss fell faster (0.35 with the wider network) because it memorised the noise.",
    ],
    "question": ["Should you add LayerNorm after each block?", "## Do you need a bigger model?"],
    "condition": [
        "If you ever need per-step decay, express the milestones in steps.",
        "Before reaching for a larger model, check the labels.",
    ],
    "optional extra": [
        "If the last bit of noise bothers you, decay the learning rate over the final epochs.",
        "Suggestion, not part of the fix: use a cosine schedule for the last epochs.",
        "## Ideas (optional, not part of the fix)\n\n- Decay the learning rate over the last epochs.",
        ("If you want steadier validation numbers, either of these is fine:\n\n"
         "- decay the learning rate over the last epochs;\n- average the last checkpoints."),
    ],
    "rejecting heading": ["## What not to do\n\n- Lower the learning rate.\n- Add gradient clipping."],
    "negation": [
        "The pipeline doesn't need a bigger network.",
        "There is no need to normalise the inputs again.",
        "None of the fixed runs required a lower learning rate.",
        "It reaches 0.93 without gradient clipping.",
        "It needs no extra clipping, warm-up or new optimiser.",
        "Gradient clipping would\nnot have helped here.",
        "You can now delete the clipping hack and the reduced learning rate.",
    ],
    "not a move": [
        "```python\nfor epoch in range(epochs):\n    train_one_epoch(model, loader)\n    lr_scheduler.step()\n```",
        "Seed 7 fixes the shuffling order and the dropout masks.",
        "On seed 3 the fixed model reaches 0.91.",
        "Across five seeds the gap is 0.2 points. On seed 2 the new head wins by 1 point.",
        "Train loss with a bigger model fell to 0.2.",
        "Re-estimate the BatchNorm statistics with one pass under `torch.no_grad()`.",
        "I halved the learning rate to check the mechanism, and the loss still climbed.",
    ],
}

READING_FIRES: list[tuple[str, str]] = [
    ("tune-before-correct", "When it diverges lower the learning rate."),
    ("scheduler-as-fix", "If the loss plateaus, add a cosine schedule."),
    ("tune-before-correct", "If you want it to train at all, lower the learning rate."),
    ("normalise-unchecked", "Add LayerNorm after each block."),
    ("tune-before-correct", "## Next steps\n\n- Lower the learning rate.\n- Rerun."),
    ("scheduler-as-fix", "To get it training, do this:\n\n- decay the learning rate over the run;\n- rerun."),
    ("bigger-model-first", "The pipeline needs a bigger network."),
    ("bigger-model-first", "Train a bigger model on the full data."),
    ("tune-before-correct", "Remove the try/except and lower the learning rate."),
    ("scheduler-as-fix", "```python\nsched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)\n```"),
    ("one-seed-victory", "Seed 0 fixed the NaN, so the patch works."),
    ("one-seed-victory", "On seed 2 the new head wins by 1 point, so keep it."),
    ("tune-before-correct", "I lowered the learning rate and now it trains fine."),
    ("clip-without-logging", "Clipping the gradients at 1.0 should stop the NaNs."),
    ("clip-without-logging", "Gradient clipping is the way to go here."),
    ("swap-optimizer", "Switching to RMSprop usually stabilises this."),
    ("bigger-model-first", "My suggestion: a bigger model."),
    ("swap-optimizer", "Options: a smaller lr, gradient clipping or a different optimiser."),
    ("tune-before-correct", "One option is to lower the learning rate."),
    ("tune-before-correct", "You'll want to lower the learning rate."),
    ("swap-optimizer", "I recommend switching to SGD."),
    ("scheduler-as-fix", "Adding a scheduler should help."),
]


@pytest.mark.parametrize("text", [t for texts in READING_QUIET.values() for t in texts])
def test_a_move_the_sentence_does_not_put_forward_is_not_flagged(text):
    assert check_advice(text).findings == []


@pytest.mark.parametrize(("pattern_id", "text"), READING_FIRES)
def test_a_move_put_forward_is_flagged(pattern_id, text):
    assert pattern_id in _ids(text)


def test_sentence_hits_lists_every_sentence_a_flag_rests_on():
    text = "Lower the learning rate.\nA lower learning rate did nothing for you.\nAlso halve the batch size."
    hits = [(h.id, h.sentence) for h in sentence_hits(text)]
    assert hits == [("tune-before-correct", "Lower the learning rate."),
                    ("tune-before-correct", "Also halve the batch size.")]
    assert check_advice(text).findings[0].further_occurrences == 1
