"""The shared vocabulary of observations: what triage consumes and what the curve reader and the
decision tree produce. One key per thing a person (or a tool) can see about a failing run."""

from __future__ import annotations

OBSERVATIONS: dict[str, str] = {
    "crash": "the run stops with an exception or traceback",
    "nan": "the loss, gradients or outputs become NaN or Inf",
    "init_loss_high": "the loss at step 0 is far above chance level (ln k for k classes)",
    "init_loss_low": "the loss at step 0, before any update, is far below chance level (ln k for k classes)",
    "cannot_overfit": "the model cannot drive the loss near zero on one small batch",
    "overfits_batch": "the model memorises one small batch (loss near zero)",
    "flat_from_start": "the loss does not move from the first steps on",
    "plateau_at_chance": "the loss settles at chance level (about ln k for k classes): the model guesses",
    "plateau": "the loss falls, then stalls at a constant well above what the task should reach",
    "explodes": "the loss falls, then grows without bound or jumps to a far higher level",
    "spike_fast_recovery": "short loss spikes that return to the trend within a few steps",
    "spike_slow_recovery": "loss spikes that take many steps to return to the trend",
    "spike_no_recovery": "a spike after which the loss never returns to its earlier level",
    "oscillates": "the loss swings up and down without a clear trend",
    "train_val_gap": "training metrics are good while validation or test metrics are bad",
    "val_too_good": "validation or test results are suspiciously good (better than train, or near perfect)",
    "loss_metric_mismatch": "the loss improves but the metric that matters does not",
    "constant_outputs": "the model predicts the same value or the same class for every input",
    "loss_zero": "the loss is exactly zero, or zero after a few steps",
    "slow_healthy": "the loss falls steadily, only more slowly or less far than hoped",
    "seed_variance": "results change a lot between runs or seeds with the same configuration",
    "multi_gpu_only": "the problem appears only with several GPUs, processes or nodes",
    "bad_after_export": "training looks fine but inference, export or deployment gives bad outputs",
    "weights_load_clean": "the checkpoint loads strictly: no missing or unexpected keys",
    "worse_after_change": "results got worse (or better) right after a change to code, data or settings",
    "memory_growth": "memory use grows step after step until it runs out",
    "gradients_vanish": "gradients in early layers are (near) zero",
    "gradients_explode": "gradient norms grow very large",
    "bad_generation": "a fine-tuned language model generates gibberish, repeats itself or never stops",
    "reward_flat": "a reinforcement-learning agent's return does not improve",
}


def unknown_observations(keys: list[str]) -> list[str]:
    """The keys that are not in the vocabulary, in the order given."""
    return [key for key in keys if key not in OBSERVATIONS]
