import itertools

import torch
import torch.nn.functional as F


def _starts(size, roi, step):
    if size <= roi:
        return [0]
    starts = list(range(0, size - roi, step))
    return starts + [size - roi]


def sliding_window_inference(inputs, roi_size, sw_batch_size, predictor, overlap=0.25):
    b, _, d, h, w = inputs.shape
    pad = [max(r - s, 0) for r, s in zip(roi_size, (d, h, w))]
    inputs = F.pad(inputs, (0, pad[2], 0, pad[1], 0, pad[0]))
    D, H, W = inputs.shape[2:]
    steps = [max(int(r * (1 - overlap)), 1) for r in roi_size]
    windows = list(itertools.product(*[_starts(s, r, st) for s, r, st in zip((D, H, W), roi_size, steps)]))
    out, count = None, torch.zeros((b, 1, D, H, W), device=inputs.device)
    for i in range(0, len(windows), sw_batch_size):
        chunk = windows[i:i + sw_batch_size]
        patches = torch.cat([inputs[:, :, z:z + roi_size[0], y:y + roi_size[1], x:x + roi_size[2]] for z, y, x in chunk])
        preds = predictor(patches)
        if out is None:
            out = torch.zeros((b, preds.shape[1], D, H, W), device=inputs.device)
        for j, (z, y, x) in enumerate(chunk):
            out[:, :, z:z + roi_size[0], y:y + roi_size[1], x:x + roi_size[2]] += preds[j * b:(j + 1) * b]
            count[:, :, z:z + roi_size[0], y:y + roi_size[1], x:x + roi_size[2]] += 1
    out = out / count
    return out[:, :, :d, :h, :w]
