import argparse

import torch
from torch.utils.data import DataLoader
from tqdm import tqdm
from transformers import AutoTokenizer

from dataset import CaptionDataset, get_transforms
from loss import ContrastiveLoss
from model import DualEncoder


def train_epoch(model, criterion, loader, optimizer, device):
    model.train()
    total = 0.0
    for batch in tqdm(loader):
        images = batch["image"].to(device)
        input_ids = batch["input_ids"].to(device)
        attention_mask = batch["attention_mask"].to(device)
        img_emb, txt_emb = model(images, input_ids, attention_mask)
        loss = criterion(img_emb, txt_emb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


@torch.no_grad()
def valid_epoch(model, criterion, loader, device):
    model.eval()
    total = 0.0
    for batch in loader:
        img_emb, txt_emb = model(batch["image"].to(device), batch["input_ids"].to(device),
                                 batch["attention_mask"].to(device))
        total += criterion(img_emb, txt_emb).item()
    return total / len(loader)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--captions", default="data/flickr8k/captions.csv")
    parser.add_argument("--image_dir", default="data/flickr8k/Images")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-4)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    tokenizer = AutoTokenizer.from_pretrained("distilbert-base-uncased")
    train_ds = CaptionDataset(args.captions, args.image_dir, tokenizer, get_transforms("train"), split="train")
    val_ds = CaptionDataset(args.captions, args.image_dir, tokenizer, get_transforms("valid"), split="valid")
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, num_workers=4)

    model = DualEncoder().to(device)
    criterion = ContrastiveLoss().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=1, factor=0.8)

    best = float("inf")
    for epoch in range(args.epochs):
        train_loss = train_epoch(model, criterion, train_loader, optimizer, device)
        val_loss = valid_epoch(model, criterion, val_loader, device)
        scheduler.step(val_loss)
        print(f"epoch {epoch}: train {train_loss:.4f} valid {val_loss:.4f} "
              f"temp {1.0 / criterion.logit_scale.exp().item():.4f}")
        if val_loss < best:
            best = val_loss
            torch.save({"model": model.state_dict(), "criterion": criterion.state_dict()}, "best_clip.pt")


if __name__ == "__main__":
    main()
