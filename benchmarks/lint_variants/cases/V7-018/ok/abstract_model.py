import copy
import logging
from abc import abstractmethod
from typing import List, Optional, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from tab_network import TabNet

logger = logging.getLogger(__name__)


class TabModel:
    def __init__(self, n_d=8, n_a=8, n_steps=3, gamma=1.3, lambda_sparse=1e-3, cat_idxs=(), cat_dims=(),
                 cat_emb_dim=1, optimizer_params=None, scheduler_params=None, device_name="auto", seed=0,
                 verbose=1):
        self.n_d, self.n_a, self.n_steps, self.gamma = n_d, n_a, n_steps, gamma
        self.lambda_sparse = lambda_sparse
        self.cat_idxs, self.cat_dims, self.cat_emb_dim = list(cat_idxs), list(cat_dims), cat_emb_dim
        self.optimizer_params = optimizer_params or {"lr": 2e-2}
        self.scheduler_params = scheduler_params or {"step_size": 10, "gamma": 0.9}
        self.device = torch.device("cuda" if device_name == "auto" and torch.cuda.is_available() else "cpu")
        self.seed = seed
        self.verbose = verbose
        self.history: List[dict] = []

    @abstractmethod
    def compute_loss(self, y_pred, y_true):
        ...

    @abstractmethod
    def prepare_target(self, y):
        ...

    @abstractmethod
    def output_dim(self, y_train) -> int:
        ...

    def _network(self, input_dim, output_dim, virtual_batch_size):
        torch.manual_seed(self.seed)
        self.network = TabNet(input_dim, output_dim, self.n_d, self.n_a, self.n_steps, self.gamma, self.cat_idxs,
                              self.cat_dims, self.cat_emb_dim, virtual_batch_size).to(self.device)

    def _loader(self, X, y=None, batch_size=1024, shuffle=False, drop_last=False):
        tensors = [torch.from_numpy(X).float()]
        if y is not None:
            tensors.append(torch.from_numpy(np.asarray(y)))
        return DataLoader(TensorDataset(*tensors), batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)

    def _train_epoch(self, loader):
        self.network.train()
        losses = []
        for X, y in loader:
            X, y = X.to(self.device), y.to(self.device)
            output, m_loss = self.network(X)
            loss = self.compute_loss(output, y) - self.lambda_sparse * m_loss
            self._optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.network.parameters(), 1.0)
            self._optimizer.step()
            losses.append(loss.item())
        return float(np.mean(losses))

    @torch.no_grad()
    def _eval_loss(self, loader):
        self.network.eval()
        total, n = 0.0, 0
        for X, y in loader:
            X, y = X.to(self.device), y.to(self.device)
            output, _ = self.network(X)
            total += self.compute_loss(output, y).item() * X.shape[0]
            n += X.shape[0]
        return total / max(n, 1)

    @torch.no_grad()
    def _predict_raw(self, X, batch_size=4096) -> np.ndarray:
        self.network.eval()
        outs = []
        for (xb,) in self._loader(X, batch_size=batch_size):
            outs.append(self.network(xb.to(self.device))[0].cpu())
        return torch.cat(outs).numpy()

    def fit(self, X_train, y_train, eval_set: Optional[Tuple[np.ndarray, np.ndarray]] = None, max_epochs=100,
            patience=10, batch_size=1024, virtual_batch_size=128, eval_metric=None):
        self._network(X_train.shape[1], self.output_dim(y_train), virtual_batch_size)
        self._optimizer = torch.optim.Adam(self.network.parameters(), **self.optimizer_params)
        scheduler = torch.optim.lr_scheduler.StepLR(self._optimizer, **self.scheduler_params)
        loader = self._loader(X_train, self.prepare_target(y_train), batch_size, shuffle=True, drop_last=True)
        valid_loader = None
        if eval_set is not None:
            valid_loader = self._loader(eval_set[0], self.prepare_target(eval_set[1]), batch_size)
        best, best_state, wait = -np.inf, None, 0
        for epoch in range(max_epochs):
            loss = self._train_epoch(loader)
            scheduler.step()
            record = {"epoch": epoch, "loss": loss}
            if valid_loader is not None:
                record["valid_loss"] = self._eval_loss(valid_loader)
                score = (eval_metric(eval_set[1], self.predict_proba(eval_set[0])) if eval_metric is not None
                         else -record["valid_loss"])
                record["valid"] = score
                if score > best:
                    best, best_state, wait = score, copy.deepcopy(self.network.state_dict()), 0
                else:
                    wait += 1
            self.history.append(record)
            if self.verbose and epoch % self.verbose == 0:
                logger.info(" | ".join(f"{k}: {v:.5f}" if isinstance(v, float) else f"{k}: {v}"
                                       for k, v in record.items()))
            if wait >= patience:
                logger.info("early stopping at epoch %d, best valid %.5f", epoch, best)
                break
        if best_state is not None:
            self.network.load_state_dict(best_state)
        return self
