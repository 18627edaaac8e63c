import torch
import torch.nn as nn
from dgl.data import GINDataset
from torch.utils.data import DataLoader, Subset

from engine import Events, create_evaluator, create_trainer
from gin import GIN, collate

dataset = GINDataset("MUTAG", self_loop=True)
perm = torch.randperm(len(dataset)).tolist()
split = int(0.9 * len(dataset))
train_loader = DataLoader(Subset(dataset, perm[:split]), batch_size=32, shuffle=True, collate_fn=collate)
val_loader = DataLoader(Subset(dataset, perm[split:]), batch_size=32, collate_fn=collate)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = GIN(dataset.dim_nfeats, 64, dataset.gclasses).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
trainer = create_trainer(model, optimizer, nn.CrossEntropyLoss(), device)
evaluator = create_evaluator(model, device)


@trainer.on(Events.EPOCH_COMPLETED)
def log_validation(engine):
    evaluator.state.metrics = {}
    evaluator.run(val_loader)
    m = evaluator.state.metrics
    print(f"Epoch {engine.state.epoch}: last loss {engine.state.output:.4f} val acc {m['correct'] / m['total']:.4f}")


trainer.run(train_loader, max_epochs=350)
