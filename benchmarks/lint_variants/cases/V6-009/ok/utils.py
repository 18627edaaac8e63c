import torch


class strLabelConverter:
    def __init__(self, alphabet):
        self.alphabet = alphabet + "-"
        self.dict = {char: i + 1 for i, char in enumerate(alphabet)}

    def encode(self, texts):
        length = [len(t) for t in texts]
        flat = [self.dict[c] for t in texts for c in t]
        return torch.IntTensor(flat), torch.IntTensor(length)

    def decode(self, preds):
        out = []
        for seq in preds.permute(1, 0).tolist():
            chars, prev = [], 0
            for idx in seq:
                if idx != 0 and idx != prev:
                    chars.append(self.alphabet[idx - 1])
                prev = idx
            out.append("".join(chars))
        return out


class averager:
    def __init__(self):
        self.n_count, self.sum = 0, 0.0

    def add(self, v):
        self.sum += float(v)
        self.n_count += 1

    def val(self):
        return self.sum / max(self.n_count, 1)

    def reset(self):
        self.n_count, self.sum = 0, 0.0
