import argparse
from functools import partial
from itertools import cycle

import torch
from accelerate import Accelerator
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import (AutoModelForCausalLM, AutoTokenizer, default_data_collator,
                          get_scheduler)

from utils import evaluate, group_texts


def parse_args():
    p = argparse.ArgumentParser(description="Finetune a causal LM with step-based evaluation")
    p.add_argument("--model_name_or_path", default="gpt2")
    p.add_argument("--dataset_name", default="wikitext")
    p.add_argument("--dataset_config_name", default="wikitext-2-raw-v1")
    p.add_argument("--per_device_batch_size", type=int, default=8)
    p.add_argument("--learning_rate", type=float, default=5e-5)
    p.add_argument("--max_train_steps", type=int, default=20000)
    p.add_argument("--eval_steps", type=int, default=500)
    p.add_argument("--block_size", type=int, default=512)
    p.add_argument("--output_dir", default="out")
    return p.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator(gradient_accumulation_steps=4)
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)
    raw = load_dataset(args.dataset_name, args.dataset_config_name)
    tokenized = raw.map(lambda ex: tokenizer(ex["text"]), batched=True, remove_columns=["text"])
    lm_datasets = tokenized.map(partial(group_texts, block_size=args.block_size), batched=True)
    train_dataloader = DataLoader(lm_datasets["train"], shuffle=True, collate_fn=default_data_collator,
                                  batch_size=args.per_device_batch_size)
    eval_dataloader = DataLoader(lm_datasets["validation"], collate_fn=default_data_collator,
                                 batch_size=args.per_device_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    lr_scheduler = get_scheduler("cosine", optimizer, num_warmup_steps=500,
                                 num_training_steps=args.max_train_steps)
    model, optimizer, train_dataloader, eval_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader, lr_scheduler)

    model.train()
    completed_steps = 0
    for batch in cycle(train_dataloader):
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        if not accelerator.sync_gradients:
            continue
        completed_steps += 1
        if completed_steps % args.eval_steps == 0:
            eval_loss, perplexity = evaluate(model, eval_dataloader, accelerator)
            model.train()
            accelerator.print(f"step {completed_steps}: perplexity: {perplexity:.2f} eval_loss: {eval_loss:.4f}")
            accelerator.wait_for_everyone()
            accelerator.unwrap_model(model).save_pretrained(
                f"{args.output_dir}/step_{completed_steps}", save_function=accelerator.save)
        if completed_steps >= args.max_train_steps:
            break


if __name__ == "__main__":
    main()
