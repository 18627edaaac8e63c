import argparse
import logging
import random

import numpy as np
import torch
from torch.utils.data import DataLoader
from transformers import AutoTokenizer

from data import PairCollator, UnsupervisedWiki
from model import SimCSE
from trainer import SimCSETrainer


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def main():
    parser = argparse.ArgumentParser(description="unsupervised SimCSE")
    parser.add_argument("--model_name_or_path", default="bert-base-uncased")
    parser.add_argument("--train_file", default="data/wiki1m_for_simcse.txt")
    parser.add_argument("--stsb_dev", default="data/stsbenchmark/sts-dev.csv")
    parser.add_argument("--output_dir", default="result/unsup-simcse-bert-base")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--max_seq_length", type=int, default=32)
    parser.add_argument("--temp", type=float, default=0.05)
    parser.add_argument("--pooler_type", default="cls", choices=["cls", "avg"])
    parser.add_argument("--logging_steps", type=int, default=125)
    parser.add_argument("--eval_steps", type=int, default=250)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", level=logging.INFO)
    set_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    dataset = UnsupervisedWiki(args.train_file)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        collate_fn=PairCollator(tokenizer, args.max_seq_length), num_workers=2)
    model = SimCSE(args.model_name_or_path, args.pooler_type, args.temp)
    best = SimCSETrainer(model, tokenizer, loader, args, device).train()
    logging.getLogger("simcse").info("best stsb-dev spearman %.4f", best)


if __name__ == "__main__":
    main()
