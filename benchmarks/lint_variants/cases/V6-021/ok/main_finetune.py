import argparse

import timm
import torch
from timm.data.mixup import Mixup
from timm.loss import SoftTargetCrossEntropy

import misc
from engine_finetune import evaluate, train_one_epoch
from util_datasets import build_dataset


def get_args_parser():
    parser = argparse.ArgumentParser("MAE fine-tuning for image classification", add_help=False)
    parser.add_argument("--batch_size", default=64, type=int)
    parser.add_argument("--epochs", default=50, type=int)
    parser.add_argument("--accum_iter", default=4, type=int)
    parser.add_argument("--model", default="vit_base_patch16_224", type=str)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--min_lr", type=float, default=1e-6)
    parser.add_argument("--warmup_epochs", type=int, default=5)
    parser.add_argument("--clip_grad", type=float, default=None)
    parser.add_argument("--data_path", default="/datasets01/imagenet_full_size/061417/")
    parser.add_argument("--nb_classes", default=1000, type=int)
    return parser


def main(args):
    device = torch.device("cuda")
    dataset_train, dataset_val = build_dataset(True, args), build_dataset(False, args)
    data_loader_train = torch.utils.data.DataLoader(dataset_train, batch_size=args.batch_size, shuffle=True,
                                                    num_workers=10, pin_memory=True, drop_last=True)
    data_loader_val = torch.utils.data.DataLoader(dataset_val, batch_size=args.batch_size, num_workers=10)
    mixup_fn = Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1, num_classes=args.nb_classes)
    model = timm.create_model(args.model, pretrained=True, num_classes=args.nb_classes, drop_path_rate=0.1)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    loss_scaler = misc.NativeScalerWithGradNormCount()
    criterion = SoftTargetCrossEntropy()
    max_accuracy = 0.0
    for epoch in range(args.epochs):
        train_one_epoch(model, criterion, data_loader_train, optimizer, device, epoch, loss_scaler,
                        args.clip_grad, mixup_fn, args=args)
        test_stats = evaluate(data_loader_val, model, device)
        max_accuracy = max(max_accuracy, test_stats["acc1"])
        print(f"Accuracy: {test_stats['acc1']:.1f}% (max {max_accuracy:.2f}%)")
        torch.save({"model": model.state_dict(), "scaler": loss_scaler.state_dict()}, f"checkpoint-{epoch}.pth")


if __name__ == "__main__":
    main(get_args_parser().parse_args())
