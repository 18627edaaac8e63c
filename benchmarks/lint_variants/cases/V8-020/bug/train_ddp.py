import argparse
import logging
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoTokenizer, get_linear_schedule_with_warmup

from data import build_eval_loader, build_train_loader, span_exact_match
from model import SpanExtractor, param_groups, save_checkpoint

logger = logging.getLogger("squad")


def parse_args():
    p = argparse.ArgumentParser(description="SQuAD v1.1 fine-tuning with DDP (launch with torchrun)")
    p.add_argument("--model_name", default="roberta-base")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--per_gpu_batch_size", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--warmup_ratio", type=float, default=0.1)
    p.add_argument("--output_dir", default="out/roberta-squad")
    p.add_argument("--log_every", type=int, default=100)
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0.0, 0
    for batch in loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        out = model(batch["input_ids"], batch["attention_mask"], batch.get("token_type_ids"))
        correct += span_exact_match(out["start_logits"], out["end_logits"], batch["start_positions"],
                                    batch["end_positions"])
        total += batch["input_ids"].size(0)
    return correct / max(total, 1)


def main():
    args = parse_args()
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    device = torch.device("cuda", local_rank)
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING)

    tokenizer = AutoTokenizer.from_pretrained(args.model_name)
    train_loader, train_sampler = build_train_loader(tokenizer, args.per_gpu_batch_size, world, rank)
    model = DDP(SpanExtractor(args.model_name).to(device), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(param_groups(model.module), lr=args.lr)
    total_steps = args.epochs * len(train_loader)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(args.warmup_ratio * total_steps), total_steps)

    step = 0
    for epoch in range(args.epochs):
        model.train()
        for batch in train_loader:
            batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}
            out = model(**batch)
            loss = out["loss"]
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            if rank == 0 and step % args.log_every == 0:
                logger.info("epoch %d step %d/%d loss %.4f", epoch, step, total_steps, loss.item())
        if rank == 0:
            em = evaluate(model.module, build_eval_loader(tokenizer, 64), device)
            logger.info("epoch %d feature-level exact match %.4f", epoch, em)
            save_checkpoint(model, tokenizer, os.path.join(args.output_dir, f"epoch{epoch}"))
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
