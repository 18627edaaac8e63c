import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def build_transforms(train, size=224):
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    if train:
        return transforms.Compose([transforms.RandomResizedCrop(size), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), normalize])
    return transforms.Compose([transforms.Resize(int(size / 0.875)), transforms.CenterCrop(size),
                               transforms.ToTensor(), normalize])


def build_loader(root, train, batch_size, workers=8):
    dataset = datasets.ImageFolder(root, build_transforms(train))
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(),
                                 rank=dist.get_rank(), shuffle=train)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      pin_memory=True, drop_last=train, persistent_workers=True)
