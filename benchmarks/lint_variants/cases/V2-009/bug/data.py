from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding


def get_dataloaders(tokenizer, task="mrpc", batch_size=32, max_length=128):
    raw = load_dataset("glue", task)

    def tokenize(examples):
        return tokenizer(examples["sentence1"], examples["sentence2"], truncation=True, max_length=max_length)

    tokenized = raw.map(tokenize, batched=True, remove_columns=["idx", "sentence1", "sentence2"])
    tokenized = tokenized.rename_column("label", "labels")
    collator = DataCollatorWithPadding(tokenizer, pad_to_multiple_of=8)
    train_dl = DataLoader(tokenized["train"], shuffle=True, batch_size=batch_size, collate_fn=collator)
    eval_dl = DataLoader(tokenized["validation"], shuffle=False, batch_size=batch_size * 2, collate_fn=collator)
    return train_dl, eval_dl
