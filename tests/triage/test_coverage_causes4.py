"""The causes added in round TC4 of issue 19 (uncovered kinds of held-out sets a-i): a textbook description of
each puts it in triage's top three, a description of a different failure keeps it out of the top five, and
each has at least one real case in the case base. pad-eos-masked was widened to score heads in the same round."""


from .cause_tables import cause_table_tests

# Each description is our own wording of the cause's typical report, naming the API or setting involved.
TEXTBOOK = {
    "timestamps-timezone-shifted": (
        "my hourly time series has a local timezone and after fitting the library converted the timestamps to"
        " UTC, so every forecast timestamp is one hour off from my input dates"),
    "model-not-on-accelerator": (
        "I forgot model.to(device): next(model.parameters()).device says cpu, nvidia-smi shows 0% GPU "
        "utilisation and on TPU the loss is flat without xm.optimizer_step"),
    "pad-eos-masked": (
        "I set tokenizer.pad_token = tokenizer.eos_token for my Llama reward model "
        "(AutoModelForSequenceClassification) and it gives the chosen and rejected answers the same score"),
}

# A description of another failure that shares some vocabulary with the cause.
DECOY = {
    "timestamps-timezone-shifted": (
        "my LSTM forecaster's validation loss is much higher than the training loss after 100 epochs"),
    "model-not-on-accelerator": (
        "training with DDP on 8 GPUs gives lower accuracy than on one GPU with the same batch size per GPU"),
    "pad-eos-masked": (
        "my image classifier's loss becomes nan after a few epochs when I raise the learning rate"),
}


(test_every_cause_is_in_the_catalogue_with_a_real_case,
 test_a_textbook_description_puts_the_cause_in_the_top_three,
 test_a_different_failure_keeps_the_cause_out_of_the_top_five) = cause_table_tests(TEXTBOOK, DECOY)
