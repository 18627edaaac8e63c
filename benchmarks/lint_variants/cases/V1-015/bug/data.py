from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding

task_to_keys = {
    "mrpc": ("sentence1", "sentence2"),
    "qnli": ("question", "sentence"),
    "rte": ("sentence1", "sentence2"),
    "sst2": ("sentence", None),
}


def get_dataloaders(task_name, tokenizer, batch_size, eval_batch_size, max_length=128):
    raw = load_dataset("glue", task_name)
    key1, key2 = task_to_keys[task_name]

    def preprocess(examples):
        texts = (examples[key1],) if key2 is None else (examples[key1], examples[key2])
        result = tokenizer(*texts, max_length=max_length, truncation=True)
        result["labels"] = examples["label"]
        return result

    processed = raw.map(preprocess, batched=True, remove_columns=raw["train"].column_names)
    collator = DataCollatorWithPadding(tokenizer, pad_to_multiple_of=8)
    train_dl = DataLoader(processed["train"], shuffle=True, collate_fn=collator, batch_size=batch_size)
    eval_dl = DataLoader(processed["validation"], collate_fn=collator, batch_size=eval_batch_size)
    num_labels = raw["train"].features["label"].num_classes
    return train_dl, eval_dl, num_labels
