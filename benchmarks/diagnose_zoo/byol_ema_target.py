"""lucidrains/byol-pytorch (BYOL, Grill et al. 2020): online ResNet encoder + projector MLP (Linear-BN-ReLU-Linear) + predictor MLP, target encoder+projector a frozen EMA copy (moving_average_decay 0.99) updated after each step, two views augmented on the device inside forward (DEFAULT_AUG), loss = mean over the batch of (2 - 2 cos(pred_1, target_2)) + (2 - 2 cos(pred_2, target_1)), Adam lr 3e-4 as in its README."""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

from ._views import BasicBlock

NUM_CLASSES = 4  # shape classes of the synthetic images (for probing only; the loss ignores them)
IMG = 12
BATCH = 32
PROJECTION_SIZE, PROJECTION_HIDDEN = 32, 64
MOVING_AVERAGE_DECAY = 0.99
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


# ----------------------------------------------------------------------------- data
def make_images(gen: torch.Generator, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Coloured shapes (horizontal bar, vertical bar, disk, ring) at random positions/sizes/colours, in [0, 1]."""
    labels = torch.randint(0, NUM_CLASSES, (n,), generator=gen)
    yy, xx = torch.meshgrid(torch.arange(IMG).float(), torch.arange(IMG).float(), indexing="ij")
    cy = IMG / 2 - 0.5 + (torch.rand(n, generator=gen) * 2 - 1)
    cx = IMG / 2 - 0.5 + (torch.rand(n, generator=gen) * 2 - 1)
    r = 3.0 + 1.0 * torch.rand(n, generator=gen)
    dy, dx = yy - cy.view(-1, 1, 1), xx - cx.view(-1, 1, 1)
    rr, d2 = r.view(-1, 1, 1), dy**2 + dx**2
    disk = d2 <= rr**2
    hbar = (dy.abs() <= 1) & (dx.abs() <= rr)
    vbar = (dx.abs() <= 1) & (dy.abs() <= rr)
    ring = disk & (d2 >= (rr - 1.6) ** 2)
    masks = torch.stack([hbar, vbar, disk, ring], 1)[torch.arange(n), labels].float().unsqueeze(1)
    bg = torch.rand(n, 3, 1, 1, generator=gen) * 0.3
    fg = bg + 0.5 + 0.2 * torch.rand(n, 3, 1, 1, generator=gen)
    img = bg * (1 - masks) + fg * masks + 0.03 * torch.randn(n, 3, IMG, IMG, generator=gen)
    return img.clamp(0, 1), labels


def default_aug(x: torch.Tensor) -> torch.Tensor:
    """byol-pytorch's DEFAULT_AUG on a [0, 1] batch: RandomApply(ColorJitter(0.8, 0.8, 0.8, 0.2), p=0.3),
    RandomGrayscale(p=0.2), RandomHorizontalFlip(), RandomApply(GaussianBlur((3, 3), (1.0, 2.0)), p=0.2),
    RandomResizedCrop((IMG, IMG)) (scale 0.08-1, ratio 3/4-4/3), Normalize(ImageNet mean, std).
    Hue jitter is left out. Uses the global RNG (randomness inside forward)."""
    n = x.size(0)
    # colour jitter (brightness, contrast, saturation), p 0.3
    b = 1 + 0.8 * (2 * torch.rand(n, 1, 1, 1) - 1)
    c = 1 + 0.8 * (2 * torch.rand(n, 1, 1, 1) - 1)
    s = 1 + 0.8 * (2 * torch.rand(n, 1, 1, 1) - 1)
    y = (x * b).clamp(0, 1)
    m = y.mean(dim=(1, 2, 3), keepdim=True)
    y = ((y - m) * c + m).clamp(0, 1)
    g = y.mean(1, keepdim=True)
    y = ((y - g) * s + g).clamp(0, 1)
    apply = (torch.rand(n, 1, 1, 1) < 0.3).float()
    x = apply * y + (1 - apply) * x
    gray = (torch.rand(n, 1, 1, 1) < 0.2).float()
    x = gray * x.mean(1, keepdim=True).expand_as(x) + (1 - gray) * x
    # gaussian blur 3x3, sigma in [1, 2], p 0.2
    sigma = 1.0 + torch.rand(n)
    k1 = torch.exp(-torch.tensor([-1.0, 0.0, 1.0]).view(1, 3) ** 2 / (2 * sigma.view(-1, 1) ** 2))
    k1 = k1 / k1.sum(1, keepdim=True)
    k2 = k1.unsqueeze(2) * k1.unsqueeze(1)
    xp = F.pad(x, (1, 1, 1, 1), mode="reflect")
    blurred = F.conv2d(xp.reshape(1, n * 3, *xp.shape[2:]), k2.repeat_interleave(3, 0).unsqueeze(1), groups=n * 3)
    apply = (torch.rand(n, 1, 1, 1) < 0.2).float()
    x = apply * blurred.view_as(x) + (1 - apply) * x
    # horizontal flip + random resized crop, one affine warp
    area = 0.08 + 0.92 * torch.rand(n)
    ratio = torch.exp(math.log(3 / 4) + (math.log(4 / 3) - math.log(3 / 4)) * torch.rand(n))
    w = torch.sqrt(area * ratio).clamp(max=1.0)
    h = torch.sqrt(area / ratio).clamp(max=1.0)
    flip = torch.where(torch.rand(n) < 0.5, -1.0, 1.0)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0], theta[:, 0, 2] = w * flip, (1 - w) * (2 * torch.rand(n) - 1)
    theta[:, 1, 1], theta[:, 1, 2] = h, (1 - h) * (2 * torch.rand(n) - 1)
    grid = F.affine_grid(theta, [n, 3, IMG, IMG], align_corners=False)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="border", align_corners=False)
    return (x - MEAN) / STD


# ----------------------------------------------------------------------------- model


class ResNet(nn.Module):
    """A small torchvision-style ResNet (CIFAR stem, two stages of one BasicBlock, avgpool, fc)."""

    def __init__(self, widths=(8, 16, 32), num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = BasicBlock(widths[0], widths[1], 2)
        self.layer2 = BasicBlock(widths[1], widths[2], 2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(widths[2], num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet() -> ResNet:
    net = ResNet()
    net.fc = nn.Identity()  # the hook reads layer -2 (avgpool); the classifier head would get no gradient
    return net


def MLP(dim, projection_size, hidden_size):
    return nn.Sequential(nn.Linear(dim, hidden_size), nn.BatchNorm1d(hidden_size), nn.ReLU(inplace=True),
                         nn.Linear(hidden_size, projection_size))


class NetWrapper(nn.Module):
    """byol-pytorch's NetWrapper: the representation is the net's hidden layer -2 (the flattened avgpool output,
    read by a forward hook), followed by the projector MLP."""

    def __init__(self, net, projection_size, projection_hidden_size, layer=-2):
        super().__init__()
        self.net = net
        self.layer = layer
        self.projector = MLP(32, projection_size, projection_hidden_size)
        self.hidden = {}
        children = [*self.net.children()]
        children[self.layer].register_forward_hook(self._hook)

    def _hook(self, _, input, output):
        self.hidden[output.device] = output.flatten(1)

    def get_representation(self, x):
        self.hidden.clear()
        _ = self.net(x)
        hidden = self.hidden[x.device]
        self.hidden.clear()
        return hidden

    def forward(self, x, return_projection=True):
        representation = self.get_representation(x)
        if not return_projection:
            return representation
        return self.projector(representation), representation


class BYOL(nn.Module):
    """forward(x) -> (online_pred_one, online_pred_two, target_proj_one, target_proj_two).
    In training mode the two views are drawn inside forward; in eval mode both views are the normalised images."""

    def __init__(self, net, projection_size=PROJECTION_SIZE, projection_hidden_size=PROJECTION_HIDDEN,
                 moving_average_decay=MOVING_AVERAGE_DECAY):
        super().__init__()
        self.online_encoder = NetWrapper(net, projection_size, projection_hidden_size)
        self.online_predictor = MLP(projection_size, projection_size, projection_hidden_size)
        self.moving_average_decay = moving_average_decay
        self.target_encoder = copy.deepcopy(self.online_encoder)  # singleton target, created up front
        for p in self.target_encoder.parameters():
            p.requires_grad = False

    @torch.no_grad()
    def update_moving_average(self):
        beta = self.moving_average_decay
        for current_params, ma_params in zip(self.online_encoder.parameters(), self.target_encoder.parameters()):
            ma_params.data = ma_params.data * beta + (1 - beta) * current_params.data

    def forward(self, x):
        if self.training:
            image_one, image_two = default_aug(x), default_aug(x)
        else:
            image_one = image_two = (x - MEAN) / STD
        images = torch.cat((image_one, image_two), dim=0)
        online_projections, _ = self.online_encoder(images)
        online_predictions = self.online_predictor(online_projections)
        online_pred_one, online_pred_two = online_predictions.chunk(2, dim=0)
        with torch.no_grad():
            target_projections, _ = self.target_encoder(images)
            target_projections = target_projections.detach()
            target_proj_one, target_proj_two = target_projections.chunk(2, dim=0)
        return online_pred_one, online_pred_two, target_proj_one, target_proj_two


def loss_fn(x, y):
    x = F.normalize(x, dim=-1, p=2)
    y = F.normalize(y, dim=-1, p=2)
    return 2 - 2 * (x * y).sum(dim=-1)


def byol_loss(outputs, _targets=None) -> torch.Tensor:
    online_pred_one, online_pred_two, target_proj_one, target_proj_two = outputs
    loss_one = loss_fn(online_pred_one, target_proj_two.detach())
    loss_two = loss_fn(online_pred_two, target_proj_one.detach())
    return (loss_one + loss_two).mean()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=3e-4)


def train_step(model: BYOL, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    """The README loop: loss = learner(images); opt.zero_grad(); loss.backward(); opt.step();
    learner.update_moving_average()."""
    images, _ = batch
    loss = byol_loss(model(images))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model.update_moving_average()  # update moving average of target encoder
    return loss.detach()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    images, labels = make_images(gen, BATCH)
    spec = {
        "model": BYOL(resnet()),
        "batch": (images, labels),  # raw [0, 1] images; labels ride along as in the loader, the loss ignores them
        "loss_fn": byol_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
