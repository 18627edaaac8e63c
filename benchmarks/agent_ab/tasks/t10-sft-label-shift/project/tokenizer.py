"""Character tokenizer for the toy instruction data."""
from __future__ import annotations

SPECIAL = ["<pad>", "<bos>", "<eos>", "<sep>"]
ALPHABET = list("abcdefghijklmnop")
OPS = ["rev:", "cpy:"]


class CharTokenizer:
    def __init__(self):
        self.itos = SPECIAL + OPS + ALPHABET
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.pad_id = self.stoi["<pad>"]
        self.bos_id = self.stoi["<bos>"]
        self.eos_id = self.stoi["<eos>"]
        self.sep_id = self.stoi["<sep>"]

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def encode(self, tokens: list[str]) -> list[int]:
        return [self.stoi[t] for t in tokens]

    def decode(self, ids: list[int], skip_special: bool = True) -> str:
        out = []
        for i in ids:
            tok = self.itos[i]
            if skip_special and tok in SPECIAL:
                continue
            out.append(tok)
        return "".join(out)
