"""Synthetic instruction data: ``<bos> op letters <sep> answer <eos>``.

Two instructions: ``rev:`` (answer = letters reversed) and ``cpy:`` (answer =
letters unchanged).  Each example is a (prompt_ids, response_ids) pair; the
collator assembles them into model inputs.
"""
from __future__ import annotations

import random

from tokenizer import ALPHABET, CharTokenizer


def make_example(rng: random.Random, tok: CharTokenizer, min_len: int, max_len: int):
    op = rng.choice(["rev:", "cpy:"])
    letters = [rng.choice(ALPHABET) for _ in range(rng.randint(min_len, max_len))]
    answer = letters[::-1] if op == "rev:" else letters
    prompt = [tok.bos_id] + tok.encode([op] + letters) + [tok.sep_id]
    response = tok.encode(answer) + [tok.eos_id]
    return prompt, response


def make_split(n: int, seed: int, tok: CharTokenizer, min_len: int, max_len: int):
    rng = random.Random(seed)
    return [make_example(rng, tok, min_len, max_len) for _ in range(n)]


def build_datasets(cfg, tok: CharTokenizer):
    train = make_split(cfg.n_train, cfg.data_seed, tok, cfg.min_len, cfg.max_len)
    eval_ = make_split(cfg.n_eval, cfg.data_seed + 1, tok, cfg.min_len, cfg.max_len)
    return train, eval_
