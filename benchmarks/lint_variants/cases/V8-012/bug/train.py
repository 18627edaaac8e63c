import argparse
import json
import logging
import os

import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.transforms import functional as TF

from model import KeypointRCNNLite

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("kprcnn")


class PersonKeypoints(Dataset):
    """Images plus a JSON list of {file, boxes: [[x1,y1,x2,y2]...], keypoints: [[[x,y,v]*17]...], proposals}."""

    def __init__(self, root, ann_file):
        self.root = root
        with open(ann_file) as f:
            self.anns = json.load(f)

    def __len__(self):
        return len(self.anns)

    def __getitem__(self, idx):
        a = self.anns[idx]
        img = TF.normalize(TF.to_tensor(Image.open(os.path.join(self.root, a["file"])).convert("RGB")),
                           [0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        target = {"boxes": torch.tensor(a["boxes"], dtype=torch.float32),
                  "keypoints": torch.tensor(a["keypoints"], dtype=torch.float32)}
        return img, torch.tensor(a["proposals"], dtype=torch.float32), target


def collate(batch):
    imgs, props, targets = zip(*batch)
    rois = torch.cat([torch.cat([torch.full((p.size(0), 1), float(i)), p], dim=1) for i, p in enumerate(props)])
    return torch.stack(imgs), rois, list(targets)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="data/coco/train2017")
    ap.add_argument("--ann", default="data/coco/person_keypoints_train_props.json")
    ap.add_argument("--epochs", type=int, default=26)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--out", default="work_dirs/kprcnn_lite")
    args = ap.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(PersonKeypoints(args.root, args.ann), batch_size=args.batch_size, shuffle=True,
                        num_workers=4, collate_fn=collate)
    model = KeypointRCNNLite().to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=0.9, weight_decay=1e-4)
    lr_sched = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[16, 22], gamma=0.1)
    os.makedirs(args.out, exist_ok=True)
    for epoch in range(args.epochs):
        model.train()
        for it, (imgs, rois, targets) in enumerate(loader):
            imgs, rois = imgs.to(device), rois.to(device)
            targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
            loss_dict = model(imgs, rois, targets)
            loss = sum(loss_dict.values())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if it % 20 == 0:
                log.info("epoch %d iter %d %s", epoch, it, {k: round(float(v), 4) for k, v in loss_dict.items()})
        lr_sched.step()
        torch.save({"model": model.state_dict(), "epoch": epoch}, os.path.join(args.out, f"model_{epoch}.pth"))


if __name__ == "__main__":
    main()
