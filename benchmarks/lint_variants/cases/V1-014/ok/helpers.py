import os

import matplotlib.pyplot as plt
import pandas as pd
from PIL import Image
from torch.utils.data import Dataset


class CsvImageDataset(Dataset):
    def __init__(self, csv_file, img_dir, transform=None, has_labels=True):
        self.df = pd.read_csv(csv_file)
        self.img_dir = img_dir
        self.transform = transform
        self.has_labels = has_labels

    def __len__(self):
        return len(self.df)

    def __getitem__(self, i):
        row = self.df.iloc[i]
        img = Image.open(os.path.join(self.img_dir, row["id"] + ".jpg")).convert("RGB")
        if self.transform:
            img = self.transform(img)
        if self.has_labels:
            return img, int(row["label"])
        return img, row["id"]


def plot_history(history):
    fig, ax = plt.subplots(1, 2, figsize=(12, 4))
    ax[0].plot(history["train_loss"], label="train")
    ax[0].plot(history["val_loss"], label="val")
    ax[1].plot(history["val_acc"], label="val acc")
    for a in ax:
        a.legend()
    plt.show()
