"""Train a small CNN to tell horizontal, vertical and diagonal strokes apart in 12x12 images.

Pixels are scaled to [0, 1] and standardised before they reach the network.
"""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 3
SIZE = 12


def make_images(n, seed):
    """8-bit grayscale images (uint8, 0-255) of one noisy stroke each, like decoded PNGs."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    offset = torch.randint(2, SIZE - 2, (n,), generator=g)
    rows, cols = torch.meshgrid(torch.arange(SIZE), torch.arange(SIZE), indexing="ij")
    horizontal = rows[None] == offset[:, None, None]
    vertical = cols[None] == offset[:, None, None]
    diagonal = (rows - cols)[None] == (offset - SIZE // 2)[:, None, None]
    stroke = torch.where(y[:, None, None] == 0, horizontal, torch.where(y[:, None, None] == 1, vertical, diagonal))
    pixels = 40 + 180 * stroke.float() + 30 * torch.rand(n, SIZE, SIZE, generator=g)
    return pixels.round().to(torch.uint8), y


def to_input(images):
    """uint8 (N, H, W) -> float (N, 1, H, W) for the network."""
    return ((images.float() / 255.0 - 0.27) / 0.19).unsqueeze(1)  # FIX: to [0, 1], then the training mean/std


class StrokeCNN(nn.Module):
    def __init__(self, channels=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(channels, NUM_CLASSES)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def debug_spec():
    torch.manual_seed(0)
    images, labels = make_images(48, seed=1)
    val_images, val_labels = make_images(48, seed=2)
    return {
        "model": StrokeCNN(),
        "batch": (to_input(images), labels),
        "val_batch": (to_input(val_images), val_labels),
        "loss_fn": nn.CrossEntropyLoss(),
        "optimizer": lambda params: torch.optim.Adam(params, lr=3e-3),
        "task": "classification",
        "num_classes": NUM_CLASSES,
    }


def main():
    torch.manual_seed(0)
    images, labels = make_images(1536, seed=1)
    val_images, val_labels = make_images(384, seed=2)
    loader = DataLoader(TensorDataset(to_input(images), labels), batch_size=64, shuffle=True)
    val_x = to_input(val_images)
    model = StrokeCNN()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    step = 0
    for epoch in range(5):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            if step % 20 == 0:
                print(f"step {step}: loss {loss.item():.4f}")
            step += 1
        model.eval()
        with torch.no_grad():
            accuracy = (model(val_x).argmax(dim=1) == val_labels).float().mean().item()
        print(f"epoch {epoch}: val acc {accuracy:.3f}")


if __name__ == "__main__":
    main()
