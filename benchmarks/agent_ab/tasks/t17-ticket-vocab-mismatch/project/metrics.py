"""Classification metrics."""
import torch


@torch.no_grad()
def predict(model, loader):
    model.eval()
    preds, labels = [], []
    for x, y in loader:
        preds.append(model(x).argmax(-1))
        labels.append(y)
    model.train()
    return torch.cat(preds), torch.cat(labels)


def confusion_matrix(preds, labels, num_classes):
    cm = torch.zeros(num_classes, num_classes, dtype=torch.long)
    for p, t in zip(preds.tolist(), labels.tolist()):
        cm[t, p] += 1
    return cm


def classification_report(preds, labels, num_classes):
    cm = confusion_matrix(preds, labels, num_classes)
    tp = cm.diag().float()
    precision = tp / cm.sum(0).clamp(min=1)
    recall = tp / cm.sum(1).clamp(min=1)
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-9)
    return {"acc": (preds == labels).float().mean().item(), "macro_f1": f1.mean().item(),
            "per_class_recall": recall.tolist()}
