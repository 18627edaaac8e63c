import torch


def iou_score(logits, target, num_classes, eps=1e-6):
    pred = logits.argmax(1)
    ious = []
    for c in range(num_classes):
        p = pred == c
        t = target == c
        inter = (p & t).sum().float()
        union = (p | t).sum().float()
        if union > 0:
            ious.append((inter + eps) / (union + eps))
    return torch.stack(ious).mean().item() if ious else 0.0


def pixel_accuracy(logits, target):
    pred = logits.argmax(1)
    return (pred == target).float().mean().item()


class RunningScore:
    def __init__(self):
        self.total_iou = 0.0
        self.total_acc = 0.0
        self.n = 0

    def update(self, iou, acc):
        self.total_iou += iou
        self.total_acc += acc
        self.n += 1

    def get(self):
        return {"mIoU": self.total_iou / max(self.n, 1), "pixAcc": self.total_acc / max(self.n, 1)}
