import argparse
import json
import logging
import math
import time
from pathlib import Path

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import LambdaLR

import val as validate
from models.yolo import Model
from utils.general import ComputeLoss, create_dataloader, init_seeds

LOGGER = logging.getLogger("train")


def smart_optimizer(model, lr=0.01, momentum=0.937, decay=5e-4):
    g_bn, g_w, g_b = [], [], []
    for m in model.modules():
        if hasattr(m, "bias") and isinstance(m.bias, nn.Parameter):
            g_b.append(m.bias)
        if isinstance(m, nn.BatchNorm2d):
            g_bn.append(m.weight)
        elif hasattr(m, "weight") and isinstance(m.weight, nn.Parameter):
            g_w.append(m.weight)
    optimizer = torch.optim.SGD(g_bn, lr=lr, momentum=momentum, nesterov=True)
    optimizer.add_param_group({"params": g_w, "weight_decay": decay})
    optimizer.add_param_group({"params": g_b})
    LOGGER.info("optimizer: SGD with %d bn, %d weight, %d bias groups", len(g_bn), len(g_w), len(g_b))
    return optimizer


def train(opt):
    save_dir = Path(opt.project) / opt.name
    (save_dir / "weights").mkdir(parents=True, exist_ok=True)
    init_seeds(opt.seed)
    with open(opt.data) as f:
        data = json.load(f)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

    model = Model(nc=data["nc"]).to(device)
    optimizer = smart_optimizer(model, opt.lr0, 0.937, opt.weight_decay)
    lf = lambda x: (1 - x / opt.epochs) * (1.0 - opt.lrf) + opt.lrf
    scheduler = LambdaLR(optimizer, lr_lambda=lf)
    train_loader, dataset = create_dataloader(data["train"], opt.imgsz, opt.batch_size, augment=True, shuffle=True)
    val_loader = create_dataloader(data["val"], opt.imgsz, opt.batch_size * 2, augment=False, shuffle=False)[0]
    compute_loss = ComputeLoss(model)
    scaler = torch.cuda.amp.GradScaler(enabled=device.type == "cuda")

    nb = len(train_loader)
    nw = max(round(3 * nb), 100)
    best_fitness = 0.0
    for epoch in range(opt.epochs):
        model.train()
        mloss = torch.zeros(3, device=device)
        t0 = time.time()
        for i, (imgs, targets, paths, _) in enumerate(train_loader):
            ni = i + nb * epoch
            imgs = imgs.to(device, non_blocking=True).float() / 255
            if ni <= nw:
                for j, x in enumerate(optimizer.param_groups):
                    x["lr"] = x["initial_lr"] * min(1.0, ni / nw) * lf(epoch)
            with torch.autocast(device_type=device.type, enabled=device.type == "cuda"):
                _, raw = model(imgs)
                loss, loss_items = compute_loss(raw, targets.to(device))
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
            scaler.step(optimizer)
            scaler.update()
            mloss = (mloss * i + loss_items) / (i + 1)
        scheduler.step()
        LOGGER.info("epoch %d/%d box %.4f obj %.4f cls %.4f (%.1fs)", epoch, opt.epochs - 1, *mloss.tolist(),
                    time.time() - t0)

        mp, mr, map50, map_ = validate.run(data, batch_size=opt.batch_size * 2, imgsz=opt.imgsz, model=model,
                                           dataloader=val_loader, half=False)
        fitness = 0.1 * map50 + 0.9 * map_
        ckpt = {"epoch": epoch, "nc": data["nc"], "model": model.state_dict(), "optimizer": optimizer.state_dict()}
        torch.save(ckpt, save_dir / "weights" / "last.pt")
        if fitness > best_fitness:
            best_fitness = fitness
            torch.save(ckpt, save_dir / "weights" / "best.pt")
    return best_fitness


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, default="data/coco128.json")
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--lr0", type=float, default=0.01)
    parser.add_argument("--lrf", type=float, default=0.01)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--project", default="runs/train")
    parser.add_argument("--name", default="exp")
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    train(parse_opt())
