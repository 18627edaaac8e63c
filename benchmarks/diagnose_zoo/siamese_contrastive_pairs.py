"""harveyslash/Facial-Similarity-with-Siamese-Networks-in-Pytorch (Hadsell, Chopra & LeCun 2006 contrastive loss): shared cnn1 (ReflectionPad2d-Conv-ReLU-BatchNorm2d x3) + fc1 (Linear-ReLU-Linear-ReLU-Linear to 5-D), forward(input1, input2) -> (output1, output2), ContrastiveLoss(margin=2.0) = mean((1-y) d^2 + y clamp(margin - d, 0)^2) on F.pairwise_distance with y = 1 for different people, Adam lr 5e-4."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_PEOPLE = 8         # subjects (AT&T faces has 40; 10 images each)
IMAGE_SIZE = 12        # the repo resizes to 100x100 grey images
NUM_PAIRS = 48
MARGIN = 2.0
WORLD_SEED = 2006


# ---------------------------------------------------------------- data: grey "faces" of a few people
def _faces() -> torch.Tensor:
    g = torch.Generator().manual_seed(WORLD_SEED)
    low = torch.randn(NUM_PEOPLE, 1, 4, 4, generator=g)
    f = F.interpolate(low, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bicubic", align_corners=False)
    return f / f.flatten(1).std(1).view(-1, 1, 1, 1)


def _photo(person: int, gen: torch.Generator) -> torch.Tensor:
    x = _faces()[person]
    x = torch.roll(x, shifts=(int(torch.randint(-1, 2, (1,), generator=gen)), int(torch.randint(-1, 2, (1,), generator=gen))), dims=(1, 2))
    light = 0.3 * torch.linspace(-1, 1, IMAGE_SIZE).view(1, 1, -1) * (2 * torch.rand(1, generator=gen) - 1)  # side lighting
    x = 0.8 * x + light + 0.3 * torch.randn(x.shape, generator=gen)
    return torch.sigmoid(x)  # ToTensor range [0, 1]


def make_pairs(gen: torch.Generator, n: int = NUM_PAIRS):
    """SiameseNetworkDataset.__getitem__: the second image is of the same person with probability 1/2."""
    x0, x1, label = [], [], []
    for _ in range(n):
        a = int(torch.randint(0, NUM_PEOPLE, (1,), generator=gen))
        should_get_same_class = bool(torch.randint(0, 2, (1,), generator=gen))
        if should_get_same_class:
            b = a
        else:
            b = (a + int(torch.randint(1, NUM_PEOPLE, (1,), generator=gen))) % NUM_PEOPLE
        x0.append(_photo(a, gen))
        x1.append(_photo(b, gen))
        label.append([float(a != b)])
    return torch.stack(x0), torch.stack(x1), torch.tensor(label)


# ---------------------------------------------------------------- model
class SiameseNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn1 = nn.Sequential(
            nn.ReflectionPad2d(1),
            nn.Conv2d(1, 4, kernel_size=3),
            nn.ReLU(inplace=True),
            nn.BatchNorm2d(4),

            nn.ReflectionPad2d(1),
            nn.Conv2d(4, 8, kernel_size=3),
            nn.ReLU(inplace=True),
            nn.BatchNorm2d(8),

            nn.ReflectionPad2d(1),
            nn.Conv2d(8, 8, kernel_size=3),
            nn.ReLU(inplace=True),
            nn.BatchNorm2d(8),
        )
        self.fc1 = nn.Sequential(
            nn.Linear(8 * IMAGE_SIZE * IMAGE_SIZE, 64),
            nn.ReLU(inplace=True),

            nn.Linear(64, 64),
            nn.ReLU(inplace=True),

            nn.Linear(64, 5),
        )

    def forward_once(self, x):
        output = self.cnn1(x)
        output = output.view(output.size()[0], -1)
        output = self.fc1(output)
        return output

    def forward(self, input1, input2):
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)
        return output1, output2


class ContrastiveLoss(nn.Module):
    """Contrastive loss function. Based on: http://yann.lecun.com/exdb/publis/pdf/hadsell-chopra-lecun-06.pdf"""

    def __init__(self, margin: float = MARGIN):
        super().__init__()
        self.margin = margin

    def forward(self, output1, output2, label):
        euclidean_distance = F.pairwise_distance(output1, output2, keepdim=True)
        loss_contrastive = torch.mean((1 - label) * torch.pow(euclidean_distance, 2) +
                                      (label) * torch.pow(torch.clamp(self.margin - euclidean_distance, min=0.0), 2))
        return loss_contrastive


criterion = ContrastiveLoss()


def contrastive_loss(outputs, label) -> torch.Tensor:
    output1, output2 = outputs
    return criterion(output1, output2, label)


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=0.0005)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    img0, img1, label = make_pairs(torch.Generator().manual_seed(seed))
    v0, v1, vlabel = make_pairs(torch.Generator().manual_seed(seed + 1000))
    spec = {
        "model": SiameseNetwork(),
        "batch": ((img0, img1), label),        # label (B, 1) float: 1 = different people, 0 = same
        "val_batch": ((v0, v1), vlabel),
        "loss_fn": contrastive_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
