from collections import defaultdict

import torch


class Engine:
    def __init__(self, process_function):
        self._process_function = process_function
        self._handlers = defaultdict(list)
        self.state = None

    def on(self, event, *args):
        def decorator(fn):
            self._handlers[event].append((fn, args))
            return fn
        return decorator

    def _fire(self, event):
        for fn, args in self._handlers[event]:
            fn(self, *args)

    def run(self, data, max_epochs=1):
        self.state = type("State", (), {"epoch": 0, "iteration": 0, "output": None, "metrics": {}})()
        self._fire("started")
        for epoch in range(max_epochs):
            self.state.epoch = epoch + 1
            self._fire("epoch_started")
            for batch in data:
                self.state.iteration += 1
                self.state.output = self._process_function(self, batch)
                self._fire("iteration_completed")
            self._fire("epoch_completed")
        self._fire("completed")
        return self.state


def create_trainer(model, optimizer, loss_fn, device):
    def _update(engine, batch):
        model.train()
        x, y = (t.to(device, non_blocking=True) for t in batch)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()
    return Engine(_update)


def create_evaluator(model, metrics, device):
    def _inference(engine, batch):
        with torch.no_grad():
            x, y = (t.to(device, non_blocking=True) for t in batch)
            return model(x), y

    evaluator = Engine(_inference)
    for name, metric in metrics.items():
        metric.attach(evaluator, name)
    return evaluator


class Accuracy:
    def attach(self, engine, name):
        @engine.on("epoch_started")
        def _reset(e):
            self._correct, self._n = 0, 0

        @engine.on("iteration_completed")
        def _update(e):
            y_pred, y = e.state.output
            self._correct += (y_pred.argmax(1) == y).sum().item()
            self._n += y.numel()

        @engine.on("epoch_completed")
        def _compute(e):
            e.state.metrics[name] = self._correct / max(self._n, 1)
