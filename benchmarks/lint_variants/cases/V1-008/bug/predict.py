import argparse
import glob

import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm

from dataset import LeafTestDataset, get_test_transforms
from model import LeafModel


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--test_csv", default="../input/cassava-leaf-disease-classification/sample_submission.csv")
    p.add_argument("--image_dir", default="../input/cassava-leaf-disease-classification/test_images")
    p.add_argument("--weights", default="./weights/*.pth")
    p.add_argument("--arch", default="tf_efficientnet_b3_ns")
    p.add_argument("--img_size", type=int, default=512)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--tta", action="store_true")
    return p.parse_args()


def inference_one(model, loader, device, tta=False):
    probs = []
    with torch.no_grad():
        for images in tqdm(loader):
            images = images.to(device)
            logits = model(images)
            if tta:
                logits = (logits + model(torch.flip(images, dims=[-1]))) / 2
            probs.append(logits.softmax(1).cpu().numpy())
    return np.concatenate(probs)


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    test = pd.read_csv(args.test_csv)
    ds = LeafTestDataset(test, args.image_dir, transforms=get_test_transforms(args.img_size))
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=False, num_workers=4, pin_memory=True)

    fold_probs = []
    for ckpt in sorted(glob.glob(args.weights)):
        model = LeafModel(args.arch, n_classes=5).to(device)
        state = torch.load(ckpt, map_location=device)
        model.load_state_dict(state["model"] if "model" in state else state)
        fold_probs.append(inference_one(model, loader, device, tta=args.tta))
        del model
        torch.cuda.empty_cache()

    test["label"] = np.mean(fold_probs, axis=0).argmax(1)
    test[["image_id", "label"]].to_csv("submission.csv", index=False)
    print(test.head())


if __name__ == "__main__":
    main()
