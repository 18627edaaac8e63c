import argparse
import logging
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from builder import build_dataloader, build_optimizer
from runner import EpochBasedRunner
from detector import build_detector, CocoDetection, collate


def parse_args():
    parser = argparse.ArgumentParser(description="Train a detector")
    parser.add_argument("config", help="train config file path (python dict)")
    parser.add_argument("--work-dir", default="work_dirs/retinanet_r50_fpn_1x")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0)))
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = {}
    with open(args.config) as f:
        exec(f.read(), {}, cfg)
    dist.init_process_group(backend="nccl")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(args.local_rank)
    os.makedirs(args.work_dir, exist_ok=True)
    logging.basicConfig(level=logging.INFO)
    logger = logging.getLogger("det")

    model = build_detector(cfg["model"]).cuda()
    model = DistributedDataParallel(model, device_ids=[args.local_rank], find_unused_parameters=False)
    optimizer = build_optimizer(model, cfg["optimizer"])
    train_set = CocoDetection(**cfg["data"]["train"])
    val_set = CocoDetection(**cfg["data"]["val"])
    train_loader = build_dataloader(train_set, cfg["data"]["samples_per_gpu"], cfg["data"]["workers_per_gpu"],
                                    rank, world_size, shuffle=True, seed=args.seed, collate_fn=collate)
    val_loader = build_dataloader(val_set, 1, cfg["data"]["workers_per_gpu"], rank, world_size,
                                  shuffle=False, collate_fn=collate)
    runner = EpochBasedRunner(model, optimizer, args.work_dir, logger, rank=rank,
                              max_epochs=cfg["total_epochs"])
    runner.run(train_loader, val_loader, cfg["lr_config"])


if __name__ == "__main__":
    main()
