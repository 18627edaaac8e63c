import argparse
import glob
import logging
import math
import os
import random

import numpy as np
import torch
import yaml
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.transforms.functional import to_tensor

from esrgan_model import ESRGANModel

logger = logging.getLogger("esrgan")


class PairedImageDataset(Dataset):
    def __init__(self, opt, train=True):
        self.gt_paths = sorted(glob.glob(os.path.join(opt["dataroot_gt"], "*.png")))
        self.lq_paths = sorted(glob.glob(os.path.join(opt["dataroot_lq"], "*.png")))
        assert len(self.gt_paths) == len(self.lq_paths), "GT and LQ folders differ in length"
        self.gt_size = opt.get("gt_size", 128)
        self.scale = opt.get("scale", 4)
        self.train = train

    def __len__(self):
        return len(self.gt_paths)

    def __getitem__(self, i):
        gt = to_tensor(Image.open(self.gt_paths[i]).convert("RGB"))
        lq = to_tensor(Image.open(self.lq_paths[i]).convert("RGB"))
        if self.train:
            lq_size = self.gt_size // self.scale
            top = random.randint(0, lq.shape[1] - lq_size)
            left = random.randint(0, lq.shape[2] - lq_size)
            lq = lq[:, top:top + lq_size, left:left + lq_size]
            gt = gt[:, top * self.scale:(top + lq_size) * self.scale, left * self.scale:(left + lq_size) * self.scale]
            if random.random() < 0.5:
                lq, gt = lq.flip(-1), gt.flip(-1)
            if random.random() < 0.5:
                lq, gt = lq.transpose(1, 2), gt.transpose(1, 2)
        return {"lq": lq, "gt": gt, "path": self.gt_paths[i]}


def calculate_psnr(img, ref, crop_border=4):
    img = img[..., crop_border:-crop_border, crop_border:-crop_border]
    ref = ref[..., crop_border:-crop_border, crop_border:-crop_border]
    mse = torch.mean((img - ref) ** 2).item()
    return float("inf") if mse == 0 else 10 * math.log10(1.0 / mse)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-opt", type=str, required=True, help="path to option yaml")
    args = parser.parse_args()
    with open(args.opt) as f:
        opt = yaml.safe_load(f)
    os.makedirs(opt["path"]["experiments_root"], exist_ok=True)
    logging.basicConfig(filename=os.path.join(opt["path"]["experiments_root"], "train.log"), level=logging.INFO)
    seed = opt.get("manual_seed", 0)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    train_opt = opt["datasets"]["train"]
    train_loader = DataLoader(PairedImageDataset({**train_opt, "scale": opt["scale"]}), batch_size=train_opt["batch_size"],
                              shuffle=True, num_workers=train_opt["num_worker"], drop_last=True, pin_memory=True)
    val_set = PairedImageDataset({**opt["datasets"]["val"], "scale": opt["scale"]}, train=False)
    model = ESRGANModel(opt)
    total_epochs = opt["train"]["total_epochs"]
    print_freq, save_freq = opt["logger"]["print_freq"], opt["logger"]["save_checkpoint_freq"]
    logger.info("training %d epochs, %d iters per epoch", total_epochs, len(train_loader))

    current_iter = 0
    for epoch in range(total_epochs):
        for train_data in train_loader:
            current_iter += 1
            model.feed_data(train_data)
            model.optimize_parameters(current_iter)
            if current_iter % print_freq == 0:
                lrs = model.get_current_learning_rate()
                msg = " ".join(f"{k}: {v:.4e}" for k, v in model.log_dict.items())
                logger.info(f"[epoch:{epoch:3d}, iter:{current_iter:8,d}, lr:({lrs[0]:.3e},{lrs[1]:.3e})] {msg}")
            if current_iter % save_freq == 0:
                model.save(epoch, current_iter)
            model.update_learning_rate()

        psnr = []
        for item in val_set:
            sr = model.test(item["lq"].unsqueeze(0)).cpu()
            psnr.append(calculate_psnr(sr, item["gt"].unsqueeze(0)))
        logger.info("epoch %d validation PSNR %.3f dB", epoch, float(np.mean(psnr)))
    model.save(total_epochs, current_iter)


if __name__ == "__main__":
    main()
