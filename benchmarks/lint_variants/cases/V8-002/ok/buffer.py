import random

import torch


class ReservoirBuffer:
    """Fixed-size memory filled by reservoir sampling over the whole stream."""

    def __init__(self, capacity, input_shape, device="cpu", seed=0):
        self.capacity = capacity
        self.device = device
        self.x = torch.zeros((capacity, *input_shape))
        self.y = torch.zeros(capacity, dtype=torch.long)
        self.task = torch.zeros(capacity, dtype=torch.long)
        self.seen = 0
        self.rng = random.Random(seed)

    def __len__(self):
        return min(self.seen, self.capacity)

    def add(self, x, y, task_id):
        for xi, yi in zip(x.cpu(), y.cpu()):
            if self.seen < self.capacity:
                idx = self.seen
            else:
                idx = self.rng.randint(0, self.seen)
            if idx < self.capacity:
                self.x[idx] = xi
                self.y[idx] = yi
                self.task[idx] = task_id
            self.seen += 1

    def sample(self, n):
        n = min(n, len(self))
        idx = torch.tensor(self.rng.sample(range(len(self)), n), dtype=torch.long)
        return self.x[idx].to(self.device), self.y[idx].to(self.device)

    def per_task_counts(self):
        counts = {}
        for t in self.task[: len(self)].tolist():
            counts[t] = counts.get(t, 0) + 1
        return counts

    def state_dict(self):
        return {"x": self.x, "y": self.y, "task": self.task, "seen": self.seen}

    def load_state_dict(self, state):
        self.x, self.y, self.task, self.seen = state["x"], state["y"], state["task"], state["seen"]
