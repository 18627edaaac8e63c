"""The causes added (and the kinds widened) for issue 19's third coverage round, from the held-out set h and
the remaining [] labels of a-g: a textbook description of each puts it in triage's top three, a description of
a different failure keeps it out of the top five, and each has at least one real case in the case base."""


from .cause_tables import cause_table_tests, ranked_above, ranked_ids

# Each description is our own wording of the cause's typical report, naming the API or setting involved.
TEXTBOOK = {
    "speech-silence-untrimmed": (
        "my Tacotron 2 model on my own voice recordings never learns an alignment: the attention plot stays a "
        "flat line; every wav starts and ends with about two seconds of silence that I did not trim"),
    "graph-preprocessing-missing": (
        "my GraphSAGE accuracy on ogbn-arxiv is 15 points below the leaderboard; the citation graph is "
        "directed and my loader never adds reverse edges or self-loops like the reference example does"),
    "release-differs-from-paper": (
        "I ran the authors' released code unchanged and evaluated their checkpoint from Google Drive, but the "
        "results are far below the paper's table; the repo says it is a simplified version of the original code"),
    # widened kinds
    "final-activation-wrong": (
        "my generator works at 256 resolution but at 512 every sample is white: the values going into the final "
        "tanh are huge because the output multiplier was tuned for 256, so the tanh saturates"),
    "loss-hyperparameter-unsuited": (
        "training my face recognition network with the ArcFace loss from a random initialisation never "
        "converges and the accuracy stays at zero, but starting from a softmax-trained model it works"),
}

# A description of another failure that shares some vocabulary (speech, graphs, reproduction, generators, face
# losses) with the cause, where one exists a neighbouring cause's.
DECOY = {
    "speech-silence-untrimmed": (
        "my CTC speech recognition loss becomes nan because some transcripts are longer than their audio clips"),
    "graph-preprocessing-missing": (
        "my GNN training loss becomes nan after a few epochs when I use fp16 autocast on a large graph"),
    "release-differs-from-paper": (
        "I load the authors' pretrained checkpoint with strict=False and half the keys are missing because of a "
        "'module.' prefix, so the accuracy is at chance"),
    "final-activation-wrong": (
        "my generator's samples become nan after a few hundred steps of fp16 training"),
    "loss-hyperparameter-unsuited": (
        "my face recognition training loss goes to nan after a few hundred steps with fp16 and no GradScaler"),
}


(test_every_cause_is_in_the_catalogue_with_a_real_case,
 test_a_textbook_description_puts_the_cause_in_the_top_three,
 test_a_different_failure_keeps_the_cause_out_of_the_top_five) = cause_table_tests(TEXTBOOK, DECOY)


def test_a_released_checkpoint_that_is_wrong_is_not_a_checkpoint_that_failed_to_load():
    # The weights load cleanly and are simply another model than the paper's: the release, not the loading.
    text = ("the checkpoint the authors shared loads without any missing keys, but its accuracy is far below "
            "the paper's; they said they had uploaded the wrong file")
    ranked = ranked_ids(text, 10)
    assert "release-differs-from-paper" in ranked[:3], ranked


def test_a_gap_from_comparing_other_numbers_stays_with_the_comparison():
    # Both report "my number differs from the paper's"; a reference number of another metric or mode is the
    # comparison, not the release. The release still ranks in this text's top five (they share the paper-gap
    # wording), so only the order is asserted.
    text = ("my evaluation reports filtered MRR while the paper reports raw MRR, so my number looks better than "
            "theirs")
    assert ranked_above(text, "metric-compared-wrongly", "release-differs-from-paper")
