"""lucidrains/byol-pytorch (Grill et al. 2020, BYOL): the learner augments the raw batch twice inside forward (torchvision-style DEFAULT_AUG, one draw of parameters per batch, active in eval too), online encoder = ResNet representation + projector MLP (Linear-BN-ReLU-Linear), online predictor MLP, target encoder = deep copy with requires_grad False updated by EMA (moving_average_decay 0.99) after each optimiser step, loss 2 - 2 cos(p, z') symmetrised over the two views; Adam lr 3e-4 over learner.parameters()."""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

NUM_CLASSES = 6      # latent object classes; BYOL never sees the labels
IMAGE_SIZE = 10
BATCH_SIZE = 24
PROJECTION_SIZE, PROJECTION_HIDDEN_SIZE = 16, 64     # 256 / 4096 in the repo
MOVING_AVERAGE_DECAY = 0.99
WORLD_SEED = 2020


# ---------------------------------------------------------------- data: raw images in [0, 1]
def _class_templates() -> torch.Tensor:
    g = torch.Generator().manual_seed(WORLD_SEED)
    low = torch.randn(NUM_CLASSES, 1, 4, 4, generator=g)
    t = F.interpolate(low, size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)
    return (t / t.flatten(1).std(1).view(-1, 1, 1, 1)).expand(-1, 3, -1, -1)


def make_images(gen: torch.Generator, n: int = BATCH_SIZE):
    labels = torch.arange(n) % NUM_CLASSES
    labels = labels[torch.randperm(n, generator=gen)]
    x = _class_templates()[labels]
    texture = F.interpolate(torch.randn(n, 3, 3, 3, generator=gen), size=(IMAGE_SIZE, IMAGE_SIZE), mode="bilinear", align_corners=False)
    x = x + 0.3 * texture + torch.randn(n, 3, 1, 1, generator=gen)
    shifts = torch.randint(-3, 4, (n, 2), generator=gen)
    x = torch.stack([torch.roll(x[i], shifts=(int(shifts[i, 0]), int(shifts[i, 1])), dims=(1, 2)) for i in range(n)])
    return torch.sigmoid(x), labels


# ---------------------------------------------------------------- DEFAULT_AUG, written with torch ops
def _gray(x):
    return (0.299 * x[:, 0:1] + 0.587 * x[:, 1:2] + 0.114 * x[:, 2:3]).expand_as(x)


class RandomApply(nn.Module):
    def __init__(self, fn, p):
        super().__init__()
        self.fn = fn
        self.p = p

    def forward(self, x):
        if random_float() > self.p:
            return x
        return self.fn(x)


def random_float(lo: float = 0.0, hi: float = 1.0) -> float:
    return lo + (hi - lo) * float(torch.rand(()))


class ColorJitter(nn.Module):
    """brightness, contrast, saturation (hue left out); one factor per call, as torchvision on a batched tensor."""

    def __init__(self, brightness, contrast, saturation):
        super().__init__()
        self.b, self.c, self.s = brightness, contrast, saturation

    def forward(self, x):
        x = (x * random_float(1 - self.b, 1 + self.b)).clamp(0, 1)
        m = _gray(x).mean(dim=(-3, -2, -1), keepdim=True)
        x = ((x - m) * random_float(1 - self.c, 1 + self.c) + m).clamp(0, 1)
        g = _gray(x)
        return (g + (x - g) * random_float(1 - self.s, 1 + self.s)).clamp(0, 1)


class RandomGrayscale(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, x):
        return _gray(x) if random_float() < self.p else x


class RandomHorizontalFlip(nn.Module):
    def forward(self, x):
        return x.flip(-1) if random_float() < 0.5 else x


class GaussianBlur(nn.Module):
    def __init__(self, kernel_size=3, sigma=(1.0, 2.0)):
        super().__init__()
        self.k, self.sigma = kernel_size, sigma

    def forward(self, x):
        sigma = random_float(*self.sigma)
        r = torch.arange(self.k, dtype=x.dtype) - self.k // 2
        w = torch.exp(-(r ** 2) / (2 * sigma ** 2))
        w = w / w.sum()
        kernel = (w[:, None] * w[None, :]).expand(x.size(1), 1, self.k, self.k)
        x = F.pad(x, (self.k // 2,) * 4, mode="reflect")
        return F.conv2d(x, kernel, groups=x.size(1))


class RandomResizedCrop(nn.Module):
    def __init__(self, size, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
        super().__init__()
        self.size, self.scale, self.ratio = size, scale, ratio

    def forward(self, x):
        H, W = x.shape[-2:]
        for _ in range(10):
            area = H * W * random_float(*self.scale)
            aspect = math.exp(random_float(math.log(self.ratio[0]), math.log(self.ratio[1])))
            w = int(round(math.sqrt(area * aspect)))
            h = int(round(math.sqrt(area / aspect)))
            if 0 < w <= W and 0 < h <= H:
                i = int(torch.randint(0, H - h + 1, ()))
                j = int(torch.randint(0, W - w + 1, ()))
                break
        else:
            i, j, h, w = 0, 0, H, W
        crop = x[..., i:i + h, j:j + w]
        return F.interpolate(crop, size=(self.size, self.size), mode="bilinear", align_corners=False, antialias=True)


class Normalize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(std).view(1, 3, 1, 1))

    def forward(self, x):
        return (x - self.mean) / self.std


def default_aug(image_size: int) -> nn.Module:
    return nn.Sequential(
        RandomApply(ColorJitter(0.8, 0.8, 0.8), p=0.3),
        RandomGrayscale(p=0.2),
        RandomHorizontalFlip(),
        RandomApply(GaussianBlur(3, (1.0, 2.0)), p=0.2),
        RandomResizedCrop(image_size),
        Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    )


# ---------------------------------------------------------------- networks
class BasicBlock(nn.Module):
    def __init__(self, in_planes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = None
        if stride != 1 or in_planes != planes:
            self.downsample = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNet(nn.Module):
    """ResNet up to the global average pool (the repo hooks resnet50's 'avgpool'; here the net ends there)."""

    def __init__(self, widths=(8, 16)):
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        self.layer1 = BasicBlock(widths[0], widths[0])
        self.layer2 = BasicBlock(widths[0], widths[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.out_features = widths[1]

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return self.flatten(self.avgpool(self.layer2(self.layer1(x))))


def MLP(dim, projection_size, hidden_size=4096):
    return nn.Sequential(
        nn.Linear(dim, hidden_size),
        nn.BatchNorm1d(hidden_size),
        nn.ReLU(inplace=True),
        nn.Linear(hidden_size, projection_size),
    )


class NetWrapper(nn.Module):
    """Representation of the base net followed by the projector."""

    def __init__(self, net, projection_size, projection_hidden_size, dim):
        super().__init__()
        self.net = net
        self.projector = MLP(dim, projection_size, projection_hidden_size)

    def forward(self, x, return_projection=True):
        representation = self.net(x)
        if not return_projection:
            return representation
        projection = self.projector(representation)
        return projection, representation


class EMA:
    def __init__(self, beta):
        super().__init__()
        self.beta = beta

    def update_average(self, old, new):
        if old is None:
            return new
        return old * self.beta + (1 - self.beta) * new


def update_moving_average(ema_updater, ma_model, current_model):
    for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
        old_weight, up_weight = ma_params.data, current_params.data
        ma_params.data = ema_updater.update_average(old_weight, up_weight)


def set_requires_grad(model, val):
    for p in model.parameters():
        p.requires_grad = val


def loss_fn(x, y):
    x = F.normalize(x, dim=-1, p=2)
    y = F.normalize(y, dim=-1, p=2)
    return 2 - 2 * (x * y).sum(dim=-1)


class BYOL(nn.Module):
    def __init__(self, net, image_size, dim, projection_size=PROJECTION_SIZE, projection_hidden_size=PROJECTION_HIDDEN_SIZE,
                 moving_average_decay=MOVING_AVERAGE_DECAY):
        super().__init__()
        self.net = net
        self.augment1 = default_aug(image_size)
        self.augment2 = self.augment1
        self.online_encoder = NetWrapper(net, projection_size, projection_hidden_size, dim)
        self.target_encoder = copy.deepcopy(self.online_encoder)   # the repo's @singleton _get_target_encoder
        set_requires_grad(self.target_encoder, False)
        self.target_ema_updater = EMA(moving_average_decay)
        self.online_predictor = MLP(projection_size, projection_size, projection_hidden_size)

    def update_moving_average(self):
        assert self.target_encoder is not None, "target encoder has not been created yet"
        update_moving_average(self.target_ema_updater, self.target_encoder, self.online_encoder)

    def forward(self, x, return_embedding=False, return_projection=True):
        """Returns the online predictions and target projections of both views (the repo returns their loss)."""
        assert not (self.training and x.shape[0] == 1), "you must have greater than 1 sample when training, due to the batchnorm in the projection layer"
        if return_embedding:
            return self.online_encoder(x, return_projection=return_projection)

        image_one, image_two = self.augment1(x), self.augment2(x)
        images = torch.cat((image_one, image_two), dim=0)

        online_projections, _ = self.online_encoder(images)
        online_predictions = self.online_predictor(online_projections)
        online_pred_one, online_pred_two = online_predictions.chunk(2, dim=0)

        with torch.no_grad():
            target_projections, _ = self.target_encoder(images)
            target_projections = target_projections.detach()
            target_proj_one, target_proj_two = target_projections.chunk(2, dim=0)

        return online_pred_one, online_pred_two, target_proj_one, target_proj_two


def byol_loss(outputs, _targets=None) -> torch.Tensor:
    online_pred_one, online_pred_two, target_proj_one, target_proj_two = outputs
    loss_one = loss_fn(online_pred_one, target_proj_two.detach())
    loss_two = loss_fn(online_pred_two, target_proj_one.detach())
    loss = loss_one + loss_two
    return loss.mean()


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=3e-4)


def train_step(learner: BYOL, batch, opt: torch.optim.Optimizer) -> torch.Tensor:
    images, targets = batch
    loss = byol_loss(learner(images), targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    learner.update_moving_average()  # update moving average of target encoder
    return loss


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    images, _ = make_images(torch.Generator().manual_seed(seed))
    val_images, _ = make_images(torch.Generator().manual_seed(seed + 1000))
    resnet = ResNet()
    spec = {
        "model": BYOL(resnet, image_size=IMAGE_SIZE, dim=resnet.out_features),
        "batch": (images, None),            # unlabelled images; the views are made inside forward
        "val_batch": (val_images, None),
        "loss_fn": byol_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
