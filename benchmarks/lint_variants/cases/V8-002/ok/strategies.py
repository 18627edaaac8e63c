import logging

import torch

from buffer import ReservoirBuffer

logger = logging.getLogger(__name__)


class BaseStrategy:
    def __init__(self, model, optimizer, criterion, device, epochs=5, eval_every=1):
        self.model = model
        self.optimizer = optimizer
        self.criterion = criterion
        self.device = device
        self.epochs = epochs
        self.eval_every = eval_every
        self.exp_id = 0
        self.history = []

    def before_training_exp(self, exp_id):
        self.exp_id = exp_id

    def after_training_exp(self, train_loader):
        pass

    def make_batch(self, x, y):
        return x, y

    def observe(self, x, y):
        pass

    def train_exp(self, exp_id, train_loader, eval_loaders):
        self.before_training_exp(exp_id)
        self.model.train()
        for epoch in range(self.epochs):
            total, n = 0.0, 0
            for x, y in train_loader:
                x, y = x.to(self.device), y.to(self.device)
                self.observe(x, y)
                bx, by = self.make_batch(x, y)
                self.optimizer.zero_grad()
                loss = self.criterion(self.model(bx), by)
                loss.backward()
                self.optimizer.step()
                total += loss.item() * by.size(0)
                n += by.size(0)
            logger.info("exp %d epoch %d loss %.4f", exp_id, epoch, total / max(n, 1))
            if (epoch + 1) % self.eval_every == 0:
                accs = self.eval_stream(eval_loaders[: exp_id + 1])
                logger.info("exp %d epoch %d seen-task acc %s", exp_id, epoch, ["%.2f" % a for a in accs])
                self.model.train()
        self.after_training_exp(train_loader)

    @torch.no_grad()
    def eval_stream(self, loaders):
        self.model.eval()
        accs = []
        for loader in loaders:
            correct, count = 0, 0
            for x, y in loader:
                x, y = x.to(self.device), y.to(self.device)
                correct += (self.model(x).argmax(dim=1) == y).sum().item()
                count += y.numel()
            accs.append(100.0 * correct / max(count, 1))
        self.history.append(accs)
        return accs


class Naive(BaseStrategy):
    pass


class ExperienceReplay(BaseStrategy):
    def __init__(self, *args, mem_size=2000, replay_batch=32, input_shape=(1, 28, 28), **kwargs):
        super().__init__(*args, **kwargs)
        self.buffer = ReservoirBuffer(mem_size, input_shape, device=self.device)
        self.replay_batch = replay_batch

    def observe(self, x, y):
        self.buffer.add(x, y, self.exp_id)

    def make_batch(self, x, y):
        if self.exp_id == 0 or len(self.buffer) == 0:
            return x, y
        mx, my = self.buffer.sample(self.replay_batch)
        return torch.cat([x, mx]), torch.cat([y, my])

    def after_training_exp(self, train_loader):
        logger.info("buffer composition: %s", self.buffer.per_task_counts())


STRATEGIES = {"naive": Naive, "er": ExperienceReplay}
