import numpy as np
import torch


def hit_ndcg_at_k(scores, test_items, k=10):
    topk = torch.topk(scores, k, dim=1).indices.cpu().numpy()
    hits, ndcgs = [], []
    for row, target in zip(topk, test_items.cpu().numpy()):
        where = np.where(row == target)[0]
        if len(where):
            hits.append(1.0)
            ndcgs.append(1.0 / np.log2(where[0] + 2))
        else:
            hits.append(0.0)
            ndcgs.append(0.0)
    return float(np.mean(hits)), float(np.mean(ndcgs))


class Trainer:
    def __init__(self, model, optimizer, device, topk=10):
        self.model = model
        self.optimizer = optimizer
        self.device = device
        self.topk = topk

    def _update(self, users, pos, neg):
        loss = self.model.bpr_loss(users, pos, neg)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_epoch(self, loader, epoch):
        self.model.train()
        total = 0.0
        for users, pos, neg in loader:
            users = users.to(self.device)
            pos = pos.to(self.device)
            neg = neg.to(self.device)
            total += self._update(users, pos, neg)
        avg = total / len(loader)
        print(f"epoch {epoch:3d} | bpr loss {avg:.5f}")
        return avg

    def validate(self, test_users, test_items, train_mask):
        self.model.eval()
        users = test_users.to(self.device)
        scores = self.model.full_scores(users)
        scores[train_mask[test_users].to(self.device)] = -float("inf")
        return hit_ndcg_at_k(scores, test_items, self.topk)
