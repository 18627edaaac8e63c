import logging
import math
import os
import random

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from transformers import HfArgumentParser, get_cosine_schedule_with_warmup

from configuration import TrainingArguments, TrOCRConfig
from data import CharTokenizer, LineImageDataset, cer, collate
from modeling_trocr import TrOCRModel

logger = logging.getLogger(__name__)


def evaluate(model, loader, tok, device):
    model.eval()
    preds, refs = [], []
    for images, _, texts in loader:
        out = model.generate(images.to(device))
        preds.extend(tok.decode(row) for row in out[:, 1:].tolist())
        refs.extend(texts)
    return cer(preds, refs)


def main():
    (args,) = HfArgumentParser(TrainingArguments).parse_args_into_dataclasses()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(name)s - %(message)s")
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    with open(args.train_manifest, encoding="utf-8") as f:
        charset = "".join(line.rstrip("\n").split("\t", 1)[-1] for line in f)
    tok = CharTokenizer(charset)
    config = TrOCRConfig(vocab_size=len(tok))
    model = TrOCRModel(config).to(device)

    train_ds = LineImageDataset(args.train_manifest, args.image_root, tok)
    eval_ds = LineImageDataset(args.eval_manifest, args.image_root, tok)
    train_dl = DataLoader(train_ds, args.per_device_batch_size, shuffle=True, num_workers=4, collate_fn=collate)
    eval_dl = DataLoader(eval_ds, args.per_device_batch_size, num_workers=4, collate_fn=collate)

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
    total = args.num_train_epochs * len(train_dl)
    scheduler = get_cosine_schedule_with_warmup(optimizer, args.warmup_steps, total)
    os.makedirs(args.output_dir, exist_ok=True)
    config.save_pretrained(os.path.join(args.output_dir, "config.json"))

    best, step = math.inf, 0
    for epoch in range(args.num_train_epochs):
        model.train()
        for images, labels, _ in train_dl:
            images, labels = images.to(device), labels.to(device)
            logits = model(images, labels[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1),
                                   ignore_index=config.pad_token_id, label_smoothing=args.label_smoothing)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            if step % args.logging_steps == 0:
                logger.info("epoch %d step %d loss %.4f lr %.2e", epoch, step, loss.item(), scheduler.get_last_lr()[0])
        score = evaluate(model, eval_dl, tok, device)
        logger.info("epoch %d eval CER %.4f", epoch, score)
        if score < best:
            best = score
            torch.save(model.state_dict(), os.path.join(args.output_dir, "pytorch_model.bin"))


if __name__ == "__main__":
    main()
