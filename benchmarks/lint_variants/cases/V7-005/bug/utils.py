import json
import os

import torch


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group["params"]:
            if param.grad is not None:
                param.grad.data.clamp_(-grad_clip, grad_clip)


def adjust_learning_rate(optimizer, shrink_factor):
    print("\nDECAYING learning rate.")
    for param_group in optimizer.param_groups:
        param_group["lr"] = param_group["lr"] * shrink_factor
    print("The new learning rate is %f\n" % (optimizer.param_groups[0]["lr"],))


def accuracy(scores, targets, k):
    batch_size = targets.size(0)
    _, ind = scores.topk(k, 1, True, True)
    correct = ind.eq(targets.view(-1, 1).expand_as(ind))
    return correct.view(-1).float().sum().item() * (100.0 / batch_size)


def save_checkpoint(data_name, epoch, epochs_since_improvement, encoder, decoder, encoder_optimizer,
                    decoder_optimizer, bleu4, is_best, out_dir="checkpoints"):
    os.makedirs(out_dir, exist_ok=True)
    state = {"epoch": epoch, "epochs_since_improvement": epochs_since_improvement, "bleu-4": bleu4,
             "encoder": encoder.state_dict(), "decoder": decoder.state_dict(),
             "encoder_optimizer": encoder_optimizer.state_dict() if encoder_optimizer else None,
             "decoder_optimizer": decoder_optimizer.state_dict()}
    filename = os.path.join(out_dir, "checkpoint_" + data_name + ".pth.tar")
    torch.save(state, filename)
    if is_best:
        torch.save(state, os.path.join(out_dir, "BEST_checkpoint_" + data_name + ".pth.tar"))


def load_word_map(data_folder, data_name):
    with open(os.path.join(data_folder, "WORDMAP_" + data_name + ".json")) as j:
        return json.load(j)
