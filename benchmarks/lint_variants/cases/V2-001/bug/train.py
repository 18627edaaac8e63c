import torch
import torch.nn as nn
import torch.optim as optim

from data import get_loaders
from model import ConvNet

device = "cuda" if torch.cuda.is_available() else "cpu"
EPOCHS = 30

train_loader, test_loader = get_loaders()
net = ConvNet().to(device)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)

for epoch in range(EPOCHS):
    net.train()
    epoch_loss = 0.0
    correct = 0
    seen = 0
    for inputs, targets in train_loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()

        epoch_loss += loss
        correct += outputs.argmax(1).eq(targets).sum().item()
        seen += targets.size(0)
    scheduler.step()

    net.eval()
    test_correct = 0
    with torch.no_grad():
        for inputs, targets in test_loader:
            inputs, targets = inputs.to(device), targets.to(device)
            test_correct += net(inputs).argmax(1).eq(targets).sum().item()

    print("epoch %d | loss %.4f | train acc %.2f | test acc %.2f" % (
        epoch, epoch_loss / len(train_loader), 100.0 * correct / seen,
        100.0 * test_correct / len(test_loader.dataset)))

torch.save(net.state_dict(), "convnet_cifar10.pth")
