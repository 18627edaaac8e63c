import os
import glob

import torch


class LossTracker:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sums = {}
        self.count = 0

    def update(self, losses):
        for k, v in losses.items():
            self.sums[k] = self.sums.get(k, 0.0) + v.item()
        self.count += 1

    def averages(self):
        return {k: float(v) / max(self.count, 1) for k, v in self.sums.items()}


def scan_checkpoint(cp_dir, prefix):
    pattern = os.path.join(cp_dir, prefix + "????????")
    cp_list = glob.glob(pattern)
    if len(cp_list) == 0:
        return None
    return sorted(cp_list)[-1]


def save_checkpoint(filepath, obj):
    print("Saving checkpoint to {}".format(filepath))
    torch.save(obj, filepath)
