import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T

from vit import create_model

EPOCHS, BATCH, LR, WARMUP = 200, 128, 1e-3, 5
device = "cuda" if torch.cuda.is_available() else "cpu"

normalize = T.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.AutoAugment(T.AutoAugmentPolicy.CIFAR10),
                      T.ToTensor(), normalize])
trainset = torchvision.datasets.CIFAR10("./data", train=True, download=True, transform=train_tf)
testset = torchvision.datasets.CIFAR10("./data", train=False, download=True, transform=T.Compose([T.ToTensor(), normalize]))
trainloader = torch.utils.data.DataLoader(trainset, batch_size=BATCH, shuffle=True, num_workers=8)
testloader = torch.utils.data.DataLoader(testset, batch_size=500, shuffle=False, num_workers=8)

model = create_model("vit_tiny_cifar", num_classes=10).to(device)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=5e-2)
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=WARMUP)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS - WARMUP)
scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[WARMUP])

best_acc = 0
for epoch in range(EPOCHS):
    model.train()
    train_loss = 0
    for inputs, targets in trainloader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        loss = criterion(model(inputs), targets)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    scheduler.step()

    model.eval()
    correct = 0
    with torch.no_grad():
        for inputs, targets in testloader:
            inputs, targets = inputs.to(device), targets.to(device)
            correct += model(inputs).argmax(1).eq(targets).sum().item()
    acc = 100.0 * correct / len(testset)
    print(f"Epoch {epoch}: loss {train_loss / len(trainloader):.3f} test acc {acc:.2f}")
    if acc > best_acc:
        best_acc = acc
        torch.save(model.state_dict(), "checkpoint/vit_tiny_cifar.pth")
