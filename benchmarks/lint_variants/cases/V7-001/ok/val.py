import argparse
import json
import logging
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from models.yolo import Model
from utils.general import ap_per_class, box_iou, create_dataloader, non_max_suppression, xywh2xyxy

LOGGER = logging.getLogger("val")


def process_batch(detections, labels, iouv):
    correct = np.zeros((detections.shape[0], iouv.shape[0])).astype(bool)
    iou = box_iou(labels[:, 1:], detections[:, :4])
    correct_class = labels[:, 0:1] == detections[:, 5]
    for i in range(len(iouv)):
        x = torch.where((iou >= iouv[i]) & correct_class)
        if x[0].shape[0]:
            matches = torch.cat((torch.stack(x, 1), iou[x[0], x[1]][:, None]), 1).cpu().numpy()
            if x[0].shape[0] > 1:
                matches = matches[matches[:, 2].argsort()[::-1]]
                matches = matches[np.unique(matches[:, 1], return_index=True)[1]]
                matches = matches[np.unique(matches[:, 0], return_index=True)[1]]
            correct[matches[:, 1].astype(int), i] = True
    return torch.tensor(correct, dtype=torch.bool, device=iouv.device)


@torch.no_grad()
def run(
    data,
    weights=None,
    batch_size=32,
    imgsz=640,
    conf_thres=0.001,
    iou_thres=0.6,
    device="",
    model=None,
    dataloader=None,
    half=True,
    save_json=False,
):
    training = model is not None
    if training:
        device = next(model.parameters()).device
        half &= device.type != "cpu"
    else:
        device = torch.device(device or ("cuda:0" if torch.cuda.is_available() else "cpu"))
        ckpt = torch.load(weights, map_location="cpu")
        model = Model(nc=ckpt["nc"]).to(device)
        model.load_state_dict(ckpt["model"])
        half &= device.type != "cpu"
        dataloader = create_dataloader(data["val"], imgsz, batch_size, augment=False, shuffle=False)[0]
    model.half() if half else model.float()
    model.eval()

    nc = model.nc
    iouv = torch.linspace(0.5, 0.95, 10, device=device)
    stats, jdict = [], []
    pbar = tqdm(dataloader, desc=f"{'Class':>22}{'Images':>11}{'P':>11}{'R':>11}{'mAP50':>11}")
    for im, targets, paths, shapes in pbar:
        im = im.to(device, non_blocking=True)
        targets = targets.to(device)
        im = im.half() if half else im.float()
        im /= 255
        nb, _, height, width = im.shape
        preds, _ = model(im)
        targets[:, 2:] *= torch.tensor((width, height, width, height), device=device)
        preds = non_max_suppression(preds, conf_thres, iou_thres, max_det=300)

        for si, pred in enumerate(preds):
            labels = targets[targets[:, 0] == si, 1:]
            nl, npr = labels.shape[0], pred.shape[0]
            correct = torch.zeros(npr, len(iouv), dtype=torch.bool, device=device)
            if npr == 0:
                if nl:
                    stats.append((correct, *torch.zeros((2, 0), device=device), labels[:, 0]))
                continue
            if nl:
                tbox = xywh2xyxy(labels[:, 1:5])
                labelsn = torch.cat((labels[:, 0:1], tbox), 1)
                correct = process_batch(pred, labelsn, iouv)
            stats.append((correct, pred[:, 4], pred[:, 5], labels[:, 0]))
            if save_json:
                jdict.append({"image_id": Path(paths[si]).stem, "boxes": pred[:, :4].tolist()})

    stats = [torch.cat(x, 0).cpu().numpy() for x in zip(*stats)]
    mp = mr = map50 = map_ = 0.0
    if len(stats) and stats[0].any():
        p, r, ap = ap_per_class(*stats, nc=nc)
        ap50, ap = ap[:, 0], ap.mean(1)
        mp, mr, map50, map_ = p.mean(), r.mean(), ap50.mean(), ap.mean()
    LOGGER.info(("%22s" + "%11.3g" * 4) % ("all", mp, mr, map50, map_))
    if save_json and not training:
        with open("predictions.json", "w") as f:
            json.dump(jdict, f)
    model.float()
    return mp, mr, map50, map_


def parse_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=str, default="data/coco128.json")
    parser.add_argument("--weights", type=str, default="runs/train/exp/weights/best.pt")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--conf-thres", type=float, default=0.001)
    parser.add_argument("--iou-thres", type=float, default=0.6)
    parser.add_argument("--device", default="")
    parser.add_argument("--half", action="store_true")
    parser.add_argument("--save-json", action="store_true")
    return parser.parse_args()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    opt = parse_opt()
    with open(opt.data) as f:
        data = json.load(f)
    run(data, opt.weights, opt.batch_size, opt.imgsz, opt.conf_thres, opt.iou_thres, opt.device,
        half=opt.half, save_json=opt.save_json)
