import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from dataset import ShapeNetPart
from pointnet import PointNetPartSeg, feature_transform_regularizer
import utils


def parse_args():
    p = argparse.ArgumentParser("PointNet part segmentation")
    p.add_argument("--root", default="data/shapenetcore_partanno_segmentation_benchmark_v0_normal")
    p.add_argument("--batch_size", type=int, default=16)
    p.add_argument("--epoch", type=int, default=250)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--npoint", type=int, default=2048)
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--log_dir", default="log/part_seg/pointnet")
    p.add_argument("--seed", type=int, default=1)
    return p.parse_args()


def main():
    args = parse_args()
    utils.set_seed(args.seed)
    os.makedirs(args.log_dir, exist_ok=True)
    log = utils.get_logger(os.path.join(args.log_dir, "train.log"))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = ShapeNetPart(args.root, "train", args.npoint, augment=True)
    test_set = ShapeNetPart(args.root, "test", args.npoint, augment=False)
    train_loader = DataLoader(train_set, args.batch_size, shuffle=True, num_workers=args.workers, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=args.batch_size, shuffle=False, num_workers=args.workers)
    id_to_name = {v: k for k, v in train_set.classes.items()}

    model = PointNetPartSeg().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999), weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
    best = 0.0
    for epoch in range(args.epoch):
        model.train()
        losses = []
        for points, cls, seg in train_loader:
            points, cls, seg = points.to(device), cls.to(device), seg.to(device)
            log_probs, trans_feat = model(points, cls)
            loss = F.nll_loss(log_probs.reshape(-1, log_probs.size(-1)), seg.reshape(-1))
            loss = loss + 0.001 * feature_transform_regularizer(trans_feat)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()

        model.eval()
        ious = []
        with torch.no_grad():
            for points, cls, seg in test_loader:
                log_probs, _ = model(points.to(device), cls.to(device))
                ious += utils.shape_ious(log_probs, seg, [id_to_name[c] for c in cls.tolist()])
        miou = float(np.mean(ious))
        log.info("epoch %d loss %.4f instance mIoU %.4f", epoch, float(np.mean(losses)), miou)
        if miou > best:
            best = miou
            torch.save({"epoch": epoch, "model_state_dict": model.state_dict()}, os.path.join(args.log_dir, "best_model.pth"))


if __name__ == "__main__":
    main()
