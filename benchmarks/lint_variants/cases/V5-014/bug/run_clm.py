import argparse

import torch
from accelerate import Accelerator
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, default_data_collator, get_scheduler

from utils import generate_samples, group_texts, perplexity


def parse_args():
    parser = argparse.ArgumentParser(description="Finetune a causal LM on a text corpus")
    parser.add_argument("--model_name_or_path", default="gpt2")
    parser.add_argument("--dataset_name", default="wikitext")
    parser.add_argument("--dataset_config_name", default="wikitext-2-raw-v1")
    parser.add_argument("--per_device_train_batch_size", type=int, default=8)
    parser.add_argument("--learning_rate", type=float, default=5e-5)
    parser.add_argument("--num_train_epochs", type=int, default=3)
    parser.add_argument("--block_size", type=int, default=512)
    parser.add_argument("--output_dir", default="out")
    return parser.parse_args()


def main():
    args = parse_args()
    accelerator = Accelerator()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)
    raw = load_dataset(args.dataset_name, args.dataset_config_name)
    tokenized = raw.map(lambda ex: tokenizer(ex["text"]), batched=True, remove_columns=["text"])
    lm_datasets = tokenized.map(lambda ex: group_texts(ex, args.block_size), batched=True)
    train_dataloader = DataLoader(lm_datasets["train"], shuffle=True, collate_fn=default_data_collator,
                                  batch_size=args.per_device_train_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    num_steps = args.num_train_epochs * len(train_dataloader)
    lr_scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=0, num_training_steps=num_steps)
    model, optimizer, train_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, lr_scheduler)
    for epoch in range(args.num_train_epochs):
        model.train()
        total_loss = 0.0
        for step, batch in enumerate(train_dataloader):
            outputs = model(**batch)
            loss = outputs.loss
            total_loss += loss.detach().float()
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        train_loss = (total_loss / len(train_dataloader)).item()
        accelerator.print(f"epoch {epoch}: train_loss {train_loss:.4f} train_ppl {perplexity(train_loss):.2f}")
    accelerator.wait_for_everyone()
    unwrapped = accelerator.unwrap_model(model)
    if accelerator.is_main_process:
        unwrapped.save_pretrained(args.output_dir, save_function=accelerator.save)
        tokenizer.save_pretrained(args.output_dir)
        for text in generate_samples(unwrapped, tokenizer, ["The history of", "In 1998,"], accelerator.device):
            print(text)


if __name__ == "__main__":
    main()
