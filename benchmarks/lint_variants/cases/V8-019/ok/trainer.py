import argparse
import logging
import os

import torch
import torch.nn.functional as F
from seqeval.metrics import f1_score
from torch.utils.data import DataLoader

from conll import CoNLLDataset, Vocabulary, collate, read_conll
from model import BiLSTMTagger

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger("ner")


def compute_loss(model, scores, tags, mask):
    if model.head.uses_crf:
        return model.head.neg_log_likelihood(scores, tags, mask)
    return F.cross_entropy(scores[mask], tags[mask])


@torch.no_grad()
def evaluate(model, loader, tag_vocab, device):
    model.eval()
    gold, pred = [], []
    for words, chars, lengths, tags, mask in loader:
        paths = model.decode(words.to(device), chars.to(device), lengths, mask.to(device))
        for path, tg, n in zip(paths, tags, lengths.tolist()):
            pred.append([tag_vocab.itos[i] for i in path[:n]])
            gold.append([tag_vocab.itos[i] for i in tg[:n].tolist()])
    return f1_score(gold, pred)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/conll2003/eng.train")
    ap.add_argument("--dev", default="data/conll2003/eng.testa")
    ap.add_argument("--head", default="softmax", choices=["softmax", "crf"])
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--batch-size", type=int, default=10)
    ap.add_argument("--lr", type=float, default=0.015)
    ap.add_argument("--save-dir", default="checkpoints")
    args = ap.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_s, dev_s = read_conll(args.train), read_conll(args.dev)
    wv = Vocabulary([w.lower() for ws, _ in train_s for w in ws])
    cv = Vocabulary([c for ws, _ in train_s for w in ws for c in w])
    tv = Vocabulary([t for _, ts in train_s for t in ts], specials=("O",))
    train_dl = DataLoader(CoNLLDataset(train_s, wv, cv, tv), args.batch_size, shuffle=True, collate_fn=collate)
    dev_dl = DataLoader(CoNLLDataset(dev_s, wv, cv, tv), 64, collate_fn=collate)

    model = BiLSTMTagger(len(wv), len(cv), len(tv), head=args.head).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    best = 0.0
    os.makedirs(args.save_dir, exist_ok=True)
    for epoch in range(args.epochs):
        for g in optimizer.param_groups:
            g["lr"] = args.lr / (1 + 0.05 * epoch)
        model.train()
        for words, chars, lengths, tags, mask in train_dl:
            words, chars, tags, mask = words.to(device), chars.to(device), tags.to(device), mask.to(device)
            scores = model(words, chars, lengths)
            loss = compute_loss(model, scores, tags, mask)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
        f1 = evaluate(model, dev_dl, tv, device)
        logger.info("epoch %d dev F1 %.4f", epoch, f1)
        if f1 > best:
            best = f1
            torch.save(model.state_dict(), os.path.join(args.save_dir, f"bilstm_{args.head}.pt"))


if __name__ == "__main__":
    main()
