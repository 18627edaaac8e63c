import logging

import torch

logger = logging.getLogger(__name__)


class FP32Optimizer:
    def __init__(self, params, lr, betas=(0.9, 0.98), weight_decay=0.0):
        self._optimizer = torch.optim.Adam(params, lr=lr, betas=betas, weight_decay=weight_decay)

    def backward(self, loss):
        loss.backward()

    def clip_grad_norm(self, max_norm, params):
        return torch.nn.utils.clip_grad_norm_(params, max_norm)

    def multiply_grads(self, c):
        for group in self._optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.data.mul_(c)

    def step(self):
        self._optimizer.step()

    def zero_grad(self):
        self._optimizer.zero_grad()

    @property
    def param_groups(self):
        return self._optimizer.param_groups


class Trainer:
    def __init__(self, args, task, model, criterion):
        self.args = args
        self.task = task
        self.model = model.cuda()
        self.criterion = criterion
        self.optimizer = FP32Optimizer(
            [p for p in self.model.parameters() if p.requires_grad],
            lr=args.lr, weight_decay=args.weight_decay)
        self._num_updates = 0

    def get_num_updates(self):
        return self._num_updates

    def train_step(self, samples):
        """Do forward, backward and parameter update over a list of samples (update_freq)."""
        self.model.train()
        self.criterion.task = self.task
        self.optimizer.zero_grad()

        logging_outputs, sample_size = [], 0
        for sample in samples:
            sample = {k: (v.cuda() if torch.is_tensor(v) else
                          {kk: vv.cuda() for kk, vv in v.items()} if isinstance(v, dict) else v)
                      for k, v in sample.items()}
            _, ss, log = self.task.train_step(sample, self.model, self.criterion, self.optimizer,
                                              self._num_updates)
            logging_outputs.append(log)
            sample_size += ss

        self.optimizer.multiply_grads(1.0 / float(sample_size))
        grad_norm = self.optimizer.clip_grad_norm(self.args.clip_norm, self.model.parameters())
        self.optimizer.step()
        self._num_updates += 1

        stats = self.criterion.reduce_metrics(logging_outputs)
        stats["gnorm"] = float(grad_norm)
        return stats

    def valid_step(self, sample):
        _, _, log = self.task.valid_step(sample, self.model, self.criterion)
        return log
