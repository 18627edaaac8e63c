import argparse
import csv
import logging
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from transformers import AutoTokenizer

from models import SimCSE, sts_spearman
from trainer import ContrastiveTrainer, TrainingArgs

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", level=logging.INFO)
logger = logging.getLogger("simcse")


class SentenceDataset(Dataset):
    def __init__(self, path: str):
        with open(path, encoding="utf-8") as f:
            self.sentences = [line.strip() for line in f if line.strip()]

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, i):
        return self.sentences[i]


def load_stsb_dev(path: str):
    pairs, scores = [], []
    with open(path, encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row["split"] == "dev":
                pairs.append((row["sentence1"], row["sentence2"]))
                scores.append(float(row["score"]))
    return pairs, scores


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model_name_or_path", default="bert-base-uncased")
    p.add_argument("--train_file", default="data/wiki1m_for_simcse.txt")
    p.add_argument("--stsb_file", default="SentEval/data/downstream/STS/STSBenchmark/sts-all.tsv")
    p.add_argument("--max_seq_length", type=int, default=32)
    p.add_argument("--temp", type=float, default=0.05)
    p.add_argument("--pooler_type", default="cls", choices=["cls", "avg"])
    p.add_argument("--batch_size", type=int, default=64)
    p.add_argument("--grad_accum_steps", type=int, default=4)
    p.add_argument("--learning_rate", type=float, default=3e-5)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--output_dir", default="result/unsup-simcse-bert-base")
    args = p.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)

    def collate(sentences):
        enc = tokenizer(sentences, padding=True, truncation=True, max_length=args.max_seq_length,
                        return_tensors="pt")
        return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]}

    train_loader = DataLoader(SentenceDataset(args.train_file), batch_size=args.batch_size, shuffle=True,
                              num_workers=4, collate_fn=collate, drop_last=True)
    model = SimCSE(args.model_name_or_path, temperature=args.temp, pooler=args.pooler_type)
    pairs, scores = load_stsb_dev(args.stsb_file)
    targs = TrainingArgs(output_dir=args.output_dir, num_train_epochs=args.epochs,
                         per_device_batch_size=args.batch_size, grad_accum_steps=args.grad_accum_steps,
                         learning_rate=args.learning_rate, fp16=device == "cuda")
    trainer = ContrastiveTrainer(model, targs, train_loader,
                                 eval_fn=lambda: sts_spearman(model, tokenizer, pairs, scores, device),
                                 device=device)
    best = trainer.train()
    logger.info("best STS-B dev spearman: %.4f", best)


if __name__ == "__main__":
    main()
