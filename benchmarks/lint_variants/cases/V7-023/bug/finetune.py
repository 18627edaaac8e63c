import argparse
import logging
import math
import os
import time

import torch
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, get_cosine_schedule_with_warmup

from data import InstructionDataset, SupervisedCollator
from lora import inject_lora, lora_state_dict, mark_only_lora_trainable, print_trainable_parameters

logger = logging.getLogger("lora-sft")


def parse_args():
    p = argparse.ArgumentParser(description="LoRA instruction tuning with a hand-written loop")
    p.add_argument("--model_name_or_path", default="meta-llama/Llama-2-7b-hf")
    p.add_argument("--data_path", default="data/alpaca_data_cleaned.json")
    p.add_argument("--output_dir", default="out/llama2-7b-alpaca-lora")
    p.add_argument("--max_length", type=int, default=512)
    p.add_argument("--micro_batch_size", type=int, default=4)
    p.add_argument("--gradient_accumulation_steps", type=int, default=32)
    p.add_argument("--num_epochs", type=int, default=3)
    p.add_argument("--learning_rate", type=float, default=3e-4)
    p.add_argument("--warmup_ratio", type=float, default=0.03)
    p.add_argument("--lora_r", type=int, default=8)
    p.add_argument("--lora_alpha", type=int, default=16)
    p.add_argument("--lora_dropout", type=float, default=0.05)
    p.add_argument("--lora_target_modules", nargs="+", default=["q_proj", "v_proj"])
    p.add_argument("--logging_steps", type=int, default=10)
    p.add_argument("--save_steps", type=int, default=200)
    return p.parse_args()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(message)s")
    os.makedirs(args.output_dir, exist_ok=True)
    device = torch.device("cuda")

    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    tokenizer.pad_token_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path, torch_dtype=torch.bfloat16)
    model.gradient_checkpointing_enable()
    model.enable_input_require_grads()
    replaced = inject_lora(model, args.lora_target_modules, args.lora_r, args.lora_alpha, args.lora_dropout)
    mark_only_lora_trainable(model)
    model.to(device)
    logger.info("injected LoRA into %d modules; %s", len(replaced), print_trainable_parameters(model))

    dataset = InstructionDataset(args.data_path, tokenizer, args.max_length)
    loader = DataLoader(dataset, batch_size=args.micro_batch_size, shuffle=True, num_workers=2,
                        collate_fn=SupervisedCollator(tokenizer.pad_token_id))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=args.learning_rate, weight_decay=0.0)
    updates_per_epoch = math.ceil(len(loader) / args.gradient_accumulation_steps)
    total_updates = updates_per_epoch * args.num_epochs
    scheduler = get_cosine_schedule_with_warmup(optimizer, int(args.warmup_ratio * total_updates), total_updates)

    model.train()
    global_step, running, t0 = 0, 0.0, time.time()
    for epoch in range(args.num_epochs):
        for step, batch in enumerate(loader):
            batch = {k: v.to(device) for k, v in batch.items()}
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()
            running += outputs.loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(loader):
                torch.nn.utils.clip_grad_norm_(params, 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                global_step += 1
                if global_step % args.logging_steps == 0:
                    logger.info("epoch %d update %d/%d loss %.4f lr %.2e (%.1fs)", epoch, global_step,
                                total_updates, running / (args.logging_steps * args.gradient_accumulation_steps),
                                scheduler.get_last_lr()[0], time.time() - t0)
                    running, t0 = 0.0, time.time()
                if global_step % args.save_steps == 0:
                    torch.save(lora_state_dict(model), os.path.join(args.output_dir, f"adapter_{global_step}.pt"))
    torch.save(lora_state_dict(model), os.path.join(args.output_dir, "adapter_model.pt"))
    logger.info("done: %d optimizer updates", global_step)


if __name__ == "__main__":
    main()
