"""The causes added for issue 19: a textbook description of each puts it in triage's top three, a description
of a different failure keeps it out of the top five, and each has at least one real case in the case base."""


from .cause_tables import cause_table_tests

# Each description is our own wording of the cause's typical report, naming the API or setting involved.
TEXTBOOK = {
    "batchnorm-stats-not-updated": (
        "my CNN with BatchNorm trains well, but after model.eval() its predictions are garbage; running_mean "
        "is still all zeros and running_var all ones after training"),
    "no-training-steps": (
        "I set drop_last=True on a dataset with fewer samples than the batch size; every epoch finishes "
        "instantly, the printed loss is 0.0 and the weights never change"),
    "env-reset-incomplete": (
        "in my custom gym environment reset() does not set the step counter back to zero, so episodes get "
        "shorter and shorter and the episode reward keeps growing"),
    "annotation-format-wrong": (
        "I converted my COCO annotations to YOLO label files but left the boxes in pixels instead of "
        "normalized xywh; mAP stays at 0 while the loss goes down"),
    "cross-network-gradients": (
        "in my GAN I call zero_grad on the generator optimizer but never on the discriminator optimizer, and "
        "the discriminator's gradient norm grows every step until the losses blow up"),
    "gan-training-dynamics": (
        "my GAN generates the same image for every noise vector; the discriminator loss goes to zero and the "
        "samples collapse to a few outputs"),
    "special-tokens-inside-sequence": (
        "I tokenize the prompt and the response separately for SFT and now there is a BOS token in the middle"
        " of every training example; the fine-tuned model starts its answers with <s>"),
    "base-model-untrained-template-tokens": (
        "I fine-tuned the Llama 3 base model with LoRA and the instruct chat template; it never stops "
        "generating and outputs reserved special tokens instead of <|eot_id|>"),
    "logged-quantity-wrong": (
        "the training loss I log for each epoch is only the loss of the last batch, so the curve jumps around"
        " and ReduceLROnPlateau reacts to noise"),
    "rebalancing-overcorrected": (
        "after adding pos_weight to BCEWithLogitsLoss and a WeightedRandomSampler the model predicts positive"
        " for almost everything; recall is near 100% but precision is terrible"),
    "optimizer-setting-not-applied": (
        "weight_decay is set in my config but never passed to the optimizer, so changing it makes no "
        "difference, and the scheduler overwrites the lr I set in optimizer.param_groups"),
    "peft-mutates-base-model": (
        "after get_peft_model the base model gives exactly the same outputs as the fine-tuned model, and the "
        "KL to the reference model is always zero in DPO"),
}

# A description of another failure that shares some vocabulary (training, loss, fine-tuning, RL) with the cause.
DECOY = {
    "batchnorm-stats-not-updated": (
        "my loss becomes nan after a few hundred steps when I train with fp16 autocast, and it is fine in "
        "fp32"),
    "no-training-steps": (
        "the validation accuracy is much lower than the training accuracy after 50 epochs on my image "
        "classifier"),
    "env-reset-incomplete": (
        "my PPO agent learns on PongNoFrameskip-v4 but not on Pong-v0 with the same hyperparameters"),
    "annotation-format-wrong": "my text classifier's loss goes down but the validation accuracy stays at 50%",
    "cross-network-gradients": (
        "my transformer language model's loss spikes every few thousand steps and recovers slowly"),
    "gan-training-dynamics": (
        "test accuracy is 99.9%, too good to be true; I scaled with StandardScaler before train_test_split"),
    "special-tokens-inside-sequence": (
        "the training loss is exactly 0 from the first step when fine-tuning with SFTTrainer because every "
        "label is -100"),
    "base-model-untrained-template-tokens": (
        "my fine-tuned model works in the Unsloth notebook but gives gibberish in Ollama after converting to "
        "GGUF"),
    "logged-quantity-wrong": (
        "I forgot to call optimizer.zero_grad() and the loss goes up after the first few iterations"),
    "rebalancing-overcorrected": (
        "my regression model predicts house prices in the millions and the MSE loss is huge and does not go "
        "down"),
    "optimizer-setting-not-applied": (
        "my segmentation masks have values 0 and 255 and training crashes with a device-side assert"),
    "peft-mutates-base-model": (
        "the tokenizer pads on the right and batched generation with my decoder-only model produces garbage "
        "after the prompt"),
}


(test_every_cause_is_in_the_catalogue_with_a_real_case,
 test_a_textbook_description_puts_the_cause_in_the_top_three,
 test_a_different_failure_keeps_the_cause_out_of_the_top_five) = cause_table_tests(TEXTBOOK, DECOY)
