import cv2
import numpy as np

FLIP_PAIRS = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12], [13, 14], [15, 16]]


def get_affine_transform(center, scale, output_size, inv=False, pixel_std=200.0):
    src_w = scale[0] * pixel_std
    dst_w, dst_h = output_size
    src_dir = np.array([0, src_w * -0.5], np.float32)
    dst_dir = np.array([0, dst_w * -0.5], np.float32)
    src = np.zeros((3, 2), np.float32)
    dst = np.zeros((3, 2), np.float32)
    src[0], src[1] = center, center + src_dir
    dst[0], dst[1] = [dst_w * 0.5, dst_h * 0.5], np.array([dst_w * 0.5, dst_h * 0.5]) + dst_dir
    src[2] = src[1] + np.array([-(src[0] - src[1])[1], (src[0] - src[1])[0]])
    dst[2] = dst[1] + np.array([-(dst[0] - dst[1])[1], (dst[0] - dst[1])[0]])
    return cv2.getAffineTransform(dst, src) if inv else cv2.getAffineTransform(src, dst)


def box_to_center_scale(box, aspect_ratio=192 / 256, pixel_std=200.0):
    x, y, w, h = box
    center = np.array([x + w * 0.5, y + h * 0.5], dtype=np.float32)
    if w > aspect_ratio * h:
        h = w / aspect_ratio
    else:
        w = h * aspect_ratio
    return center, np.array([w / pixel_std, h / pixel_std], dtype=np.float32) * 1.25


def flip_back(heatmaps):
    heatmaps = heatmaps[:, :, :, ::-1].copy()
    for a, b in FLIP_PAIRS:
        heatmaps[:, [a, b]] = heatmaps[:, [b, a]]
    return heatmaps


def get_max_preds(heatmaps):
    n, k, _, w = heatmaps.shape
    flat = heatmaps.reshape(n, k, -1)
    idx = np.argmax(flat, axis=2)
    maxvals = np.amax(flat, axis=2)[..., None]
    preds = np.stack([idx % w, idx // w], axis=-1).astype(np.float32)
    preds *= (maxvals > 0.0)
    return preds, maxvals


def get_final_preds(heatmaps, centers, scales):
    coords, maxvals = get_max_preds(heatmaps)
    h, w = heatmaps.shape[2:]
    for n in range(coords.shape[0]):
        for k in range(coords.shape[1]):
            px, py = int(coords[n, k, 0] + 0.5), int(coords[n, k, 1] + 0.5)
            if 1 < px < w - 1 and 1 < py < h - 1:
                hm = heatmaps[n, k]
                coords[n, k] += np.sign([hm[py, px + 1] - hm[py, px - 1], hm[py + 1, px] - hm[py - 1, px]]) * 0.25
        trans = get_affine_transform(centers[n], scales[n], (w, h), inv=True)
        coords[n] = np.concatenate([coords[n], np.ones((coords.shape[1], 1))], axis=1) @ trans.T
    return coords, maxvals
