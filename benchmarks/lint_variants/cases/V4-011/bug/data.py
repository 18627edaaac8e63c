import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler, RandomSampler
import torchvision.transforms as T
from torchvision.datasets import ImageFolder


def build_transform(is_train, cfg):
    if is_train:
        return T.Compose([
            T.RandomResizedCrop(cfg.input_size, scale=(0.08, 1.0)),
            T.RandomHorizontalFlip(),
            T.ColorJitter(0.4, 0.4, 0.4),
            T.ToTensor(),
            T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
        ])
    return T.Compose([
        T.Resize(int(cfg.input_size / 0.875)),
        T.CenterCrop(cfg.input_size),
        T.ToTensor(),
        T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
    ])


def build_sampler(dataset, is_train, distributed):
    if distributed:
        return DistributedSampler(dataset, num_replicas=dist.get_world_size(),
                                  rank=dist.get_rank(), shuffle=is_train)
    return RandomSampler(dataset) if is_train else SequentialSampler(dataset)


def build_loader(cfg, is_train, distributed):
    root = cfg.data_path + ("/train" if is_train else "/val")
    dataset = ImageFolder(root, transform=build_transform(is_train, cfg))
    sampler = build_sampler(dataset, is_train, distributed)
    return DataLoader(dataset, sampler=sampler, batch_size=cfg.batch_size,
                      num_workers=cfg.num_workers, pin_memory=True, drop_last=is_train)
