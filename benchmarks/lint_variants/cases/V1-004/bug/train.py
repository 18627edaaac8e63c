import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import ReviewDataset, build_vocab, collate_batch
from model import LSTMClassifier

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
epochs = 5
batch_size = 64
clip = 5
lr = 0.001

df = pd.read_csv("IMDB Dataset.csv")
df["label"] = (df["sentiment"] == "positive").astype(int)
train_df, valid_df = df.iloc[:40000], df.iloc[40000:]
vocab = build_vocab(train_df["review"])

train_loader = DataLoader(ReviewDataset(train_df["review"].tolist(), train_df["label"].tolist(), vocab),
                          batch_size=batch_size, shuffle=True, collate_fn=collate_batch)
valid_loader = DataLoader(ReviewDataset(valid_df["review"].tolist(), valid_df["label"].tolist(), vocab),
                          batch_size=batch_size, collate_fn=collate_batch)

net = LSTMClassifier(len(vocab), embedding_dim=256, hidden_dim=256, output_size=2).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=lr)

valid_loss_min = float("inf")
for epoch in range(epochs):
    net.train()
    for inputs, lengths, labels in train_loader:
        inputs, labels = inputs.to(device), labels.to(device)
        net.zero_grad()
        output = net(inputs, lengths)
        loss = criterion(output, labels)
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), clip)
        optimizer.step()

    net.eval()
    val_losses, num_correct = [], 0
    with torch.no_grad():
        for inputs, lengths, labels in valid_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            output = net(inputs, lengths)
            val_losses.append(criterion(output, labels).item())
            num_correct += (output.argmax(dim=1) == labels).sum().item()
    val_loss = sum(val_losses) / len(val_losses)
    print(f"Epoch {epoch + 1}/{epochs} | train loss {loss.item():.4f} | val loss {val_loss:.4f} "
          f"| val acc {num_correct / len(valid_loader.dataset):.3f}")
    if val_loss <= valid_loss_min:
        torch.save(net.state_dict(), "state_dict.pt")
        valid_loss_min = val_loss
