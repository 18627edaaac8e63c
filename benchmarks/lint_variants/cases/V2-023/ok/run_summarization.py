import argparse
import math

import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import DataCollatorForSeq2Seq, get_linear_schedule_with_warmup

from model import load_model_and_tokenizer
from trainer import Seq2SeqTrainer


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model_name_or_path", default="t5-base")
    p.add_argument("--output_dir", default="outputs/t5-xsum")
    p.add_argument("--per_device_train_batch_size", type=int, default=8)
    p.add_argument("--gradient_accumulation_steps", type=int, default=8)
    p.add_argument("--learning_rate", type=float, default=3e-4)
    p.add_argument("--num_train_epochs", type=int, default=3)
    p.add_argument("--max_grad_norm", type=float, default=1.0)
    p.add_argument("--warmup_steps", type=int, default=500)
    p.add_argument("--fp16", action="store_true")
    return p.parse_args()


def main():
    args = parse_args()
    model, tokenizer = load_model_and_tokenizer(args.model_name_or_path)
    model.cuda()
    raw = load_dataset("xsum")

    def preprocess(ex):
        inputs = tokenizer(["summarize: " + d for d in ex["document"]], max_length=512, truncation=True)
        inputs["labels"] = tokenizer(text_target=ex["summary"], max_length=64, truncation=True)["input_ids"]
        return inputs

    ds = raw.map(preprocess, batched=True, remove_columns=raw["train"].column_names)
    collator = DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100)
    train_loader = DataLoader(ds["train"], batch_size=args.per_device_train_batch_size, shuffle=True,
                              collate_fn=collator, num_workers=4)
    eval_loader = DataLoader(ds["validation"], batch_size=16, collate_fn=collator)

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    total = math.ceil(len(train_loader) / args.gradient_accumulation_steps) * args.num_train_epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, total)
    Seq2SeqTrainer(model, tokenizer, optimizer, scheduler, args).train(train_loader, eval_loader)


if __name__ == "__main__":
    main()
