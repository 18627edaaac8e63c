import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from transformers import default_data_collator


def prepare_train_features(examples, tokenizer, max_length=384, doc_stride=128):
    questions = [q.lstrip() for q in examples["question"]]
    enc = tokenizer(questions, examples["context"], truncation="only_second", max_length=max_length,
                    stride=doc_stride, return_overflowing_tokens=True, return_offsets_mapping=True,
                    padding="max_length")
    sample_map = enc.pop("overflow_to_sample_mapping")
    offsets_all = enc.pop("offset_mapping")
    enc["start_positions"], enc["end_positions"] = [], []
    for i, offsets in enumerate(offsets_all):
        cls_index = enc["input_ids"][i].index(tokenizer.cls_token_id)
        seq_ids = enc.sequence_ids(i)
        answer = examples["answers"][sample_map[i]]
        start_char = answer["answer_start"][0]
        end_char = start_char + len(answer["text"][0])
        ts = 0
        while seq_ids[ts] != 1:
            ts += 1
        te = len(enc["input_ids"][i]) - 1
        while seq_ids[te] != 1:
            te -= 1
        if not (offsets[ts][0] <= start_char and offsets[te][1] >= end_char):
            enc["start_positions"].append(cls_index)
            enc["end_positions"].append(cls_index)
            continue
        while ts < len(offsets) and offsets[ts][0] <= start_char:
            ts += 1
        enc["start_positions"].append(ts - 1)
        while offsets[te][1] >= end_char:
            te -= 1
        enc["end_positions"].append(te + 1)
    return enc


def build_train_loader(tokenizer, batch_size, world_size, rank, max_length=384, doc_stride=128, workers=4):
    raw = load_dataset("squad", split="train")
    feats = raw.map(lambda ex: prepare_train_features(ex, tokenizer, max_length, doc_stride), batched=True,
                    remove_columns=raw.column_names, desc="tokenizing train")
    feats.set_format("torch")
    sampler = DistributedSampler(feats, num_replicas=world_size, rank=rank, shuffle=True, seed=42)
    loader = DataLoader(feats, batch_size=batch_size, sampler=sampler, collate_fn=default_data_collator,
                        num_workers=workers, pin_memory=True, drop_last=True)
    return loader, sampler


def build_eval_loader(tokenizer, batch_size, max_length=384, doc_stride=128):
    raw = load_dataset("squad", split="validation")
    feats = raw.map(lambda ex: prepare_train_features(ex, tokenizer, max_length, doc_stride), batched=True,
                    remove_columns=raw.column_names, desc="tokenizing validation")
    feats.set_format("torch")
    return DataLoader(feats, batch_size=batch_size, collate_fn=default_data_collator)


def span_exact_match(start_logits, end_logits, start_positions, end_positions, max_answer_len=30):
    scores = start_logits.unsqueeze(2) + end_logits.unsqueeze(1)
    n = scores.size(1)
    valid = torch.ones(n, n, dtype=torch.bool, device=scores.device).triu().tril(max_answer_len - 1)
    scores = scores.masked_fill(~valid, float("-inf")).flatten(1)
    best = scores.argmax(dim=1)
    pred_s, pred_e = best // n, best % n
    return ((pred_s == start_positions) & (pred_e == end_positions)).float().sum().item()
