import logging
import os

import hydra
import numpy as np
import torch
import torch.nn.functional as F
from omegaconf import DictConfig, OmegaConf
from torch.utils.data import DataLoader

from dataset import S3DIS_CLASSES, S3DISBlocks
from model import build_model

log = logging.getLogger(__name__)


def worker_init(worker_id):
    np.random.seed(torch.initial_seed() % 2 ** 32 + worker_id)


def compute_iou(cm: np.ndarray):
    inter = np.diag(cm)
    union = cm.sum(0) + cm.sum(1) - inter
    return inter / np.maximum(union, 1)


@hydra.main(version_base=None, config_path="conf", config_name="s3dis_pct")
def main(cfg: DictConfig) -> None:
    log.info("\n%s", OmegaConf.to_yaml(cfg))
    torch.manual_seed(cfg.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_set = S3DISBlocks(cfg.data.root, "train", cfg.data.test_area, cfg.data.num_points, augment=True)
    val_set = S3DISBlocks(cfg.data.root, "val", cfg.data.test_area, cfg.data.num_points)
    train_loader = DataLoader(train_set, cfg.train.batch_size, shuffle=True, num_workers=cfg.train.workers,
                              drop_last=True, worker_init_fn=worker_init, pin_memory=True)
    val_loader = DataLoader(val_set, cfg.train.batch_size, num_workers=cfg.train.workers,
                            worker_init_fn=worker_init)
    model = build_model(cfg).to(device)
    weights = torch.tensor(train_set.label_weights, dtype=torch.float32, device=device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.train.lr, momentum=0.9, weight_decay=cfg.train.wd)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, cfg.train.epochs, eta_min=cfg.train.lr / 100)
    best_miou = 0.0
    for epoch in range(cfg.train.epochs):
        model.train()
        losses = []
        for points, target in train_loader:
            points, target = points.to(device), target.to(device)
            logits = model(points)
            loss = F.cross_entropy(logits, target, weight=weights, label_smoothing=0.2)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()

        model.eval()
        n_cls = len(S3DIS_CLASSES)
        cm = np.zeros((n_cls, n_cls), dtype=np.int64)
        with torch.no_grad():
            for points, target in val_loader:
                pred = model(points.to(device)).argmax(1).cpu().numpy().ravel()
                cm += np.bincount(target.numpy().ravel() * n_cls + pred, minlength=n_cls ** 2).reshape(n_cls, n_cls)
        ious = compute_iou(cm)
        miou = float(ious.mean())
        log.info("epoch %d loss %.4f mIoU %.4f oAcc %.4f", epoch, np.mean(losses), miou, np.diag(cm).sum() / cm.sum())
        state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(), "miou": miou}
        torch.save(state, os.path.join(os.getcwd(), "last.pth"))
        if miou > best_miou:
            best_miou = miou
            torch.save(state, os.path.join(os.getcwd(), "best.pth"))
            log.info("new best mIoU %.4f | %s", miou,
                     ", ".join(f"{c}:{v:.3f}" for c, v in zip(S3DIS_CLASSES, ious)))


if __name__ == "__main__":
    main()
