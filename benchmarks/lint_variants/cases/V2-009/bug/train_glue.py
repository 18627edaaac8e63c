import argparse
import math

import evaluate
import torch
from accelerate import Accelerator
from tqdm.auto import tqdm
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

from data import get_dataloaders


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model_name_or_path", default="bert-base-cased")
    p.add_argument("--task", default="mrpc")
    p.add_argument("--lr", type=float, default=2e-5)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--warmup_ratio", type=float, default=0.1)
    p.add_argument("--mixed_precision", default="fp16")
    return p.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator(mixed_precision=args.mixed_precision)
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    model = AutoModelForSequenceClassification.from_pretrained(args.model_name_or_path, num_labels=2)
    train_dl, eval_dl = get_dataloaders(tokenizer, args.task, args.batch_size)

    no_decay = ["bias", "LayerNorm.weight"]
    grouped = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(grouped, lr=args.lr)
    total_steps = args.epochs * len(train_dl)
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, math.ceil(args.warmup_ratio * total_steps), total_steps)
    model, optimizer, train_dl, eval_dl, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dl, eval_dl, lr_scheduler)

    metric = evaluate.load("glue", args.task)
    progress = tqdm(range(total_steps), disable=not accelerator.is_local_main_process)
    for epoch in range(args.epochs):
        model.train()
        for batch in train_dl:
            lr_scheduler.step()
            outputs = model(**batch)
            loss = outputs.loss
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            progress.update(1)
            progress.set_postfix(loss=loss.item(), lr=lr_scheduler.get_last_lr()[0])

        model.eval()
        for batch in eval_dl:
            with torch.no_grad():
                logits = model(**batch).logits
            preds, refs = accelerator.gather_for_metrics((logits.argmax(dim=-1), batch["labels"]))
            metric.add_batch(predictions=preds, references=refs)
        accelerator.print(f"epoch {epoch}: {metric.compute()}")

    accelerator.wait_for_everyone()
    unwrapped = accelerator.unwrap_model(model)
    unwrapped.save_pretrained("outputs", save_function=accelerator.save,
                              is_main_process=accelerator.is_main_process)


if __name__ == "__main__":
    main()
