"""Wen, Zhang, Li & Qiao 2016 (ECCV, "A Discriminative Feature Learning Approach for Deep Face Recognition"; ydwen/caffe-face): LeNet++ (paired 5x5 conv + PReLU stages with max-pool, fc to a 2-D feature + PReLU, fc to the logits, Caffe xavier init) returning (features, logits), loss = softmax cross-entropy + lambda * center loss sum ||x_i - c_yi||^2 / (2m) with lambda 0.003, centres updated by the paper's own rule (Algorithm 1: c_j -= alpha * sum_{y_i=j}(c_j - x_i) / (1 + n_j), alpha 0.5) after the SGD step; SGD lr 0.01 momentum 0.9 weight_decay 5e-4 (Caffe LeNet solver), layer structure after KaiyangZhou/pytorch-center-loss models.ConvNet."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 10
IMAGE_SIZE = 12           # MNIST 28x28, shrunk
BATCH_SIZE = 64
LAMBDA = 0.003            # loss weight of the center loss
ALPHA = 0.5               # learning rate of the centres
WORLD_SEED = 2016


# ---------------------------------------------------------------- data: "digits"
def _glyphs() -> torch.Tensor:
    """One stroke pattern per class: 3 random strokes, blurred."""
    g = torch.Generator().manual_seed(WORLD_SEED)
    glyphs = torch.zeros(NUM_CLASSES, 1, IMAGE_SIZE, IMAGE_SIZE)
    for k in range(NUM_CLASSES):
        for _ in range(3):
            p0 = 2 + torch.randint(0, 8, (2,), generator=g).float()
            p1 = 2 + torch.randint(0, 8, (2,), generator=g).float()
            for t in torch.linspace(0, 1, 16):
                r, c = (p0 + t * (p1 - p0)).round().long().tolist()
                glyphs[k, 0, r, c] = 1.0
    kernel = torch.tensor([[0.3, 0.6, 0.3], [0.6, 1.0, 0.6], [0.3, 0.6, 0.3]]).view(1, 1, 3, 3)
    return F.conv2d(glyphs, kernel, padding=1).clamp(0, 1)


def make_digits(gen: torch.Generator, n: int = BATCH_SIZE):
    labels = torch.arange(n) % NUM_CLASSES
    labels = labels[torch.randperm(n, generator=gen)]
    x = _glyphs()[labels]
    x = torch.stack([torch.roll(x[i], shifts=(int(torch.randint(-1, 2, (1,), generator=gen)), int(torch.randint(-1, 2, (1,), generator=gen))), dims=(1, 2))
                     for i in range(n)])
    x = (x * (0.7 + 0.3 * torch.rand(n, 1, 1, 1, generator=gen)) + 0.1 * torch.rand(x.shape, generator=gen)).clamp(0, 1)
    return (x - 0.1307) / 0.3081, labels        # transforms.Normalize((0.1307,), (0.3081,))


# ---------------------------------------------------------------- models.py ConvNet (LeNet++), shrunk
class ConvNet(nn.Module):
    """LeNet++ as described in the Center Loss paper."""

    def __init__(self, num_classes, widths=(8, 16, 32)):
        super().__init__()
        self.conv1_1 = nn.Conv2d(1, widths[0], 5, stride=1, padding=2)
        self.prelu1_1 = nn.PReLU()
        self.conv1_2 = nn.Conv2d(widths[0], widths[0], 5, stride=1, padding=2)
        self.prelu1_2 = nn.PReLU()

        self.conv2_1 = nn.Conv2d(widths[0], widths[1], 5, stride=1, padding=2)
        self.prelu2_1 = nn.PReLU()
        self.conv2_2 = nn.Conv2d(widths[1], widths[1], 5, stride=1, padding=2)
        self.prelu2_2 = nn.PReLU()

        self.conv3_1 = nn.Conv2d(widths[1], widths[2], 5, stride=1, padding=2)
        self.prelu3_1 = nn.PReLU()
        self.conv3_2 = nn.Conv2d(widths[2], widths[2], 5, stride=1, padding=2)
        self.prelu3_2 = nn.PReLU()

        self.flat_dim = widths[2] * (IMAGE_SIZE // 8) ** 2
        self.fc1 = nn.Linear(self.flat_dim, 2)
        self.prelu_fc1 = nn.PReLU()
        self.fc2 = nn.Linear(2, num_classes)
        # Caffe's "xavier" filler (uniform, variance 1 / fan_in) and zero biases, as in the paper's Caffe LeNet++;
        # with PyTorch's default init this 6-conv, 2-D-bottleneck net sits at chance for the first few hundred steps.
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_uniform_(m.weight, a=1)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.prelu1_1(self.conv1_1(x))
        x = self.prelu1_2(self.conv1_2(x))
        x = F.max_pool2d(x, 2)

        x = self.prelu2_1(self.conv2_1(x))
        x = self.prelu2_2(self.conv2_2(x))
        x = F.max_pool2d(x, 2)

        x = self.prelu3_1(self.conv3_1(x))
        x = self.prelu3_2(self.conv3_2(x))
        x = F.max_pool2d(x, 2)

        x = x.view(-1, self.flat_dim)
        x = self.prelu_fc1(self.fc1(x))
        y = self.fc2(x)

        return x, y


# ---------------------------------------------------------------- center loss with the paper's centre update
class CenterLoss(nn.Module):
    """L_C = 1/2 sum_i ||x_i - c_{y_i}||^2, divided by the batch size as Caffe's CenterLossLayer does.

    The centres are not trained by the optimiser: they are a buffer moved by update_centers (Algorithm 1)."""

    def __init__(self, num_classes=NUM_CLASSES, feat_dim=2):
        super().__init__()
        bound = (3.0 / feat_dim) ** 0.5                         # Caffe xavier center_filler
        self.register_buffer("centers", torch.empty(num_classes, feat_dim).uniform_(-bound, bound))

    def forward(self, x, labels):
        centers_batch = self.centers[labels]
        return ((x - centers_batch) ** 2).sum() / x.size(0) / 2

    @torch.no_grad()
    def update_centers(self, x, labels, alpha=ALPHA):
        """delta c_j = sum_{i: y_i = j} (c_j - x_i) / (1 + n_j);  c_j <- c_j - alpha * delta c_j."""
        x = x.detach()
        diff = torch.zeros_like(self.centers).index_add_(0, labels, self.centers[labels] - x)
        counts = torch.bincount(labels, minlength=self.centers.size(0)).to(x.dtype).unsqueeze(1)
        self.centers -= alpha * diff / (1 + counts)


def accuracy(outputs, labels) -> float:
    logits = outputs[1] if isinstance(outputs, (tuple, list)) else outputs
    return float((logits.argmax(dim=1) == labels).float().mean())


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=5e-4)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    model = ConvNet(num_classes=NUM_CLASSES)
    criterion_xent = nn.CrossEntropyLoss()
    criterion_cent = CenterLoss(NUM_CLASSES, feat_dim=2)

    def loss_fn(outputs, labels):
        features, logits = outputs
        return criterion_xent(logits, labels) + LAMBDA * criterion_cent(features, labels)

    def train_step(model, batch, optimizer):
        data, labels = batch
        features, logits = model(data)
        loss = criterion_xent(logits, labels) + LAMBDA * criterion_cent(features, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()                                  # W <- W - mu * dL/dW (the centres get no gradient)
        criterion_cent.update_centers(features, labels)   # c_j <- c_j - alpha * delta c_j
        return loss

    images, labels = make_digits(torch.Generator().manual_seed(seed))
    val_images, val_labels = make_digits(torch.Generator().manual_seed(seed + 1000))
    spec = {
        "model": model,
        "batch": (images, labels),
        "val_batch": (val_images, val_labels),
        "loss_fn": loss_fn,
        "task": "classification",
        "num_classes": NUM_CLASSES,
        "metric": accuracy,
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
