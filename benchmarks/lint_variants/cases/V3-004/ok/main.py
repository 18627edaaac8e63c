import argparse

import timm
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from engine import evaluate, train_one_epoch
from losses import DistillationLoss


def get_args_parser():
    parser = argparse.ArgumentParser("DeiT-style distillation", add_help=False)
    parser.add_argument("--data-path", default="/datasets01/imagenet_full_size/061417/")
    parser.add_argument("--model", default="deit_tiny_patch16_224")
    parser.add_argument("--teacher-model", default="regnety_160")
    parser.add_argument("--teacher-path", default="")
    parser.add_argument("--distillation-type", default="soft", choices=["none", "soft", "hard"])
    parser.add_argument("--distillation-alpha", default=0.5, type=float)
    parser.add_argument("--distillation-tau", default=1.0, type=float)
    parser.add_argument("--batch-size", default=128, type=int)
    parser.add_argument("--epochs", default=300, type=int)
    parser.add_argument("--lr", default=5e-4, type=float)
    parser.add_argument("--clip-grad", default=None, type=float)
    return parser


def main(args):
    device = torch.device("cuda")
    tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                             transforms.ToTensor()])
    dataset_train = datasets.ImageFolder(f"{args.data_path}/train", transform=tf)
    dataset_val = datasets.ImageFolder(f"{args.data_path}/val", transform=transforms.Compose(
        [transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor()]))
    data_loader_train = DataLoader(dataset_train, batch_size=args.batch_size, shuffle=True,
                                   num_workers=10, pin_memory=True, drop_last=True)
    data_loader_val = DataLoader(dataset_val, batch_size=int(1.5 * args.batch_size), num_workers=10)

    model = timm.create_model(args.model, num_classes=1000, drop_rate=0.0, drop_path_rate=0.1)
    model.to(device)
    teacher_model = timm.create_model(args.teacher_model, num_classes=1000)
    if args.teacher_path:
        teacher_model.load_state_dict(torch.load(args.teacher_path, map_location="cpu")["model"])
    teacher_model.to(device)
    teacher_model.eval()

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    loss_scaler = torch.cuda.amp.GradScaler()
    criterion = DistillationLoss(torch.nn.CrossEntropyLoss(), teacher_model,
                                 args.distillation_type, args.distillation_alpha,
                                 args.distillation_tau)
    for epoch in range(args.epochs):
        train_one_epoch(model, criterion, data_loader_train, optimizer, device, epoch,
                        loss_scaler, args.clip_grad)
        test_stats = evaluate(data_loader_val, model, device)
        print(f"Accuracy of the network on the {len(dataset_val)} test images: "
              f"{test_stats['acc1']:.1f}%")


if __name__ == "__main__":
    main(argparse.ArgumentParser(parents=[get_args_parser()]).parse_args())
