import os
import random
import time

import numpy as np
import torch


def seed_everything(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.backends.cudnn.deterministic = True


def timeSince(since):
    s = time.time() - since
    m = int(s // 60)
    return f"{m}m {int(s - m * 60)}s"


def get_score(y_true, y_pred):
    return float((y_true == y_pred.argmax(1)).mean())
