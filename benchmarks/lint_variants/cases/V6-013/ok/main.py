import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torchvision
from torch.nn.parallel import DistributedDataParallel

from dataset import get_dataloader
from trainer import Trainer

LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]


def worker(rank, world_size, root="./data", batch_size=128, epochs=30):
    os.environ.setdefault("MASTER_ADDR", "localhost")
    os.environ.setdefault("MASTER_PORT", "29500")
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    train_loader = get_dataloader(root, "training", LABELS, batch_size, rank, world_size)
    val_loader = get_dataloader(root, "validation", LABELS, batch_size, rank, world_size)
    net = torchvision.models.resnet18(num_classes=len(LABELS))
    net.conv1 = torch.nn.Conv2d(1, 64, 7, 2, 3, bias=False)
    model = DistributedDataParallel(net.cuda(rank), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    Trainer(model, optimizer, train_loader, val_loader, rank, epochs).fit()
    dist.destroy_process_group()


if __name__ == "__main__":
    n_gpus = torch.cuda.device_count()
    mp.spawn(worker, args=(n_gpus,), nprocs=n_gpus, join=True)
