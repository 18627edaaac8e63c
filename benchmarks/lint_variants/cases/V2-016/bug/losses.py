import torch


def weighted_binary_crossentropy(pos_weight=1.0):
    def loss(y_pred, y_true):
        bce = -(pos_weight * y_true * torch.log(y_pred) + (1.0 - y_true) * torch.log(1.0 - y_pred))
        return bce.mean()
    return loss


def binary_accuracy(y_pred, y_true, threshold=0.5):
    return ((y_pred > threshold).float() == y_true).float().mean().item()
