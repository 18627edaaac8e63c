import itertools

import albumentations as A
import cv2
import pandas as pd
import torch
from tqdm import tqdm
from transformers import DistilBertTokenizer

from clip_model import CLIPModel
from config import CFG


class CLIPDataset(torch.utils.data.Dataset):
    def __init__(self, image_filenames, captions, tokenizer, transforms):
        self.image_filenames = image_filenames
        self.captions = list(captions)
        self.encoded = tokenizer(self.captions, padding=True, truncation=True, max_length=CFG.max_length)
        self.transforms = transforms

    def __getitem__(self, idx):
        item = {k: torch.tensor(v[idx]) for k, v in self.encoded.items()}
        image = cv2.cvtColor(cv2.imread(f"{CFG.image_path}/{self.image_filenames[idx]}"), cv2.COLOR_BGR2RGB)
        image = self.transforms(image=image)["image"]
        item["image"] = torch.tensor(image).permute(2, 0, 1).float()
        return item

    def __len__(self):
        return len(self.captions)


def build_loaders(df, tokenizer, mode):
    tf = A.Compose([A.Resize(CFG.size, CFG.size), A.Normalize(max_pixel_value=255.0)])
    ds = CLIPDataset(df["image"].values, df["caption"].values, tokenizer, tf)
    return torch.utils.data.DataLoader(ds, batch_size=CFG.batch_size, num_workers=CFG.num_workers,
                                       shuffle=(mode == "train"))


def run_epoch(model, loader, optimizer=None):
    total, n = 0.0, 0
    for batch in tqdm(loader):
        batch = {k: v.to(CFG.device) for k, v in batch.items() if k != "caption"}
        loss = model(batch)
        if optimizer is not None:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += loss.item() * batch["image"].size(0)
        n += batch["image"].size(0)
    return total / n


def main():
    df = pd.read_csv(CFG.captions_path)
    valid_ids = df["id"].drop_duplicates().sample(frac=0.2, random_state=42)
    train_df, valid_df = df[~df["id"].isin(valid_ids)], df[df["id"].isin(valid_ids)]
    tokenizer = DistilBertTokenizer.from_pretrained(CFG.text_model)
    train_loader = build_loaders(train_df, tokenizer, "train")
    valid_loader = build_loaders(valid_df, tokenizer, "valid")

    model = CLIPModel().to(CFG.device)
    params = [
        {"params": model.image_encoder.parameters(), "lr": CFG.image_encoder_lr},
        {"params": model.text_encoder.parameters(), "lr": CFG.text_encoder_lr},
        {"params": itertools.chain(model.image_projection.parameters(), model.text_projection.parameters()),
         "lr": CFG.head_lr, "weight_decay": CFG.weight_decay},
    ]
    optimizer = torch.optim.AdamW(params, weight_decay=0.0)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=1, factor=0.8)

    best = float("inf")
    for epoch in range(CFG.epochs):
        model.train()
        train_loss = run_epoch(model, train_loader, optimizer)
        model.eval()
        with torch.no_grad():
            valid_loss = run_epoch(model, valid_loader)
        print(f"Epoch {epoch + 1}: train {train_loss:.4f} valid {valid_loss:.4f}")
        if valid_loss < best:
            best = valid_loss
            torch.save(model.state_dict(), "best.pt")
        scheduler.step(valid_loss)


if __name__ == "__main__":
    main()
