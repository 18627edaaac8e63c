from collections import defaultdict
from enum import Enum

import torch


class Events(Enum):
    STARTED = "started"
    EPOCH_COMPLETED = "epoch_completed"
    ITERATION_COMPLETED = "iteration_completed"
    COMPLETED = "completed"


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

    def on(self, event, *args, **kwargs):
        def decorator(fn):
            self.handlers[event].append((fn, args, kwargs))
            return fn
        return decorator

    def fire(self, event):
        for fn, args, kwargs in self.handlers[event]:
            fn(self, *args, **kwargs)

    def run(self, data, max_epochs=1):
        self.state = State()
        self.fire(Events.STARTED)
        for _ in range(max_epochs):
            self.state.epoch += 1
            for batch in data:
                self.state.iteration += 1
                self.state.output = self.process_fn(self, batch)
                self.fire(Events.ITERATION_COMPLETED)
            self.fire(Events.EPOCH_COMPLETED)
        self.fire(Events.COMPLETED)
        return self.state


def create_trainer(model, optimizer, loss_fn, device):
    def _update(engine, batch):
        model.train()
        x, y = (t.to(device) for t in batch)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()
    return Engine(_update)


def create_evaluator(model, metrics, device):
    def _inference(engine, batch):
        with torch.no_grad():
            x, y = (t.to(device) for t in batch)
            return model(x), y

    evaluator = Engine(_inference)

    @evaluator.on(Events.STARTED)
    def _reset(engine):
        for m in metrics.values():
            m.reset()

    @evaluator.on(Events.ITERATION_COMPLETED)
    def _update(engine):
        for m in metrics.values():
            m.update(engine.state.output)

    @evaluator.on(Events.COMPLETED)
    def _compute(engine):
        engine.state.metrics = {name: m.compute() for name, m in metrics.items()}

    return evaluator
