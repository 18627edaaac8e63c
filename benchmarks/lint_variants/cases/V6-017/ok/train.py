import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from tqdm import tqdm

from data import build_vocab, load_agnews, collate_batch
from model import TransformerClassifier


def run_epoch(model, loader, criterion, device, optimizer=None):
    training = optimizer is not None
    model.train(training)
    total_loss, correct, count = 0.0, 0, 0
    with torch.set_grad_enabled(training):
        for input_ids, labels in tqdm(loader, leave=False):
            input_ids, labels = input_ids.to(device), labels.to(device)
            logits = model(input_ids)
            loss = criterion(logits, labels)
            if training:
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
            total_loss += loss.item() * labels.size(0)
            correct += (logits.argmax(1) == labels).sum().item()
            count += labels.size(0)
    return total_loss / count, correct / count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--max-len", type=int, default=256)
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_data, test_data = load_agnews()
    vocab = build_vocab(train_data)
    collate = lambda b: collate_batch(b, vocab, args.max_len)
    train_loader = DataLoader(train_data, batch_size=args.batch_size, shuffle=True, collate_fn=collate)
    test_loader = DataLoader(test_data, batch_size=args.batch_size, collate_fn=collate)
    model = TransformerClassifier(len(vocab), num_classes=4, max_len=args.max_len).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        tr_loss, tr_acc = run_epoch(model, train_loader, criterion, device, optimizer)
        te_loss, te_acc = run_epoch(model, test_loader, criterion, device)
        print(f"epoch {epoch}: train {tr_loss:.4f}/{tr_acc:.4f} test {te_loss:.4f}/{te_acc:.4f}")
    torch.save(model.state_dict(), "transformer_agnews.pt")


if __name__ == "__main__":
    main()
