from collections import defaultdict

import torch


class Events:
    ITERATION_COMPLETED = "iteration_completed"
    EPOCH_COMPLETED = "epoch_completed"


class State:
    def __init__(self):
        self.epoch = 0
        self.iteration = 0
        self.output = None
        self.metrics = {}


class Engine:
    def __init__(self, process_fn):
        self.process_fn = process_fn
        self.handlers = defaultdict(list)
        self.state = State()

    def on(self, event):
        def decorator(fn):
            self.handlers[event].append(fn)
            return fn
        return decorator

    def fire(self, event):
        for fn in self.handlers[event]:
            fn(self)

    def run(self, loader, max_epochs=1):
        for _ in range(max_epochs):
            self.state.epoch += 1
            for batch in loader:
                self.state.iteration += 1
                self.state.output = self.process_fn(self, batch)
                self.fire(Events.ITERATION_COMPLETED)
            self.fire(Events.EPOCH_COMPLETED)
        return self.state


def create_trainer(model, optimizer, loss_fn, device):
    model.train()

    def _update(engine, batch):
        graphs, labels = batch
        graphs, labels = graphs.to(device), labels.to(device)
        logits = model(graphs, graphs.ndata["attr"].float())
        loss = loss_fn(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    return Engine(_update)


def create_evaluator(model, device):
    def _infer(engine, batch):
        model.eval()
        graphs, labels = batch
        graphs, labels = graphs.to(device), labels.to(device)
        with torch.no_grad():
            pred = model(graphs, graphs.ndata["attr"].float()).argmax(1)
        engine.state.metrics.setdefault("correct", 0)
        engine.state.metrics.setdefault("total", 0)
        engine.state.metrics["correct"] += (pred == labels).sum().item()
        engine.state.metrics["total"] += labels.numel()

    return Engine(_infer)
