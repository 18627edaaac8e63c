import torch


class strLabelConverter:
    def __init__(self, alphabet):
        self.alphabet = alphabet + "-"
        self.dict = {char: i + 1 for i, char in enumerate(alphabet)}

    def encode(self, texts):
        lengths = [len(t) for t in texts]
        flat = [self.dict[c] for t in texts for c in t]
        return torch.IntTensor(flat), torch.IntTensor(lengths)

    def decode(self, t, length):
        chars = []
        for i in range(length):
            if t[i] != 0 and not (i > 0 and t[i - 1] == t[i]):
                chars.append(self.alphabet[t[i] - 1])
        return "".join(chars)


def resize_normalize(img, size=(100, 32)):
    import torchvision.transforms.functional as TF
    img = img.resize(size)
    tensor = TF.to_tensor(img)
    return tensor.sub_(0.5).div_(0.5)
