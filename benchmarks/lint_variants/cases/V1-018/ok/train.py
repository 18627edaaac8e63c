import argparse
import os

import torch
import torch.nn.functional as F

from dataset import infinite, make_loaders
from model import FingerprintRegressor


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_dir", default="data/lipophilicity")
    parser.add_argument("--save_dir", default="checkpoints")
    parser.add_argument("--batch_size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--num_steps", type=int, default=20000)
    parser.add_argument("--eval_every", type=int, default=500)
    parser.add_argument("--dropout", type=float, default=0.2)
    args = parser.parse_args()
    os.makedirs(args.save_dir, exist_ok=True)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader, valid_loader, (y_mean, y_std) = make_loaders(args.data_dir, args.batch_size)
    y_mean, y_std = y_mean.to(device), y_std.to(device)
    model = FingerprintRegressor(dropout=args.dropout).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.num_steps)

    best_rmse = float("inf")
    batches = infinite(train_loader)
    for step in range(1, args.num_steps + 1):
        x, y = next(batches)
        x, y = x.to(device), y.to(device)
        pred = model(x)
        loss = F.mse_loss(pred, (y - y_mean) / y_std)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        scheduler.step()

        if step % args.eval_every == 0:
            model.eval()
            se, n = 0.0, 0
            with torch.no_grad():
                for xv, yv in valid_loader:
                    xv, yv = xv.to(device), yv.to(device)
                    pv = model(xv) * y_std + y_mean
                    se += ((pv - yv) ** 2).sum().item()
                    n += yv.numel()
            rmse = (se / n) ** 0.5
            print(f"step {step:6d} | train mse {loss.item():.4f} | valid rmse {rmse:.4f}")
            if rmse < best_rmse:
                best_rmse = rmse
                torch.save(model.state_dict(), os.path.join(args.save_dir, "best.pt"))
            model.train()
    print(f"best valid rmse: {best_rmse:.4f}")


if __name__ == "__main__":
    main()
