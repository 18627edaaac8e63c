import argparse
import glob
import os

import nibabel as nib
import numpy as np
import torch

from inferers import sliding_window_inference
from networks import UNet3D


def dice_score(pred, gt):
    inter = np.logical_and(pred, gt).sum()
    return 2.0 * inter / (pred.sum() + gt.sum() + 1e-8)


def load_volume(path):
    vol = nib.load(path).get_fdata().astype(np.float32)
    vol = np.clip(vol, -57, 164)
    vol = (vol + 57) / 221.0
    return torch.from_numpy(vol)[None, None]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="./Task09_Spleen")
    parser.add_argument("--ckpt", default="runs/best_metric_model.pth")
    parser.add_argument("--roi", type=int, nargs=3, default=[96, 96, 96])
    args = parser.parse_args()
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    net = UNet3D(in_channels=1, out_channels=2).to(device)
    ckpt = torch.load(args.ckpt, map_location=device)
    net.load_state_dict(ckpt["model"])
    net.eval()
    images = sorted(glob.glob(os.path.join(args.data_dir, "imagesTs", "*.nii.gz")))
    scores = []
    with torch.no_grad():
        for img_path in images:
            label_path = img_path.replace("imagesTs", "labelsTs")
            image = load_volume(img_path).to(device)
            logits = sliding_window_inference(image, tuple(args.roi), 4, net)
            pred = logits.argmax(1)[0].cpu().numpy()
            gt = nib.load(label_path).get_fdata() > 0
            scores.append(dice_score(pred > 0, gt))
            print(f"{os.path.basename(img_path)}: dice={scores[-1]:.4f}")
    print(f"mean dice: {np.mean(scores):.4f}")


if __name__ == "__main__":
    main()
