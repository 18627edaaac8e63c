import torch
from torch.utils.data import DataLoader

from dataset import CarvanaDataset
from losses import BCEDiceLoss
from models import create_model


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader = DataLoader(CarvanaDataset("data/train", augment=True), batch_size=8, shuffle=True, num_workers=4)
    valid_loader = DataLoader(CarvanaDataset("data/valid"), batch_size=8, num_workers=4)
    model = create_model("unet", in_channels=3, classes=1, activation=None).to(device)
    criterion = BCEDiceLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    best_dice = 0.0
    for epoch in range(40):
        model.train()
        for images, masks in train_loader:
            images, masks = images.to(device), masks.to(device)
            loss = criterion(model(images), masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        dice_sum, n = 0.0, 0
        with torch.no_grad():
            for images, masks in valid_loader:
                images, masks = images.to(device), masks.to(device)
                dice_sum += (1 - criterion.dice(model(images), masks).item()) * images.size(0)
                n += images.size(0)
        print(f"epoch {epoch}: val dice {dice_sum / n:.4f}")
        if dice_sum / n > best_dice:
            best_dice = dice_sum / n
            torch.save(model.state_dict(), "unet_best.pth")


if __name__ == "__main__":
    main()
