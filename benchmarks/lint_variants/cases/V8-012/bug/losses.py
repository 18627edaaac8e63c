import torch
import torch.nn.functional as F


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="sum"):
    """Focal loss from RetinaNet; `inputs` are per-class classification scores before the sigmoid."""
    prob = inputs.sigmoid()
    ce_loss = F.binary_cross_entropy(prob, targets, reduction="none")
    p_t = prob * targets + (1 - prob) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def keypoints_to_heatmap(keypoints, rois, heatmap_size):
    offset_x, offset_y = rois[:, 0], rois[:, 1]
    scale_x = heatmap_size / (rois[:, 2] - rois[:, 0]).clamp_min(1.0)
    scale_y = heatmap_size / (rois[:, 3] - rois[:, 1]).clamp_min(1.0)
    x = ((keypoints[..., 0] - offset_x[:, None]) * scale_x[:, None]).floor().long()
    y = ((keypoints[..., 1] - offset_y[:, None]) * scale_y[:, None]).floor().long()
    inside = (x >= 0) & (y >= 0) & (x < heatmap_size) & (y < heatmap_size)
    valid = inside & (keypoints[..., 2] > 0)
    lin_ind = y.clamp(0, heatmap_size - 1) * heatmap_size + x.clamp(0, heatmap_size - 1)
    return lin_ind * valid, valid


def keypoint_rcnn_loss(keypoint_logits, proposals, gt_keypoints):
    n, k, h, w = keypoint_logits.shape
    targets, valid = keypoints_to_heatmap(gt_keypoints, proposals, h)
    targets, valid = targets.view(-1), valid.view(-1)
    if valid.sum() == 0:
        return keypoint_logits.sum() * 0
    logits = keypoint_logits.view(n * k, h * w)
    return F.cross_entropy(logits[valid], targets[valid])


def smooth_l1_box_loss(pred_deltas, target_deltas, beta=1.0 / 9):
    return F.smooth_l1_loss(pred_deltas, target_deltas, beta=beta, reduction="sum") / max(1, pred_deltas.size(0))


def encode_boxes(gt, proposals, weights=(10.0, 10.0, 5.0, 5.0)):
    pw, ph = proposals[:, 2] - proposals[:, 0], proposals[:, 3] - proposals[:, 1]
    px, py = proposals[:, 0] + 0.5 * pw, proposals[:, 1] + 0.5 * ph
    gw, gh = gt[:, 2] - gt[:, 0], gt[:, 3] - gt[:, 1]
    gx, gy = gt[:, 0] + 0.5 * gw, gt[:, 1] + 0.5 * gh
    wx, wy, ww, wh = weights
    return torch.stack([wx * (gx - px) / pw, wy * (gy - py) / ph,
                        ww * torch.log(gw / pw), wh * torch.log(gh / ph)], dim=1)
