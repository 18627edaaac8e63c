"""The large-model stability and post-training causes (causes/stability.yaml): a textbook description of each puts
it in triage's top three, a description of a different failure keeps it out of the top five, and each has at
least one real case in the case base."""


from .cause_tables import cause_table_tests, ranked_ids

# Each description is our own wording of the cause's typical report, naming the API or setting involved.
TEXTBOOK = {
    "adam-beta2-epsilon": (
        "pretraining a 1B transformer with AdamW betas (0.9, 0.999): the loss spikes every few thousand steps, "
        "each spike one step after a jump in the gradient norm, although gradient clipping is on"),
    "moe-router-collapse": (
        "in my mixture-of-experts model almost all tokens are routed to two of the 8 experts and the aux loss is "
        "0 in the logs; the MoE is no better than a dense model"),
    "packing-cross-contamination": (
        "I turned on packing=True in SFTTrainer without flash attention and the fine-tuned model now mixes "
        "content from other training examples into its answers"),
    "reward-hacking": (
        "during GRPO the format reward goes to 1 and the total reward keeps rising, but the answers are wrong: "
        "the model found a loophole in my reward function"),
    "kl-penalty-broken": (
        "in PPO RLHF with trl the objective/kl keeps growing every step, the reward goes up and at the end the "
        "policy gives the same response to every prompt"),
    "preference-length-bias": (
        "after DPO training the model's responses get longer every epoch and are far more verbose than the SFT "
        "model, but not better"),
    "preference-pair-formatting": (
        "my DPO dataset has the whole conversation in both the chosen and rejected fields, so the prompt appears "
        "twice, and rewards/accuracies is 1.0 in the first epoch"),
}

# A description of another failure that shares some vocabulary (training, loss, fine-tuning, RL) with the cause.
DECOY = {
    "adam-beta2-epsilon": "my fine-tuned Llama gives gibberish after exporting to GGUF and running it in llama.cpp",
    "moe-router-collapse": (
        "my image classifier predicts the majority class for every input and the accuracy equals the class "
        "frequency"),
    "packing-cross-contamination": (
        "the training loss is exactly 0 from the first step with SFTTrainer because every label is -100"),
    "reward-hacking": (
        "the reward stays at exactly 0 for the whole GRPO run because my reward function never returns a "
        "nonzero value"),
    "kl-penalty-broken": "my DQN agent on CartPole never learns, the episode return stays around 20 for the whole run",
    "preference-length-bias": (
        "my fine-tuned model never stops generating and keeps going until max_new_tokens because the EOS token "
        "was masked"),
    "preference-pair-formatting": "the loss becomes nan after a few hundred steps when training my CNN with fp16 autocast",
}


(test_every_cause_is_in_the_catalogue_with_a_real_case,
 test_a_textbook_description_puts_the_cause_in_the_top_three,
 test_a_different_failure_keeps_the_cause_out_of_the_top_five) = cause_table_tests(TEXTBOOK, DECOY)


def test_reward_hacking_and_a_flat_reward_are_told_apart():
    hacked = ranked_ids(TEXTBOOK["reward-hacking"], 5)
    assert hacked.index("reward-hacking") < hacked.index("reward-function-bug")
    assert ranked_ids(DECOY["reward-hacking"], 1) == ["reward-function-bug"]
