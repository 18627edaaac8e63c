from datasets import load_dataset
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import AutoTokenizer, DataCollatorWithPadding


def build_dataloaders(model_name, batch_size, max_length=256):
    tokenizer = AutoTokenizer.from_pretrained(model_name)
    raw = load_dataset("glue", "mnli")

    def tokenize(batch):
        return tokenizer(batch["premise"], batch["hypothesis"], truncation=True,
                         max_length=max_length)

    ds = raw.map(tokenize, batched=True, remove_columns=["premise", "hypothesis", "idx"])
    ds.set_format("torch")
    collator = DataCollatorWithPadding(tokenizer)
    train = DataLoader(ds["train"], batch_size=batch_size, collate_fn=collator,
                       sampler=DistributedSampler(ds["train"]))
    dev = DataLoader(ds["validation_matched"], batch_size=batch_size, collate_fn=collator)
    return train, dev
