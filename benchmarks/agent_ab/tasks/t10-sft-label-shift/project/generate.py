"""Greedy decoding and exact-match evaluation."""
from __future__ import annotations

import torch


@torch.no_grad()
def greedy_generate(model, prompt_ids: list[int], eos_id: int, max_new_tokens: int = 12) -> list[int]:
    was_training = model.training
    model.eval()
    ids = list(prompt_ids)
    out = []
    for _ in range(max_new_tokens):
        if len(ids) >= model.max_seq_len:
            break
        logits = model(torch.tensor([ids]))["logits"]
        nxt = int(logits[0, -1].argmax())
        if nxt == eos_id:
            break
        out.append(nxt)
        ids.append(nxt)
    model.train(was_training)
    return out


def exact_match(model, examples, tok, limit: int | None = None) -> float:
    examples = examples[:limit] if limit else examples
    hits = 0
    for prompt, response in examples:
        pred = greedy_generate(model, prompt, tok.eos_id)
        hits += int(pred == response[:-1])  # response ends with <eos>
    return hits / len(examples)
