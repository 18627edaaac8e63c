import logging

import torch
import torch.nn.functional as F
from torchvision.datasets import ImageFolder

from train import unwrap_model

TEMPLATES = (
    "a photo of a {}.",
    "a bad photo of a {}.",
    "a photo of the large {}.",
    "a photo of the small {}.",
    "a cropped photo of a {}.",
    "a close-up photo of a {}.",
    "itap of a {}.",
)


@torch.no_grad()
def build_zero_shot_classifier(model, tokenizer, classnames, device):
    weights = []
    for name in classnames:
        texts = tokenizer([t.format(name) for t in TEMPLATES]).to(device)
        emb = F.normalize(model.encode_text(texts), dim=-1).mean(dim=0)
        weights.append(emb / emb.norm())
    return torch.stack(weights, dim=1)


def accuracy(output, target, topk=(1, 5)):
    pred = output.topk(max(topk), 1, True, True)[1].t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    return [float(correct[:k].reshape(-1).float().sum(0).item()) for k in topk]


@torch.no_grad()
def zero_shot_eval(model, root, preprocess, tokenizer, args):
    model = unwrap_model(model)
    model.eval()
    dataset = ImageFolder(root, transform=preprocess)
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, num_workers=args.workers)
    classnames = [c.replace("_", " ") for c in dataset.classes]
    classifier = build_zero_shot_classifier(model, tokenizer, classnames, args.device)
    top1, top5, n = 0.0, 0.0, 0
    for images, target in loader:
        images, target = images.to(args.device), target.to(args.device)
        feats = F.normalize(model.encode_image(images), dim=-1)
        logits = 100.0 * feats @ classifier
        acc1, acc5 = accuracy(logits, target)
        top1 += acc1
        top5 += acc5
        n += images.size(0)
    logging.info("zero-shot on %d images from %d classes", n, len(classnames))
    return {"imagenet-zeroshot-val-top1": top1 / n, "imagenet-zeroshot-val-top5": top5 / n}
