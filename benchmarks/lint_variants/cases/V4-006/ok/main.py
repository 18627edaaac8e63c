import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader

from torchkeras import Model


def accuracy(preds, labels):
    return (preds.argmax(dim=1) == labels).float().mean()


def build_net():
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, kernel_size=3), nn.ReLU(), nn.MaxPool2d(2),
        nn.Dropout2d(0.1), nn.AdaptiveMaxPool2d((1, 1)), nn.Flatten(),
        nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10),
    )


if __name__ == "__main__":
    transform = T.Compose([T.ToTensor()])
    ds_train = torchvision.datasets.MNIST("./data", train=True, download=True, transform=transform)
    ds_valid = torchvision.datasets.MNIST("./data", train=False, download=True, transform=transform)
    dl_train = DataLoader(ds_train, batch_size=128, shuffle=True, num_workers=4)
    dl_valid = DataLoader(ds_valid, batch_size=128, shuffle=False, num_workers=4)

    model = Model(build_net())
    model.compile(loss_func=nn.CrossEntropyLoss(),
                  optimizer=torch.optim.Adam(model.parameters(), lr=0.01),
                  metrics_dict={"acc": accuracy})
    history = model.fit(dl_train, epochs=5, val_data=dl_valid, log_step_freq=100)
    torch.save(model.net.state_dict(), "mnist_cnn.pt")
