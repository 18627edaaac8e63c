import os

import torch
import torch.nn as nn
from ray import train, tune
from ray.tune.schedulers import ASHAScheduler
from torch.utils.data import DataLoader, random_split
from torchvision import datasets, transforms

from net import ConvNet


def load_data(data_dir):
    tf = transforms.Compose([transforms.ToTensor(),
                             transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
    trainset = datasets.CIFAR10(data_dir, train=True, download=True, transform=tf)
    testset = datasets.CIFAR10(data_dir, train=False, download=True, transform=tf)
    return trainset, testset


def test_accuracy(net, loader, device):
    correct = total = 0
    loss_sum = 0.0
    criterion = nn.CrossEntropyLoss(reduction="sum")
    net.eval()
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            outputs = net(images)
            loss_sum += criterion(outputs, labels).item()
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.size(0)
    return loss_sum / total, correct / total


def train_cifar(config, data_dir=None):
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    net = ConvNet(config["l1"], config["l2"], config["dropout"]).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=config["lr"], momentum=0.9)
    trainset, _ = load_data(data_dir)
    n_train = int(len(trainset) * 0.8)
    train_subset, val_subset = random_split(trainset, [n_train, len(trainset) - n_train])
    trainloader = DataLoader(train_subset, batch_size=int(config["batch_size"]), shuffle=True, num_workers=4)
    valloader = DataLoader(val_subset, batch_size=int(config["batch_size"]), num_workers=4)

    for epoch in range(10):
        net.train()
        for inputs, labels in trainloader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = criterion(net(inputs), labels)
            loss.backward()
            optimizer.step()
        val_loss, val_acc = test_accuracy(net, valloader, device)
        train.report({"loss": val_loss, "accuracy": val_acc})


def main(num_samples=20, max_num_epochs=10):
    data_dir = os.path.abspath("./data")
    load_data(data_dir)
    config = {
        "l1": tune.choice([64, 128, 256]),
        "l2": tune.choice([32, 64, 128]),
        "dropout": tune.uniform(0.0, 0.5),
        "lr": tune.loguniform(1e-4, 1e-1),
        "batch_size": tune.choice([32, 64, 128]),
    }
    scheduler = ASHAScheduler(metric="loss", mode="min", max_t=max_num_epochs, grace_period=1)
    tuner = tune.Tuner(
        tune.with_resources(tune.with_parameters(train_cifar, data_dir=data_dir), {"cpu": 4, "gpu": 1}),
        tune_config=tune.TuneConfig(scheduler=scheduler, num_samples=num_samples),
        param_space=config,
    )
    results = tuner.fit()
    best = results.get_best_result("loss", "min")
    print("Best trial config:", best.config)
    print("Best trial final validation accuracy:", best.metrics["accuracy"])


if __name__ == "__main__":
    main()
