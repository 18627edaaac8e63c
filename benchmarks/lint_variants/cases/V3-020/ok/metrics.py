import torch


def rgb_to_y(img):
    weight = torch.tensor([65.481, 128.553, 24.966], device=img.device).view(1, 3, 1, 1)
    return (img * weight).sum(dim=1, keepdim=True) + 16.0


def calculate_psnr(sr, gt, crop_border=0, test_y_channel=True):
    if crop_border:
        sr = sr[..., crop_border:-crop_border, crop_border:-crop_border]
        gt = gt[..., crop_border:-crop_border, crop_border:-crop_border]
    if test_y_channel:
        sr, gt = rgb_to_y(sr), rgb_to_y(gt)
    else:
        sr, gt = sr * 255.0, gt * 255.0
    mse = torch.mean((sr - gt) ** 2, dim=(1, 2, 3))
    return (10.0 * torch.log10(255.0 ** 2 / (mse + 1e-10))).mean().item()
