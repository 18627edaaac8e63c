import numpy as np
import pandas as pd
import torch
from sklearn.metrics import f1_score, precision_score, recall_score
from torch.utils.data import Dataset


class SlidingWindows(Dataset):
    def __init__(self, arr: np.ndarray, window: int, stride: int = 1):
        self.arr = torch.as_tensor(arr, dtype=torch.float32)
        self.window = window
        self.starts = np.arange(0, len(arr) - window + 1, stride)

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = self.starts[i]
        return self.arr[s:s + self.window]


def window_labels(labels: np.ndarray, window: int, stride: int = 1) -> np.ndarray:
    starts = np.arange(0, len(labels) - window + 1, stride)
    return np.array([labels[s:s + window].max() for s in starts])


def load_sensor_csv(path: str, time_col: str = "timestamp", resample: str = "1min") -> pd.DataFrame:
    df = pd.read_csv(path, parse_dates=[time_col]).set_index(time_col).sort_index()
    df = df.resample(resample).mean().interpolate(limit=10).dropna()
    return df


def point_adjust(pred: np.ndarray, label: np.ndarray) -> np.ndarray:
    pred = pred.copy()
    in_seg, start = False, 0
    for i in range(len(label)):
        if label[i] and not in_seg:
            in_seg, start = True, i
        if in_seg and (not label[i] or i == len(label) - 1):
            end = i if not label[i] else i + 1
            if pred[start:end].any():
                pred[start:end] = 1
            in_seg = False
    return pred


def scores(pred: np.ndarray, label: np.ndarray) -> dict:
    return {"precision": precision_score(label, pred, zero_division=0),
            "recall": recall_score(label, pred, zero_division=0),
            "f1": f1_score(label, pred, zero_division=0)}
