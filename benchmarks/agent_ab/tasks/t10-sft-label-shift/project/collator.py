"""Batch assembly for supervised fine-tuning.

Follows the usual causal-LM convention: ``labels`` is aligned with
``input_ids`` (same length, same positions) and holds -100 wherever no loss
should be taken: the prompt tokens and the right padding.  Shifting labels to
next-token targets is the model's job.
"""
from __future__ import annotations

import torch

IGNORE_INDEX = -100


class SFTCollator:
    def __init__(self, pad_id: int, max_seq_len: int):
        self.pad_id = pad_id
        self.max_seq_len = max_seq_len

    def __call__(self, examples):
        seqs, labels = [], []
        for prompt, response in examples:
            ids = (prompt + response)[: self.max_seq_len]
            lab = ([IGNORE_INDEX] * len(prompt) + response)[: self.max_seq_len]
            seqs.append(ids)
            labels.append(lab)
        width = max(len(s) for s in seqs)
        input_ids = torch.full((len(seqs), width), self.pad_id, dtype=torch.long)
        label_ids = torch.full((len(seqs), width), IGNORE_INDEX, dtype=torch.long)
        attention_mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for i, (s, l) in enumerate(zip(seqs, labels)):
            input_ids[i, : len(s)] = torch.tensor(s)
            label_ids[i, : len(l)] = torch.tensor(l)
            attention_mask[i, : len(s)] = 1
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": label_ids}
