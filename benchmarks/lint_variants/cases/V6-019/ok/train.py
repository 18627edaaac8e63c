import argparse
import math

import evaluate
import torch
from accelerate import Accelerator
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, DataCollatorWithPadding, get_linear_schedule_with_warmup

from modeling import BertForSentenceClassification, get_optimizer_grouped_parameters


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model_name_or_path", default="bert-base-uncased")
    p.add_argument("--task_name", default="sst2")
    p.add_argument("--max_length", type=int, default=128)
    p.add_argument("--per_device_train_batch_size", type=int, default=32)
    p.add_argument("--learning_rate", type=float, default=2e-5)
    p.add_argument("--weight_decay", type=float, default=0.01)
    p.add_argument("--num_train_epochs", type=int, default=3)
    p.add_argument("--num_warmup_steps", type=int, default=0)
    p.add_argument("--output_dir", default="out")
    return p.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator()
    raw = load_dataset("glue", args.task_name)
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)

    def preprocess(ex):
        return tokenizer(ex["sentence"], truncation=True, max_length=args.max_length)

    with accelerator.main_process_first():
        processed = raw.map(preprocess, batched=True, remove_columns=["sentence", "idx"])
    processed = processed.rename_column("label", "labels")
    collator = DataCollatorWithPadding(tokenizer)
    train_dl = DataLoader(processed["train"], shuffle=True, collate_fn=collator,
                          batch_size=args.per_device_train_batch_size)
    eval_dl = DataLoader(processed["validation"], collate_fn=collator, batch_size=64)

    model = BertForSentenceClassification(args.model_name_or_path, num_labels=2)
    optimizer = torch.optim.AdamW(get_optimizer_grouped_parameters(model, args.weight_decay), lr=args.learning_rate)
    max_train_steps = args.num_train_epochs * math.ceil(len(train_dl))
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, args.num_warmup_steps, max_train_steps)
    model, optimizer, train_dl, eval_dl, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dl, eval_dl, lr_scheduler)
    metric = evaluate.load("glue", args.task_name)

    for epoch in range(args.num_train_epochs):
        model.train()
        for step, batch in enumerate(train_dl):
            loss, _ = model(**batch)
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        model.eval()
        for batch in eval_dl:
            with torch.no_grad():
                _, logits = model(**batch)
            preds, refs = accelerator.gather_for_metrics((logits.argmax(-1), batch["labels"]))
            metric.add_batch(predictions=preds, references=refs)
        accelerator.print(f"epoch {epoch}: {metric.compute()}")

    accelerator.wait_for_everyone()
    accelerator.save(accelerator.unwrap_model(model).state_dict(), f"{args.output_dir}/pytorch_model.bin")


if __name__ == "__main__":
    main()
