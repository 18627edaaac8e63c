import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from engine import Events, create_evaluator, create_trainer
from metrics import Accuracy, Loss


def build_model(num_classes=10):
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(28 * 28, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.3),
        nn.Linear(256, num_classes),
    )


device = "cuda" if torch.cuda.is_available() else "cpu"
tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.2860,), (0.3530,))])
train_loader = DataLoader(datasets.FashionMNIST("data", train=True, download=True, transform=tf),
                          batch_size=128, shuffle=True)
val_loader = DataLoader(datasets.FashionMNIST("data", train=False, download=True, transform=tf),
                        batch_size=512)

model = build_model().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
trainer = create_trainer(model, optimizer, criterion, device)
evaluator = create_evaluator(model, {"accuracy": Accuracy(), "nll": Loss(criterion)}, device)


@trainer.on(Events.ITERATION_COMPLETED)
def log_training_loss(engine):
    if engine.state.iteration % 100 == 0:
        print(f"Epoch[{engine.state.epoch}] Iter[{engine.state.iteration}] Loss: {engine.state.output:.4f}")


@trainer.on(Events.EPOCH_COMPLETED)
def log_validation_results(engine):
    metrics = evaluator.run(val_loader).metrics
    print(f"Validation - Epoch: {engine.state.epoch} Avg accuracy: {metrics['accuracy']:.4f} "
          f"Avg loss: {metrics['nll']:.4f}")


trainer.run(train_loader, max_epochs=20)
torch.save(model.state_dict(), "fashion_mlp.pt")
