import csv

import torch


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Logger(object):
    def __init__(self, path, header):
        self.log_file = open(path, "w")
        self.logger = csv.writer(self.log_file, delimiter="\t")
        self.logger.writerow(header)
        self.header = header

    def log(self, values):
        self.logger.writerow([values[col] for col in self.header])
        self.log_file.flush()


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    _, pred = output.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    return [correct[:k].reshape(-1).float().sum(0) * 100.0 / target.size(0) for k in topk]


def compute_accuracy(model, data_loader, device, criterion=None):
    top1, top5, losses = AverageMeter(), AverageMeter(), AverageMeter()
    with torch.no_grad():
        for inputs, targets in data_loader:
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = model(inputs)
            if criterion is not None:
                losses.update(criterion(outputs, targets).item(), inputs.size(0))
            acc1, acc5 = accuracy(outputs, targets, topk=(1, 5))
            top1.update(acc1.item(), inputs.size(0))
            top5.update(acc5.item(), inputs.size(0))
    return top1.avg, top5.avg, losses.avg
