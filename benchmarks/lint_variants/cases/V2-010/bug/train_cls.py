import argparse

import numpy as np
import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from data_utils.ModelNetDataLoader import ModelNetDataLoader
from pointnet import PointNetCls
from utils import bn_momentum_adjust, get_logger, update_lr


def run_epoch(model, loader, optimizer, device):
    model.train()
    correct, total = 0, 0
    for points, target in loader:
        points = points.transpose(2, 1).to(device)
        target = target[:, 0].long().to(device)
        optimizer.zero_grad()
        pred = model(points)
        loss = F.cross_entropy(pred, target, label_smoothing=0.2)
        loss.backward()
        optimizer.step()
        correct += pred.argmax(1).eq(target).sum().item()
        total += target.size(0)
    return correct / total


@torch.no_grad()
def test(model, loader, device):
    model.eval()
    accs = []
    for points, target in loader:
        points = points.transpose(2, 1).to(device)
        target = target[:, 0].long().to(device)
        accs.append(model(points).argmax(1).eq(target).float().mean().item())
    return float(np.mean(accs))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cfg", default="cfgs/modelnet40.yaml")
    with open(parser.parse_args().cfg) as f:
        cfg = yaml.safe_load(f)
    logger = get_logger(cfg["log_dir"])
    device = torch.device("cuda")

    train_ds = ModelNetDataLoader(cfg["data_root"], npoint=cfg["num_point"], split="train")
    test_ds = ModelNetDataLoader(cfg["data_root"], npoint=cfg["num_point"], split="test")
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=4, drop_last=True)
    test_loader = DataLoader(test_ds, batch_size=cfg["batch_size"], shuffle=False, num_workers=4)

    model = PointNetCls(k=cfg["num_class"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"], betas=(0.9, 0.999),
                                 eps=1e-08, weight_decay=cfg["decay_rate"])
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.7)

    best_acc = 0.0
    for epoch in range(cfg["epochs"]):
        update_lr(scheduler, epoch, logger)
        bn_momentum_adjust(model, max(0.5 * (0.5 ** (epoch // 20)), 0.01))
        train_acc = run_epoch(model, train_loader, optimizer, device)
        test_acc = test(model, test_loader, device)
        logger.info("Epoch %d train acc %.4f test acc %.4f", epoch, train_acc, test_acc)
        if test_acc >= best_acc:
            best_acc = test_acc
            torch.save({"epoch": epoch, "model_state_dict": model.state_dict()},
                       f"{cfg['log_dir']}/best_model.pth")


if __name__ == "__main__":
    main()
