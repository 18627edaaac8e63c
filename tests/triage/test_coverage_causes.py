"""The causes added for issue 19 to cover the kinds the held-out sets (collected_d, e, f) found missing: a
textbook description of each puts it in triage's top three, a description of a different failure keeps it out
of the top five, and each has at least one real case in the case base (c_coverage_gh.yaml)."""


from .cause_tables import cause_table_tests

# Each description is our own wording of the cause's typical report, naming the API or setting involved.
TEXTBOOK = {
    "training-too-short": (
        "my diffusion model still produces noisy samples; I only trained for a few thousand iterations and the "
        "loss was still going down when training finished"),
    "no-lr-decay": (
        "every ResNet I train on CIFAR-10 plateaus around 88% although the paper reports 95%; the script uses a "
        "constant learning rate with no scheduler, and resuming with a lower lr makes the accuracy jump"),
    "batch-dependent-forward": (
        "accuracy drops a lot when I test with batch size 1 even in eval mode; my forward() normalises the "
        "features with torch.mean over the whole tensor, so the output depends on the other images in the batch"),
    "batchnorm-stats-polluted": (
        "a warmup forward pass on a torch.empty tensor in train mode left NaN in the BatchNorm running_var, so "
        "evaluation gives NaN and mAP is 0 in some runs"),
    "head-class-count-mismatch": (
        "I changed classes=1 in the yolo cfg for my custom dataset but not the filters of the conv layers before "
        "the detection layers; mAP stays at 0"),
    "wrong-columns-selected": (
        "the sigmoid cross-entropy loss becomes more and more negative; my CSV has a different column order, so "
        "the script takes a continuous column as the binary target"),
    "augmentation-not-applied": (
        "the two augmented views in my SimCLR pipeline are identical because the augmentation layers do nothing,"
        " so the contrastive loss drops to zero and the linear probe is near chance"),
    "catastrophic-forgetting": (
        "after fine-tuning the LLM for 3 epochs on 10k examples of one task it lost its general abilities and "
        "only does the task from my training data; catastrophic forgetting"),
    "tokenizer-vocab-mismatch": (
        "I added new characters to tokens.txt but did not retrain the sentencepiece bpe model, so the training "
        "text is still segmented the old way and the new tokens never appear"),
    "loss-hyperparameter-unsuited": (
        "with ArcFace scale s=64 on a 92-class problem the loss goes down but the accuracy stays at zero; "
        "reducing s fixes it"),
    "persistence-forecast-illusion": (
        "my LSTM one-step-ahead forecast looks like the real time series shifted by one time step, and "
        "predicting the previous value gives the same MSE"),
    "pinn-boundary-conditions-wrong": (
        "my PINN boundary condition is applied to the whole boundary instead of one side because on_boundary "
        "has no coordinate check; the losses are small but the solution is wrong near the boundary"),
}

# A description of another failure, where one exists a neighbouring cause's (overfitting, small-batch BatchNorm, PDE
# derivatives), that shares some vocabulary with the cause.
DECOY = {
    "training-too-short": (
        "the training loss falls but the validation loss starts rising after epoch 20 while the training loss keeps "
        "going down"),
    "no-lr-decay": (
        "with Adam at learning rate 0.1 my loss jumps around and then explodes to NaN within the first "
        "epoch"),
    "batch-dependent-forward": (
        "my padded batches give different results because the attention mask is missing and the model attends "
        "to the padding tokens"),
    "batchnorm-stats-polluted": (
        "with batch size 2 per GPU my BatchNorm statistics are noisy and the validation accuracy is much lower than "
        "training"),
    "head-class-count-mismatch": (
        "my segmentation masks have values 0 and 255 and training crashes with a device-side assert"),
    "wrong-columns-selected": (
        "test accuracy is 99.9%, too good to be true; I scaled with StandardScaler before train_test_split"),
    "augmentation-not-applied": (
        "the random crops and flips are also applied to my validation set, so the validation accuracy is noisy"),
    "catastrophic-forgetting": (
        "the training loss is exactly 0 from the first step when fine-tuning with SFTTrainer because every "
        "label is -100"),
    "tokenizer-vocab-mismatch": (
        "the tokenizer pads on the right and batched generation with my decoder-only model produces garbage "
        "after the prompt"),
    "loss-hyperparameter-unsuited": (
        "my regression model predicts house prices in the millions and the MSE loss is huge and does not go "
        "down"),
    "persistence-forecast-illusion": (
        "my PPO agent's episode reward stays flat and the policy entropy collapses within the first few "
        "updates"),
    "pinn-boundary-conditions-wrong": (
        "my PINN residual is wrong because torch.autograd.grad is called without create_graph=True, so the second "
        "derivative is zero"),
}


(test_every_cause_is_in_the_catalogue_with_a_real_case,
 test_a_textbook_description_puts_the_cause_in_the_top_three,
 test_a_different_failure_keeps_the_cause_out_of_the_top_five) = cause_table_tests(TEXTBOOK, DECOY)
