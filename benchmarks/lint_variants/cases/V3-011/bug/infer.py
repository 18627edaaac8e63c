import argparse
import os

import numpy as np
import pandas as pd
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision import transforms

from networks import build_model

ENSEMBLE = [
    ("tf_efficientnet_b4_ns", "weights/effb4_fold{}.pth", 512),
    ("resnext50_32x4d", "weights/rx50_fold{}.pth", 512),
    ("vit_base_patch16_384", "weights/vit_fold{}.pth", 384),
]


class TestDataset(Dataset):
    def __init__(self, df, root, size):
        self.df, self.root = df, root
        self.tf = transforms.Compose([
            transforms.Resize((size, size)), transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])

    def __len__(self):
        return len(self.df)

    def __getitem__(self, i):
        img = Image.open(os.path.join(self.root, self.df.image_id.iloc[i])).convert("RGB")
        return self.tf(img)


@torch.no_grad()
def tta_predict(model, loader, device):
    probs = []
    for images in loader:
        images = images.to(device)
        logits = model(images) + model(torch.flip(images, dims=[3]))
        probs.append(torch.softmax(logits / 2, dim=1).cpu().numpy())
    return np.concatenate(probs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--test-dir", default="../input/cassava-leaf-disease-classification/test_images")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    df = pd.DataFrame({"image_id": sorted(os.listdir(args.test_dir))})
    blend = np.zeros((len(df), 5), dtype=np.float32)
    for arch, ckpt_tmpl, size in ENSEMBLE:
        loader = DataLoader(TestDataset(df, args.test_dir, size), batch_size=args.batch_size,
                            num_workers=4)
        for fold in range(args.folds):
            model = build_model(arch, ckpt_tmpl.format(fold), device)
            blend += tta_predict(model, loader, device) / (args.folds * len(ENSEMBLE))
            del model
            torch.cuda.empty_cache()
    df["label"] = blend.argmax(1)
    df.to_csv("submission.csv", index=False)
    print(df.label.value_counts())


if __name__ == "__main__":
    main()
