"""The causes added (and the kinds widened) for issue 19's second coverage round, from the held-out set g and
the remaining [] labels: a textbook description of each puts it in triage's top three, a description of a
different failure keeps it out of the top five, and each has at least one real case in the case base."""


from .cause_tables import cause_table_tests, kept_out, ranked_above, ranked_ids
from .test_coverage_causes import TEXTBOOK as FIRST_ROUND

# Each description is our own wording of the cause's typical report, naming the API or setting involved.
TEXTBOOK = {
    "anchors-unsuited": (
        "my Faster R-CNN detects the large objects but misses all the small ones; my objects are about 10 "
        "pixels wide and the smallest default anchor size is 32, so the RPN gets almost no positive anchors"),
    "ssl-collapse": (
        "my BYOL self-supervised pretraining loss drops to almost zero in the first epoch, every image gets "
        "the same embedding and the linear probe accuracy is at chance: the representation collapsed"),
    "rl-stabiliser-missing": (
        "my Keras DQN on CartPole fits the network on each transition right after it happens, with no replay "
        "buffer and no target network; the reward goes up for a few episodes and then drops back"),
    "offline-rl-overestimation": (
        "training CQL offline on a fixed dataset from a random policy, the critic loss keeps increasing and "
        "the estimated Q-values are far above any possible return"),
    "data-subset-only": (
        "the log says the model trained on 1,000 samples although my dataset has 200,000; a max_samples "
        "limit from debugging was still set, so every epoch only used a small subset of the data"),
    # widened kinds
    "generation-settings": (
        "my diffusion model's training loss looks fine, but every sample it generates is pure noise; the "
        "sampler uses a different beta schedule and number of timesteps than training"),
    "augmentation-not-applied": (
        "after I removed RandomResizedCrop from my SimSiam augmentations the two views are almost the same "
        "image and the linear probe accuracy fell from 90% to under 40%"),
    "loss-terms-imbalanced": (
        "my detector computes a classification, a box and an orientation loss, but a leftover debug line "
        "overwrites total_loss with the classification term, so the box loss never goes down"),
    "metric-compared-wrongly": (
        "my reproduction's error is 1e-2 while the paper reports 1e-5, but the paper's number comes from its "
        "enhanced variant trained ten times longer than the script I ran"),
}

# A description of another failure that shares some vocabulary (detection, pretraining, RL, data, losses, metrics) with
# the cause, where one exists a neighbouring cause's (no training steps at all, a metric computed wrongly).
DECOY = {
    "anchors-unsuited": (
        "my YOLO label files hold pixel coordinates instead of normalized xywh and mAP stays at 0 while the "
        "loss goes down"),
    "ssl-collapse": (
        "my GAN discriminator loss goes to zero and the generator only produces noise"),
    "rl-stabiliser-missing": (
        "my PPO agent on my custom env learns CartPole but not my env whose observations are in the "
        "thousands"),
    "offline-rl-overestimation": (
        "my PPO agent's episode reward during training is about 400 but evaluate_policy with "
        "deterministic actions gives me 20"),
    "data-subset-only": (
        "the log says 0 training steps per epoch because my dataset has fewer samples than the batch size and "
        "drop_last=True"),
    "generation-settings": (
        "the training loss is exactly 0 from the first step when fine-tuning with SFTTrainer because every "
        "label is -100"),
    "augmentation-not-applied": (
        "my loss becomes nan after a few hundred steps when I train with fp16 autocast"),
    "loss-terms-imbalanced": (
        "my classifier's loss is negative because I apply log_softmax and then pass the result to BCELoss"),
    "metric-compared-wrongly": (
        "my validation accuracy computed with argmax over the batch dimension is always around 10%"),
}


(test_every_cause_is_in_the_catalogue_with_a_real_case,
 test_a_textbook_description_puts_the_cause_in_the_top_three,
 test_a_different_failure_keeps_the_cause_out_of_the_top_five) = cause_table_tests(TEXTBOOK, DECOY)


IDENTICAL_VIEWS = FIRST_ROUND["augmentation-not-applied"]  # the two views are the same image
ONLINE_TARGET = (
    "my DQN computes the TD target with the online network itself, there is no target network, and the "
    "Q-values keep growing")
TARGET_NEVER_SYNCED = (
    "my DQN has a target network but I never copy the weights into it, so the targets never change")


def test_collapse_and_augmentation_that_does_nothing_are_told_apart():
    # Constant embeddings from views that differ is collapse; views that are the same is the augmentation. Both
    # texts report a loss near zero and a probe at chance (the augmentation ranked second on collapse's text
    # before the two were given a boundary, and collapse is second on the augmentation's), so either order can
    # break; the sampler-versus-collapse pair this replaces ranked past 20 both ways.
    assert ranked_above(TEXTBOOK["ssl-collapse"], "ssl-collapse", "augmentation-not-applied")
    assert kept_out(TEXTBOOK["ssl-collapse"], "augmentation-not-applied")
    assert ranked_above(IDENTICAL_VIEWS, "augmentation-not-applied", "ssl-collapse")


def test_a_missing_target_network_and_a_miswired_one_are_told_apart():
    # No buffer or target network at all (the online network as its own target) is the missing stabiliser; a
    # target network that is there but wired wrongly is the update's arithmetic.
    assert ranked_above(TEXTBOOK["rl-stabiliser-missing"], "rl-stabiliser-missing", "advantage-or-target-wrong")
    assert ranked_above(ONLINE_TARGET, "rl-stabiliser-missing", "advantage-or-target-wrong")
    assert ranked_above(TARGET_NEVER_SYNCED, "advantage-or-target-wrong", "rl-stabiliser-missing")
