"""The systems causes added for issue 20 (refs/distributed.md, refs/speed-memory.md): a textbook description of
each puts it in triage's top three, a description of a different failure keeps it out of the top five, and each
has at least one real case in the case base."""


from .cause_tables import cause_table_tests, ranked_ids

# Each description is our own wording of the cause's typical report, naming the API or setting involved.
TEXTBOOK = {
    "distributed-collective-mismatch": (
        "my DDP training on 4 GPUs hangs at the end of the epoch and after 30 minutes dies with an NCCL watchdog "
        "timeout on ALLREDUCE; I only evaluate and save the checkpoint on rank 0"),
    "ddp-unused-parameters": (
        "with DistributedDataParallel the second iteration raises Expected to have finished reduction in the "
        "prior iteration; my model has an auxiliary head that is not used in the loss"),
    "metrics-not-reduced-across-ranks": (
        "validation accuracy logged on rank 0 changes when I evaluate on 4 GPUs instead of 1; each process "
        "prints a different validation loss"),
    "sharded-checkpoint-wrong": (
        "after saving with FSDP and resuming, the loss jumps back to the initial value; the saved file is much "
        "smaller than the model and loading reports missing keys"),
    "dataloader-bottleneck": (
        "training is very slow, GPU utilization fluctuates between 0 and 100 percent, num_workers is 0 and the "
        "profiler shows most time waiting on the DataLoader"),
    "compile-recompiles": (
        "torch.compile makes training slower than eager; the log says torch._dynamo hit config.cache_size_limit "
        "(8) and TORCH_LOGS=recompiles shows a new compilation for every sequence length"),
    "oom-activation-memory": (
        "CUDA out of memory on the first step with sequence length 8192 even at batch size 1; memory does not "
        "grow over steps, and enabling gradient checkpointing helps"),
}

# A description of another failure that shares some vocabulary (GPUs, slowness, memory, checkpoints).
DECOY = {
    "distributed-collective-mismatch": (
        "my loss becomes nan after a few hundred steps when I train with fp16 autocast on one GPU, fine in fp32"),
    "ddp-unused-parameters": (
        "the validation accuracy is much lower than the training accuracy after 50 epochs on my image "
        "classifier"),
    "metrics-not-reduced-across-ranks": (
        "I forgot to call optimizer.zero_grad() and the loss goes up after the first few iterations"),
    "sharded-checkpoint-wrong": (
        "my text classifier's loss goes down but the validation accuracy stays at 50%"),
    "dataloader-bottleneck": (
        "test accuracy is 99.9%, too good to be true; I scaled with StandardScaler before train_test_split"),
    "compile-recompiles": (
        "the tokenizer pads on the right and batched generation with my decoder-only model produces garbage "
        "after the prompt"),
    "oom-activation-memory": (
        "my PPO agent's episode reward stays flat for a million steps on CartPole"),
}


(test_every_cause_is_in_the_catalogue_with_a_real_case,
 test_a_textbook_description_puts_the_cause_in_the_top_three,
 test_a_different_failure_keeps_the_cause_out_of_the_top_five) = cause_table_tests(TEXTBOOK, DECOY)


def test_a_memory_leak_description_ranks_the_leak_above_activation_memory():
    ids = ranked_ids("GPU memory usage keeps increasing with every batch until CUDA out of memory after a few hundred "
               "iterations; I append the loss tensors to a list for logging", 5)
    assert "memory-leak-graph-retained" in ids
    if "oom-activation-memory" in ids:
        assert ids.index("memory-leak-graph-retained") < ids.index("oom-activation-memory")
