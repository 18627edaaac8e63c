#!/usr/bin/env python
# coding: utf-8

# # TSN evaluation: 25 segments x 10 crops

# In[1]:


import argparse
import time

import numpy as np
import torch
import torch.nn.parallel
import torchvision
from sklearn.metrics import confusion_matrix

from dataset import GroupOverSample, GroupToNormalizedTensor, TSNDataSet
from models import TSN


# In[2]:


parser = argparse.ArgumentParser(description="Standard video-level testing")
parser.add_argument("dataset", type=str, choices=["ucf101", "hmdb51", "kinetics"])
parser.add_argument("modality", type=str, choices=["RGB", "Flow"])
parser.add_argument("test_list", type=str)
parser.add_argument("weights", type=str)
parser.add_argument("--arch", type=str, default="resnet50")
parser.add_argument("--save_scores", type=str, default=None)
parser.add_argument("--test_segments", type=int, default=25)
parser.add_argument("--test_crops", type=int, default=10)
parser.add_argument("--dropout", type=float, default=0.7)
parser.add_argument("-j", "--workers", default=4, type=int)
parser.add_argument("--gpus", nargs="+", type=int, default=None)
args = parser.parse_args()
num_class = {"ucf101": 101, "hmdb51": 51, "kinetics": 400}[args.dataset]


# In[3]:


net = TSN(num_class, 1, args.modality, base_model=args.arch, consensus_type="avg", dropout=args.dropout)
checkpoint = torch.load(args.weights, map_location="cpu")
print("model epoch {} best prec@1: {}".format(checkpoint["epoch"], checkpoint["best_prec1"]))
base_dict = {".".join(k.split(".")[1:]): v for k, v in checkpoint["state_dict"].items()}
net.load_state_dict(base_dict)

cropping = GroupOverSample(net.input_size, int(net.input_size * 256 / 224))
data_loader = torch.utils.data.DataLoader(
    TSNDataSet("", args.test_list, num_segments=args.test_segments,
               new_length=1 if args.modality == "RGB" else 5, modality=args.modality,
               image_tmpl="img_{:05d}.jpg" if args.modality == "RGB" else "flow_{}_{:05d}.jpg",
               test_mode=True,
               transform=torchvision.transforms.Compose([
                   cropping, GroupToNormalizedTensor(net.input_mean, net.input_std)])),
    batch_size=1, shuffle=False, num_workers=args.workers * 2, pin_memory=True)


# In[4]:


devices = args.gpus if args.gpus is not None else list(range(torch.cuda.device_count()))
net = torch.nn.DataParallel(net.cuda(devices[0]), device_ids=devices)

data_gen = enumerate(data_loader)
total_num = len(data_loader.dataset)
output = []


def eval_video(video_data):
    i, data, label = video_data
    num_crop = args.test_crops
    length = 3 if args.modality == "RGB" else 10
    with torch.no_grad():
        input_var = data.view(-1, length, data.size(2), data.size(3)).cuda(devices[0])
        rst = net(input_var).cpu().numpy().copy()
    return i, rst.reshape((num_crop, args.test_segments, num_class)).mean(axis=0).reshape(
        (args.test_segments, 1, num_class)), label[0]


# In[5]:


proc_start_time = time.time()
for i, (data, label) in data_gen:
    rst = eval_video((i, data, label))
    output.append(rst[1:])
    cnt_time = time.time() - proc_start_time
    if i % 50 == 0:
        print("video {} done, total {}/{}, average {:.3f} sec/video".format(i, i + 1, total_num,
                                                                           float(cnt_time) / (i + 1)))

video_pred = [np.argmax(np.mean(x[0], axis=0)) for x in output]
video_labels = [x[1] for x in output]
cf = confusion_matrix(video_labels, video_pred).astype(float)
cls_cnt = cf.sum(axis=1)
cls_hit = np.diag(cf)
cls_acc = cls_hit / np.maximum(cls_cnt, 1)
print("Accuracy {:.02f}%".format(np.mean(cls_acc) * 100))


# In[6]:


if args.save_scores is not None:
    name_list = [x.strip().split()[0] for x in open(args.test_list)]
    order_dict = {e: i for i, e in enumerate(sorted(name_list))}
    reorder_output = [None] * len(output)
    reorder_label = [None] * len(output)
    for i in range(len(output)):
        idx = order_dict[name_list[i]]
        reorder_output[idx] = output[i]
        reorder_label[idx] = video_labels[i]
    np.savez(args.save_scores, scores=reorder_output, labels=reorder_label)
