from types import SimpleNamespace

import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import transforms

from distiller import Distiller

cfg = SimpleNamespace(temperature=4.0, alpha=0.9, lr=0.05, epochs=240, batch_size=64,
                      teacher_ckpt="save/models/resnet56_vanilla/ckpt_epoch_240.pth")

norm = transforms.Normalize((0.5071, 0.4867, 0.4408), (0.2675, 0.2565, 0.2761))
train_set = torchvision.datasets.CIFAR100("./data", train=True, download=True, transform=transforms.Compose(
    [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
val_set = torchvision.datasets.CIFAR100("./data", train=False, transform=transforms.Compose(
    [transforms.ToTensor(), norm]))
train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True, num_workers=8)
val_loader = DataLoader(val_set, batch_size=100, num_workers=4)

teacher = torchvision.models.resnet50(num_classes=100)
teacher.load_state_dict(torch.load(cfg.teacher_ckpt, map_location="cpu")["model"])
student = torchvision.models.mobilenet_v2(num_classes=100, dropout=0.2)

optimizer = torch.optim.SGD(student.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[150, 180, 210], gamma=0.1)
distiller = Distiller(student, teacher, optimizer, cfg)

best = 0.0
for epoch in range(1, cfg.epochs + 1):
    train_loss = distiller.train_epoch(train_loader)
    scheduler.step()
    acc = distiller.validate(val_loader)
    print(f"epoch {epoch} loss {train_loss:.4f} student acc {acc:.4f}")
    if acc > best:
        best = acc
        torch.save(student.state_dict(), "student_best.pth")
print("best student accuracy:", best)
