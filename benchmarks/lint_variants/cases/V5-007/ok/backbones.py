import torch.nn as nn
import torchvision


def resnet18_cifar():
    net = torchvision.models.resnet18(num_classes=10)
    net.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    net.maxpool = nn.Identity()
    net.fc = nn.Identity()
    return net


def load_pretrained(ckpt_path):
    import torch
    net = resnet18_cifar()
    state = torch.load(ckpt_path, map_location="cpu")["state_dict"]
    state = {k.replace("backbone.", ""): v for k, v in state.items() if k.startswith("backbone.")}
    net.load_state_dict(state, strict=False)
    return net
