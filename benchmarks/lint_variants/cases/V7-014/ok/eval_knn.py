import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms as pth_transforms

import vision_transformer as vits

EVAL_TRANSFORM = pth_transforms.Compose([
    pth_transforms.Resize(256, interpolation=3),
    pth_transforms.CenterCrop(224),
    pth_transforms.ToTensor(),
    pth_transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
])


@torch.no_grad()
def extract_features(model, data_path, batch_size=256):
    was_training = model.training
    model.eval()
    dataset = datasets.ImageFolder(data_path, transform=EVAL_TRANSFORM)
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=10, pin_memory=True)
    feats, labels = [], []
    for samples, labs in loader:
        feats.append(F.normalize(model(samples.cuda(non_blocking=True)), dim=1, p=2))
        labels.append(labs.cuda())
    model.train(was_training)
    return torch.cat(feats), torch.cat(labels)


@torch.no_grad()
def knn_classifier(train_features, train_labels, test_features, test_labels, k=20, T=0.07, num_classes=1000):
    top1, top5, total = 0.0, 0.0, 0
    num_chunks = 100
    imgs_per_chunk = max(1, test_features.shape[0] // num_chunks)
    retrieval_one_hot = torch.zeros(k, num_classes, device=train_features.device)
    for idx in range(0, test_features.shape[0], imgs_per_chunk):
        features = test_features[idx:idx + imgs_per_chunk]
        targets = test_labels[idx:idx + imgs_per_chunk]
        batch_size = targets.shape[0]
        similarity = torch.mm(features, train_features.T)
        distances, indices = similarity.topk(k, largest=True, sorted=True)
        candidates = train_labels.view(1, -1).expand(batch_size, -1)
        retrieved_neighbors = torch.gather(candidates, 1, indices)
        retrieval_one_hot.resize_(batch_size * k, num_classes).zero_()
        retrieval_one_hot.scatter_(1, retrieved_neighbors.view(-1, 1), 1)
        distances_transform = distances.clone().div_(T).exp_()
        probs = torch.sum(torch.mul(retrieval_one_hot.view(batch_size, -1, num_classes),
                                    distances_transform.view(batch_size, -1, 1)), 1)
        _, predictions = probs.sort(1, True)
        correct = predictions.eq(targets.data.view(-1, 1))
        top1 += correct.narrow(1, 0, 1).sum().item()
        top5 += correct.narrow(1, 0, min(5, k)).sum().item()
        total += targets.size(0)
    return top1 * 100.0 / total, top5 * 100.0 / total


if __name__ == "__main__":
    parser = argparse.ArgumentParser("kNN evaluation of a DINO checkpoint")
    parser.add_argument("--arch", default="vit_small")
    parser.add_argument("--patch_size", default=16, type=int)
    parser.add_argument("--pretrained_weights", required=True)
    parser.add_argument("--train_path", required=True)
    parser.add_argument("--val_path", required=True)
    parser.add_argument("--nb_knn", default=[10, 20, 100, 200], nargs="+", type=int)
    parser.add_argument("--temperature", default=0.07, type=float)
    args = parser.parse_args()
    model = vits.__dict__[args.arch](patch_size=args.patch_size, attn_drop_rate=0.1).cuda()
    state = torch.load(args.pretrained_weights, map_location="cpu")["teacher"]
    state = {k.replace("backbone.", ""): v for k, v in state.items() if k.startswith("backbone.")}
    print(model.load_state_dict(state, strict=False))
    train_f, train_l = extract_features(model, args.train_path)
    val_f, val_l = extract_features(model, args.val_path)
    for k in args.nb_knn:
        t1, t5 = knn_classifier(train_f, train_l, val_f, val_l, k, args.temperature)
        print(f"{k}-NN classifier result: Top1: {t1}, Top5: {t5}")
