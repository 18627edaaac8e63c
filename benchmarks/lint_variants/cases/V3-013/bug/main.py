import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from engine import Accuracy, create_evaluator, create_trainer


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(64 * 7 * 7, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def run(train_batch_size=64, val_batch_size=1000, epochs=10, lr=0.01, momentum=0.5):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = DataLoader(datasets.MNIST("data", train=True, download=True, transform=tf),
                              batch_size=train_batch_size, shuffle=True)
    val_loader = DataLoader(datasets.MNIST("data", train=False, transform=tf),
                            batch_size=val_batch_size)
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    trainer = create_trainer(model, optimizer, nn.CrossEntropyLoss(), device)
    evaluator = create_evaluator(model, {"accuracy": Accuracy()}, device)

    @trainer.on("iteration_completed")
    def log_training_loss(engine):
        if engine.state.iteration % 100 == 0:
            print(f"Epoch[{engine.state.epoch}] Iter[{engine.state.iteration}] Loss: {engine.state.output:.3f}")

    @trainer.on("epoch_completed")
    def log_validation_results(engine):
        evaluator.run(val_loader)
        print(f"Validation Results - Epoch: {engine.state.epoch} "
              f"Avg accuracy: {evaluator.state.metrics['accuracy']:.3f}")

    trainer.run(train_loader, max_epochs=epochs)


if __name__ == "__main__":
    run()
