import argparse
import logging
import os

import sacrebleu
import torch
from torch.utils.data import DataLoader

from data import ParallelDataset, build_vocabs, collate, read_parallel
from modules import LabelSmoothedNLL
from seq2seq import Seq2Seq

logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(message)s")
log = logging.getLogger("nmt")


def bleu(model, loader, tgt_vocab, refs, device):
    model.eval()
    hyps = []
    for src, src_len, _ in loader:
        out = model.greedy_decode(src.to(device), src_len.to(device))
        hyps.extend(tgt_vocab.decode(row) for row in out.tolist())
    return sacrebleu.corpus_bleu(hyps, [refs]).score


def main():
    ap = argparse.ArgumentParser(description="GRU seq2seq with multi-head attention (IWSLT14 de-en)")
    ap.add_argument("--data", default="data/iwslt14.de-en")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--save", default="checkpoints/seq2seq_attn.pt")
    args = ap.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_pairs = read_parallel(f"{args.data}/train.de", f"{args.data}/train.en")
    valid_pairs = read_parallel(f"{args.data}/valid.de", f"{args.data}/valid.en")
    src_vocab, tgt_vocab = build_vocabs(train_pairs)
    train_ds, valid_ds = ParallelDataset(train_pairs, src_vocab, tgt_vocab), ParallelDataset(valid_pairs, src_vocab, tgt_vocab)
    train_dl = DataLoader(train_ds, args.batch_size, shuffle=True, collate_fn=collate, num_workers=2)
    valid_dl = DataLoader(valid_ds, 128, collate_fn=collate)

    model = Seq2Seq(len(src_vocab), len(tgt_vocab)).to(device)
    criterion = LabelSmoothedNLL(pad_idx=0)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", factor=0.5, patience=2)
    best = 0.0
    os.makedirs(os.path.dirname(args.save), exist_ok=True)
    for epoch in range(1, args.epochs + 1):
        model.train()
        total, tokens = 0.0, 0
        for src, src_len, tgt in train_dl:
            src, src_len, tgt = src.to(device), src_len.to(device), tgt.to(device)
            logits = model(src, src_len, tgt[:, :-1])
            loss = criterion(logits, tgt[:, 1:])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimizer.step()
            n = tgt[:, 1:].ne(0).sum().item()
            total += loss.item() * n
            tokens += n
        score = bleu(model, valid_dl, tgt_vocab, valid_ds.refs, device)
        scheduler.step(score)
        log.info("epoch %d train nll/token %.4f valid BLEU %.2f", epoch, total / tokens, score)
        if score > best:
            best = score
            torch.save({"model": model.state_dict(), "src_itos": src_vocab.itos, "tgt_itos": tgt_vocab.itos}, args.save)


if __name__ == "__main__":
    main()
