from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorWithPadding


def get_dataloaders(cfg, tokenizer):
    raw = load_dataset(cfg.dataset_name)

    def tokenize(batch):
        return tokenizer(batch["text"], truncation=True, max_length=cfg.max_length)

    ds = raw.map(tokenize, batched=True, remove_columns=["text"])
    ds = ds.rename_column("label", "labels")
    collator = DataCollatorWithPadding(tokenizer)
    train_dl = DataLoader(ds["train"], shuffle=True, batch_size=cfg.batch_size, collate_fn=collator)
    eval_dl = DataLoader(ds["test"], batch_size=cfg.batch_size * 2, collate_fn=collator)
    return train_dl, eval_dl
