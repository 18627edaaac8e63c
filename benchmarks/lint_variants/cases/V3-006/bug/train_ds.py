import argparse

import deepspeed
import torch
import torch.nn as nn

from data import build_dataloaders
from modeling import SequenceClassifier


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="roberta-base")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--local_rank", type=int, default=-1)
    parser = deepspeed.add_config_arguments(parser)
    return parser.parse_args()


def evaluate(model_engine, loader):
    model_engine.eval()
    correct = total = 0
    with torch.no_grad():
        for batch in loader:
            batch = {k: v.to(model_engine.device) for k, v in batch.items()}
            logits = model_engine(batch["input_ids"], batch["attention_mask"])
            correct += (logits.argmax(-1) == batch["labels"]).sum().item()
            total += batch["labels"].numel()
    model_engine.train()
    return correct / total


def main():
    args = parse_args()
    deepspeed.init_distributed()
    model = SequenceClassifier(args.model_name, num_labels=3)
    model_engine, optimizer, _, scheduler = deepspeed.initialize(
        args=args, model=model, model_parameters=model.parameters())
    train_loader, dev_loader = build_dataloaders(args.model_name,
                                                 model_engine.train_micro_batch_size_per_gpu())
    loss_fct = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        model_engine.train()
        for step, batch in enumerate(train_loader):
            batch = {k: v.to(model_engine.device) for k, v in batch.items()}
            logits = model_engine(batch["input_ids"], batch["attention_mask"])
            loss = loss_fct(logits.view(-1, 3), batch["labels"].view(-1))
            model_engine.backward(loss)
            model_engine.step()
            if step % 200 == 0 and model_engine.global_rank == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        acc = evaluate(model_engine, dev_loader)
        if model_engine.global_rank == 0:
            print(f"epoch {epoch} dev acc {acc:.4f}")
        model_engine.save_checkpoint("checkpoints", tag=f"epoch{epoch}")


if __name__ == "__main__":
    main()
