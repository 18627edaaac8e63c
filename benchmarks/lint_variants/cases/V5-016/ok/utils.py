import torch
import torch.nn.functional as F


@torch.no_grad()
def knn_monitor(net, memory_loader, test_loader, k=200, t=0.1, num_classes=10):
    net.eval()
    feature_bank, labels = [], []
    for data, target in memory_loader:
        feature, _ = net(data.cuda(non_blocking=True))
        feature_bank.append(feature)
        labels.append(target.cuda(non_blocking=True))
    feature_bank = torch.cat(feature_bank, dim=0).t().contiguous()
    feature_labels = torch.cat(labels)
    total_top1, total_num = 0.0, 0
    for data, target in test_loader:
        data, target = data.cuda(non_blocking=True), target.cuda(non_blocking=True)
        feature, _ = net(data)
        sim_matrix = torch.mm(feature, feature_bank)
        sim_weight, sim_indices = sim_matrix.topk(k=k, dim=-1)
        sim_labels = torch.gather(feature_labels.expand(data.size(0), -1), dim=-1, index=sim_indices)
        sim_weight = (sim_weight / t).exp()
        one_hot = F.one_hot(sim_labels, num_classes).float()
        pred_scores = torch.sum(one_hot * sim_weight.unsqueeze(-1), dim=1)
        pred_labels = pred_scores.argmax(dim=-1)
        total_num += data.size(0)
        total_top1 += (pred_labels == target).float().sum().item()
    return total_top1 / total_num * 100
