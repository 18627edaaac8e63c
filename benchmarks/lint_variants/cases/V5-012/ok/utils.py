import numpy as np
import torch
import torch.nn.functional as F
from sklearn.metrics import roc_curve


def compute_eer(scores, labels):
    fpr, tpr, _ = roc_curve(labels, scores, pos_label=1)
    fnr = 1 - tpr
    idx = np.nanargmin(np.abs(fnr - fpr))
    return float((fpr[idx] + fnr[idx]) / 2) * 100


@torch.no_grad()
def extract_embeddings(model, loader, device):
    model.eval()
    embeddings = {}
    for feats, names in loader:
        emb = model(feats.to(device))
        emb = F.normalize(emb, p=2, dim=1).cpu()
        for name, e in zip(names, emb):
            embeddings[name] = e
    return embeddings


def score_trials(embeddings, trials):
    scores, labels = [], []
    for label, enroll, test in trials:
        scores.append(float(torch.dot(embeddings[enroll], embeddings[test])))
        labels.append(int(label))
    return np.array(scores), np.array(labels)
