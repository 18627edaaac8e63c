import os

import torch


class Dictionary:
    def __init__(self, symbols):
        self.symbols = ["<pad>", "</s>", "<unk>"] + symbols
        self.indices = {s: i for i, s in enumerate(self.symbols)}

    def pad(self):
        return 0

    def __len__(self):
        return len(self.symbols)

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls([line.split()[0] for line in f])


class LanguageModelingTask:
    def __init__(self, args, dictionary):
        self.args = args
        self.dictionary = dictionary

    @property
    def target_dictionary(self):
        return self.dictionary

    @classmethod
    def setup_task(cls, args):
        return cls(args, Dictionary.load(os.path.join(args.data, "dict.txt")))

    def get_batch_iterator(self, split, tokens_per_sample=256, batch_size=32):
        data = torch.load(os.path.join(self.args.data, f"{split}.pt"))
        for i in range(0, data.size(0) - 1, tokens_per_sample * batch_size):
            chunk = data[i:i + tokens_per_sample * batch_size + 1]
            n = (chunk.numel() - 1) // tokens_per_sample
            if n == 0:
                break
            src = chunk[:n * tokens_per_sample].view(n, tokens_per_sample)
            tgt = chunk[1:n * tokens_per_sample + 1].view(n, tokens_per_sample)
            yield {"net_input": {"src_tokens": src}, "target": tgt,
                   "ntokens": tgt.numel()}
