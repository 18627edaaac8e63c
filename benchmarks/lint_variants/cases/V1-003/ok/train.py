import pandas as pd
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from model import ToxicCommentNet

LABELS = ["toxic", "severe_toxic", "obscene", "threat", "insult", "identity_hate"]
MAX_LEN = 200


def encode(texts, vocab):
    ids = torch.zeros(len(texts), MAX_LEN, dtype=torch.long)
    for i, t in enumerate(texts):
        toks = [vocab.get(w, 1) for w in t.lower().split()][:MAX_LEN]
        ids[i, :len(toks)] = torch.tensor(toks, dtype=torch.long)
    return ids


df = pd.read_csv("data/train.csv")
counts = pd.Series(" ".join(df.comment_text.str.lower()).split()).value_counts()
vocab = {w: i + 2 for i, w in enumerate(counts.index[:50000])}
X = encode(df.comment_text.tolist(), vocab)
Y = torch.tensor(df[LABELS].values, dtype=torch.float32)
n_val = len(df) // 10
train_dl = DataLoader(TensorDataset(X[n_val:], Y[n_val:]), batch_size=256, shuffle=True)
val_dl = DataLoader(TensorDataset(X[:n_val], Y[:n_val]), batch_size=512)

pos_weight = (len(Y) - Y.sum(0)) / Y.sum(0).clamp(min=1)
model = ToxicCommentNet(vocab_size=len(vocab) + 2, num_labels=len(LABELS))
model.compile(
    loss=nn.BCEWithLogitsLoss(pos_weight=pos_weight.sqrt()),
    optimizer=torch.optim.Adam(model.parameters(), lr=1e-3),
    device="cuda" if torch.cuda.is_available() else "cpu",
)
history = model.fit(train_dl, epochs=8, validation_data=val_dl)
torch.save(model.state_dict(), "toxic_gru.pt")
