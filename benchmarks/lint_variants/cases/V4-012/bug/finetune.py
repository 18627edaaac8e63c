import argparse
import functools
import os

import deepspeed
import torch
from torch.utils.data import DataLoader, DistributedSampler
from transformers import AutoModelForCausalLM, AutoTokenizer

from dataset import InstructionDataset, collate


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", default="EleutherAI/pythia-1.4b")
    parser.add_argument("--data_path", default="data/alpaca.jsonl")
    parser.add_argument("--per_device_batch_size", type=int, default=4)
    parser.add_argument("--num_epochs", type=int, default=3)
    parser.add_argument("--output_dir", default="ckpt")
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def main():
    args = parse_args()
    deepspeed.init_distributed()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)
    model.gradient_checkpointing_enable()

    train_ds = InstructionDataset(args.data_path, tokenizer)
    sampler = DistributedSampler(train_ds, shuffle=True, seed=1234)
    train_loader = DataLoader(train_ds, batch_size=args.per_device_batch_size, sampler=sampler,
                              collate_fn=functools.partial(collate, pad_id=tokenizer.pad_token_id),
                              num_workers=2, pin_memory=True)

    engine, _, _, _ = deepspeed.initialize(args=args, model=model,
                                           model_parameters=model.parameters())
    device = engine.device

    global_step = 0
    for epoch in range(args.num_epochs):
        engine.train()
        for batch in train_loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            loss = engine(**batch).loss
            engine.backward(loss)
            engine.step()
            global_step += 1
            if engine.global_rank == 0 and global_step % 20 == 0:
                print(f"epoch {epoch} step {global_step} loss {loss.item():.4f} "
                      f"lr {engine.get_lr()[0]:.2e}")
        engine.save_checkpoint(args.output_dir, tag=f"epoch{epoch}")

    if engine.global_rank == 0:
        os.makedirs(args.output_dir, exist_ok=True)
        tokenizer.save_pretrained(args.output_dir)


if __name__ == "__main__":
    main()
