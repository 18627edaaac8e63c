import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets

import vision_transformer as vits
from eval_knn import knn_classifier, extract_features
from utils import DataAugmentationDINO, cosine_scheduler


class DINOHead(nn.Module):
    def __init__(self, in_dim, out_dim, hidden_dim=2048, bottleneck_dim=256):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.GELU(), nn.Linear(hidden_dim, hidden_dim),
                                 nn.GELU(), nn.Linear(hidden_dim, bottleneck_dim))
        self.last_layer = nn.utils.parametrizations.weight_norm(nn.Linear(bottleneck_dim, out_dim, bias=False))

    def forward(self, x):
        return self.last_layer(F.normalize(self.mlp(x), dim=-1, p=2))


class MultiCropWrapper(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone, self.head = backbone, head

    def forward(self, x):
        idx_crops = torch.cumsum(torch.unique_consecutive(torch.tensor([inp.shape[-1] for inp in x]),
                                                          return_counts=True)[1], 0)
        start_idx, output = 0, []
        for end_idx in idx_crops:
            output.append(self.backbone(torch.cat(x[start_idx:end_idx])))
            start_idx = end_idx
        return self.head(torch.cat(output))


class DINOLoss(nn.Module):
    def __init__(self, out_dim, ncrops, teacher_temp=0.04, student_temp=0.1, center_momentum=0.9):
        super().__init__()
        self.student_temp, self.teacher_temp = student_temp, teacher_temp
        self.center_momentum = center_momentum
        self.ncrops = ncrops
        self.register_buffer("center", torch.zeros(1, out_dim))

    def forward(self, student_output, teacher_output):
        student_out = (student_output / self.student_temp).chunk(self.ncrops)
        teacher_out = F.softmax((teacher_output - self.center) / self.teacher_temp, dim=-1).detach().chunk(2)
        total_loss, n_loss_terms = 0, 0
        for iq, q in enumerate(teacher_out):
            for v in range(len(student_out)):
                if v == iq:
                    continue
                total_loss += torch.sum(-q * F.log_softmax(student_out[v], dim=-1), dim=-1).mean()
                n_loss_terms += 1
        self.update_center(teacher_output)
        return total_loss / n_loss_terms

    @torch.no_grad()
    def update_center(self, teacher_output):
        batch_center = teacher_output.mean(dim=0, keepdim=True)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)


def get_args_parser():
    p = argparse.ArgumentParser("DINO", add_help=False)
    p.add_argument("--arch", default="vit_small", choices=["vit_small", "vit_base"])
    p.add_argument("--patch_size", default=16, type=int)
    p.add_argument("--out_dim", default=65536, type=int)
    p.add_argument("--attn_drop_rate", default=0.1, type=float)
    p.add_argument("--drop_path_rate", default=0.1, type=float)
    p.add_argument("--momentum_teacher", default=0.996, type=float)
    p.add_argument("--batch_size", default=64, type=int)
    p.add_argument("--epochs", default=100, type=int)
    p.add_argument("--lr", default=5e-4, type=float)
    p.add_argument("--local_crops_number", default=8, type=int)
    p.add_argument("--data_path", default="/path/to/imagenet/train/", type=str)
    p.add_argument("--val_path", default="/path/to/imagenet/val/", type=str)
    p.add_argument("--output_dir", default=".", type=str)
    p.add_argument("--knn_every", default=10, type=int)
    return p


def train_dino(args):
    device = torch.device("cuda")
    dataset = datasets.ImageFolder(args.data_path, transform=DataAugmentationDINO(args.local_crops_number))
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=10,
                                         pin_memory=True, drop_last=True)
    student = vits.__dict__[args.arch](patch_size=args.patch_size, attn_drop_rate=args.attn_drop_rate,
                                       drop_path_rate=args.drop_path_rate)
    teacher = vits.__dict__[args.arch](patch_size=args.patch_size, attn_drop_rate=args.attn_drop_rate)
    embed_dim = student.embed_dim
    student = MultiCropWrapper(student, DINOHead(embed_dim, args.out_dim)).to(device)
    teacher = MultiCropWrapper(teacher, DINOHead(embed_dim, args.out_dim)).to(device)
    teacher.load_state_dict(student.state_dict())
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad = False
    dino_loss = DINOLoss(args.out_dim, args.local_crops_number + 2).to(device)
    optimizer = torch.optim.AdamW(student.parameters(), lr=args.lr * args.batch_size / 256, weight_decay=0.04)
    momentum_schedule = cosine_scheduler(args.momentum_teacher, 1, args.epochs, len(loader))

    for epoch in range(args.epochs):
        student.train()
        t0 = time.time()
        for it, (images, _) in enumerate(loader):
            it = len(loader) * epoch + it
            images = [im.to(device, non_blocking=True) for im in images]
            with torch.no_grad():
                teacher_output = teacher(images[:2])
            loss = dino_loss(student(images), teacher_output)
            if not math.isfinite(loss.item()):
                sys.exit(f"Loss is {loss.item()}, stopping training")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                m = momentum_schedule[it]
                for ps, pt in zip(student.parameters(), teacher.parameters()):
                    pt.data.mul_(m).add_((1 - m) * ps.detach().data)
        log = {"epoch": epoch, "loss": loss.item(), "time": time.time() - t0}
        if (epoch + 1) % args.knn_every == 0:
            train_feats, train_labels = extract_features(teacher.backbone, args.data_path)
            val_feats, val_labels = extract_features(teacher.backbone, args.val_path)
            log["knn_top1"], log["knn_top5"] = knn_classifier(train_feats, train_labels, val_feats, val_labels, k=20)
        torch.save({"student": student.state_dict(), "teacher": teacher.state_dict(), "epoch": epoch + 1},
                   os.path.join(args.output_dir, "checkpoint.pth"))
        with (Path(args.output_dir) / "log.txt").open("a") as f:
            f.write(json.dumps(log) + "\n")


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    Path(args.output_dir).mkdir(parents=True, exist_ok=True)
    train_dino(args)
