"""Synthetic support tickets.

Every ticket is a list of word tokens and a category name. Each category has a set of
topic words; a ticket mixes topic words with background words drawn from the whole
vocabulary. Splits are generated independently with their own seeds, as if exported
on different days from the ticket system.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Dict, List

TOPIC_SEED = 77
SPLIT_SEEDS = {"train": 1, "val": 2, "test": 3}


@dataclass
class Ticket:
    tokens: List[str]
    category: str


def _topics(categories: List[str], vocab_words: int) -> Dict[str, List[str]]:
    rng = random.Random(TOPIC_SEED)
    words = [f"w{i}" for i in range(vocab_words)]
    return {c: rng.sample(words, 12) for c in categories}


def generate_split(cfg: Dict, split: str, seed_offset: int = 0) -> List[Ticket]:
    d = cfg["data"]
    total = d[f"{split}_size"]
    topics = _topics(d["categories"], d["vocab_words"])
    rng = random.Random(SPLIT_SEEDS[split] * 1000 + cfg["seed"] + seed_offset)
    tickets = []
    for category in d["categories"]:
        for _ in range(int(round(total * d["class_share"][category]))):
            tokens = [rng.choice(topics[category]) if rng.random() < d["topic_strength"]
                      else f"w{rng.randrange(d['vocab_words'])}" for _ in range(d["doc_length"])]
            tickets.append(Ticket(tokens, category))
    rng.shuffle(tickets)
    return tickets
