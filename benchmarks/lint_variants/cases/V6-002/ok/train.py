import argparse
import json

import torch
import torch.nn.functional as F

import data_loaders as module_data
import model as module_arch
import metric as module_metric
from trainer import Trainer


def main(config):
    data_loader = getattr(module_data, config["data_loader"]["type"])(**config["data_loader"]["args"])
    valid_data_loader = data_loader.split_validation()
    model = getattr(module_arch, config["arch"]["type"])(**config["arch"]["args"])
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    metrics = [getattr(module_metric, met) for met in config["metrics"]]
    trainable_params = filter(lambda p: p.requires_grad, model.parameters())
    optimizer = torch.optim.Adam(trainable_params, **config["optimizer"]["args"])
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, **config["lr_scheduler"]["args"])
    trainer = Trainer(model, F.nll_loss, metrics, optimizer, config=config, device=device,
                      data_loader=data_loader, valid_data_loader=valid_data_loader,
                      lr_scheduler=lr_scheduler)
    trainer.train()


if __name__ == "__main__":
    args = argparse.ArgumentParser(description="PyTorch Template")
    args.add_argument("-c", "--config", default="config.json", type=str)
    opts = args.parse_args()
    with open(opts.config) as f:
        main(json.load(f))
