"""Fine-tune the toy causal LM on the instruction data: python train.py [--steps N]"""
from __future__ import annotations

import argparse
import dataclasses
import math
import random

import torch
from torch.utils.data import DataLoader

from collator import SFTCollator
from config import Config
from data import build_datasets
from generate import exact_match, greedy_generate
from model import TinyCausalLM
from tokenizer import CharTokenizer


def lr_lambda(cfg: Config):
    def f(step: int) -> float:
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        progress = (step - cfg.warmup_steps) / max(1, cfg.steps - cfg.warmup_steps)
        return 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return f


def train(cfg: Config, verbose: bool = True):
    random.seed(cfg.seed)
    torch.manual_seed(cfg.seed)
    tok = CharTokenizer()
    train_set, eval_set = build_datasets(cfg, tok)
    loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True, drop_last=True,
                        collate_fn=SFTCollator(tok.pad_id, cfg.max_seq_len),
                        generator=torch.Generator().manual_seed(cfg.seed))
    model = TinyCausalLM(tok.vocab_size, cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.max_seq_len, cfg.dropout)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda(cfg))
    history = []
    step = 0
    model.train()
    while step < cfg.steps:
        for batch in loader:
            out = model(**batch)
            optimizer.zero_grad(set_to_none=True)
            out["loss"].backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            history.append(out["loss"].item())
            if verbose and step % cfg.log_every == 0:
                print(f"step {step:5d}  loss {out['loss'].item():.4f}  lr {scheduler.get_last_lr()[0]:.2e}")
            if step >= cfg.steps:
                break
    em = exact_match(model, eval_set, tok)
    if verbose:
        print(f"eval exact match: {em:.3f}")
        for prompt, response in eval_set[:3]:
            pred = greedy_generate(model, prompt, tok.eos_id)
            print(f"  {tok.decode(prompt)!r:16} -> {tok.decode(pred, skip_special=False)!r:14} (want {tok.decode(response)!r})")
    return model, {"loss": history, "exact_match": em}


def main():
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
    args = parser.parse_args()
    torch.set_num_threads(1)
    train(Config(**vars(args)))


if __name__ == "__main__":
    main()
