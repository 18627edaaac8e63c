import argparse

import torch
import torch.nn as nn
from datasets import load_dataset
from torch.utils.data import DataLoader

from data import Vocab, make_collate_fn
from model import TextCNN


def run_epoch(model, loader, criterion, device, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total_loss, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for input_ids, labels in loader:
            input_ids, labels = input_ids.to(device), labels.to(device)
            logits = model(input_ids)
            loss = criterion(logits, labels)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * labels.size(0)
            correct += (logits.argmax(1) == labels).sum().item()
            n += labels.size(0)
    return total_loss / n, correct / n


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    imdb = load_dataset("imdb")
    train_pairs = list(zip(imdb["train"]["text"], imdb["train"]["label"]))
    test_pairs = list(zip(imdb["test"]["text"], imdb["test"]["label"]))
    vocab = Vocab([t for t, _ in train_pairs])
    collate_fn = make_collate_fn(vocab)
    train_loader = DataLoader(train_pairs, batch_size=args.batch_size, shuffle=True, collate_fn=collate_fn)
    test_loader = DataLoader(test_pairs, batch_size=args.batch_size, collate_fn=collate_fn)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = TextCNN(len(vocab)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(1, args.epochs + 1):
        tr_loss, tr_acc = run_epoch(model, train_loader, criterion, device, optimizer)
        te_loss, te_acc = run_epoch(model, test_loader, criterion, device)
        print(f"epoch {epoch}: train {tr_loss:.4f}/{tr_acc:.3f} test {te_loss:.4f}/{te_acc:.3f}")


if __name__ == "__main__":
    main()
