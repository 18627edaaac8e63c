import argparse
import json
import logging
import os

import cv2
import numpy as np
import torch
import yaml

from inference import box_to_center_scale, flip_back, get_affine_transform, get_final_preds
from pose_resnet import get_pose_net

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger("pose-infer")
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)


def parse_args():
    parser = argparse.ArgumentParser(description="Run SimpleBaseline pose estimation on person detections")
    parser.add_argument("--cfg", required=True, help="experiment yaml (model/test sections)")
    parser.add_argument("--weights", required=True)
    parser.add_argument("--image-dir", required=True)
    parser.add_argument("--detections", required=True, help="COCO-style person detection results json")
    parser.add_argument("--out", default="output/keypoints_results.json")
    parser.add_argument("--flip-test", action="store_true")
    parser.add_argument("--batch-size", type=int, default=32)
    return parser.parse_args()


def crop(image, box, size):
    center, scale = box_to_center_scale(box, size[0] / size[1])
    trans = get_affine_transform(center, scale, size)
    patch = cv2.warpAffine(image, trans, size, flags=cv2.INTER_LINEAR)
    patch = (cv2.cvtColor(patch, cv2.COLOR_BGR2RGB).astype(np.float32) / 255.0 - MEAN) / STD
    return patch.transpose(2, 0, 1), center, scale


def main():
    args = parse_args()
    with open(args.cfg) as f:
        cfg = yaml.safe_load(f)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = get_pose_net(cfg["model"])
    state = torch.load(args.weights, map_location="cpu")
    model.load_state_dict(state.get("state_dict", state))
    model = model.to(device)
    size = tuple(cfg["model"].get("image_size", [192, 256]))

    with open(args.detections) as f:
        dets = [d for d in json.load(f) if d["category_id"] == 1 and d["score"] > 0.5]
    results = []
    for start in range(0, len(dets), args.batch_size):
        chunk = dets[start:start + args.batch_size]
        patches, centers, scales = [], [], []
        for d in chunk:
            image = cv2.imread(os.path.join(args.image_dir, f"{d['image_id']:012d}.jpg"))
            p, c, s = crop(image, d["bbox"], size)
            patches.append(p)
            centers.append(c)
            scales.append(s)
        inputs = torch.from_numpy(np.stack(patches)).to(device)
        with torch.no_grad():
            heatmaps = model(inputs).cpu().numpy()
            if args.flip_test:
                flipped = model(torch.flip(inputs, dims=[3])).cpu().numpy()
                heatmaps = 0.5 * (heatmaps + flip_back(flipped))
        coords, maxvals = get_final_preds(heatmaps, centers, scales)
        for d, kp, conf in zip(chunk, coords, maxvals):
            keypoints = np.concatenate([kp, conf], axis=1).reshape(-1).tolist()
            results.append({"image_id": d["image_id"], "category_id": 1, "keypoints": keypoints,
                            "score": float(d["score"] * conf.mean())})
        logger.info("processed %d / %d detections", min(start + args.batch_size, len(dets)), len(dets))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
