import json
from dataclasses import dataclass
from typing import Dict, List

import torch
from torch.utils.data import Dataset

IGNORE_INDEX = -100
PROMPT_WITH_INPUT = (
    "Below is an instruction that describes a task, paired with an input that provides further context. "
    "Write a response that appropriately completes the request.\n\n"
    "### Instruction:\n{instruction}\n\n### Input:\n{input}\n\n### Response:\n"
)
PROMPT_NO_INPUT = (
    "Below is an instruction that describes a task. "
    "Write a response that appropriately completes the request.\n\n"
    "### Instruction:\n{instruction}\n\n### Response:\n"
)


def build_prompt(example: Dict[str, str]) -> str:
    template = PROMPT_WITH_INPUT if example.get("input") else PROMPT_NO_INPUT
    return template.format(**example)


class InstructionDataset(Dataset):
    def __init__(self, path: str, tokenizer, max_length: int = 512):
        with open(path) as f:
            self.examples = json.load(f)
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        ex = self.examples[i]
        prompt = build_prompt(ex)
        prompt_ids = self.tokenizer(prompt, add_special_tokens=True)["input_ids"]
        answer_ids = self.tokenizer(ex["output"], add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        input_ids = (prompt_ids + answer_ids)[: self.max_length]
        labels = ([IGNORE_INDEX] * len(prompt_ids) + answer_ids)[: self.max_length]
        return {"input_ids": torch.tensor(input_ids), "labels": torch.tensor(labels)}


@dataclass
class SupervisedCollator:
    pad_token_id: int

    def __call__(self, batch: List[Dict[str, torch.Tensor]]) -> Dict[str, torch.Tensor]:
        input_ids = torch.nn.utils.rnn.pad_sequence([b["input_ids"] for b in batch], batch_first=True,
                                                    padding_value=self.pad_token_id)
        labels = torch.nn.utils.rnn.pad_sequence([b["labels"] for b in batch], batch_first=True,
                                                 padding_value=IGNORE_INDEX)
        return {"input_ids": input_ids, "labels": labels, "attention_mask": input_ids.ne(self.pad_token_id)}
