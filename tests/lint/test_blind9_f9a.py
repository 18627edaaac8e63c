"""Blind split 9 (F9a): the families behind its activation, dropout-mode, accumulation, squeeze and
policy-loss misses, in shapes of our own, plus the two clean-file false alarms (MLD040, MLD050). The
squeeze case's mechanism (a named axis of 1 dropped, then a broadcast comparison) is settled on CPU."""
import textwrap

import pytest

from mldebug_mcp.lint.engine import lint_source


def _lines(source: str, code: str) -> list[int]:
    return [f.line for f in lint_source(textwrap.dedent(source), "t.py") if f.code == code]


def test_one_query_squeeze_broadcasts_the_accuracy():
    torch = pytest.importorskip("torch")
    n_way, n_query = 4, 1
    idx = torch.arange(n_way).view(n_way, 1, 1).expand(n_way, n_query, 1)
    y_hat = idx[..., 0].clone()  # perfect predictions, shape (n_way, n_query)
    assert y_hat.eq(idx.squeeze()).float().mean().item() < 1.0  # (4, 1) against (4,): a 4x4 table
    assert y_hat.eq(idx.squeeze(2)).float().mean().item() == 1.0


MULTI_TASK = """
    import torch.nn as nn
    import torch.nn.functional as F

    class Fitter:
        def set_loss(self):
            if self.kind == "reg":
                self.loss = nn.MSELoss()
            elif self.kind == "cls":
                self.loss = nn.CrossEntropyLoss()

        def epoch(self, loader):
            for batch in loader:
                out = self.net(batch)
                out, batch.y = self.post(out, batch.y)
                self.loss(out, batch.y).backward()

        def post(self, out, y):
            if self.kind == "cls":
                out = F.softmax(out, dim=1)
            else:
                out = out.reshape(-1)
            return out, y
"""


def test_loss_and_activation_chosen_by_one_test():
    assert _lines(MULTI_TASK, "MLD001") == [20]
    # on another test (the regression branch) the activation meets the MSE loss: quiet
    assert _lines(MULTI_TASK.replace('if self.kind == "cls":\n                out', 'if self.kind == "reg":\n'
                                     '                out'), "MLD001") == []


def test_constant_training_flag_in_a_module_whose_children_drop():
    source = """
        import torch.nn as nn
        import torch.nn.functional as F

        class Encoder(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.rate = cfg.rate
                self.body = Blocks(cfg.dim, drop_path_rate=cfg.drop_path)

            def forward(self, x):
                return F.dropout(self.body(x), p=self.rate, training=True)
    """
    assert _lines(source, "MLD023") == [12]
    assert _lines(source.replace("drop_path_rate=cfg.drop_path", "depth=2"), "MLD023") == []


def test_accumulation_flag_with_no_sync():
    source = """
        def train(ddp, opt, loader, k):
            step = 0
            for batch in loader:
                loss = ddp(batch).mean() / k
                syncing_later = step % k != 0
                if syncing_later:
                    with ddp.no_sync():
                        loss.backward()
                else:
                    loss.backward()
                    opt.step()
                    opt.zero_grad()
                step += 1
    """
    assert _lines(source, "MLD034") == [6]
    assert _lines(source.replace("step % k", "(step + 1) % k"), "MLD034") == []


def test_baseline_regressed_onto_the_reward():
    source = """
        import torch.nn.functional as F

        def update(agent, opt, batch, reward_of):
            plan, guess, log_p = agent(batch)
            reward = reward_of(batch, plan)
            loss = ((reward - guess) * log_p).mean() + F.mse_loss(guess, reward)
            loss.backward()
    """
    assert _lines(source, "MLD036") == [7]
    assert _lines(source.replace("(reward - guess)", "(reward - guess.detach())"), "MLD036") == []


def test_patch_merge_of_batch_and_channels_is_quiet():
    source = """
        import torch
        import torch.nn as nn

        class Patches(nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = nn.Linear(16, 64)

            def forward(self, x):
                x = self.proj(x)
                return torch.reshape(x, (x.shape[0] * x.shape[1], x.shape[2], x.shape[3]))
    """
    assert _lines(source, "MLD040") == []


def test_episode_dataset_needs_no_shuffle():
    source = """
        import numpy as np
        from torch.utils.data import DataLoader, Dataset

        class Episodes(Dataset):
            def __len__(self):
                return 100

            def __getitem__(self, index):
                return np.random.choice(self.classes, 5, replace=False)

        def train(model, opt):
            train_loader = DataLoader(Episodes(), batch_size=1)
            for episode in train_loader:
                opt.zero_grad()
                model(episode).mean().backward()
                opt.step()
    """
    assert _lines(source, "MLD050") == []
    assert _lines(source.replace("np.random.choice(self.classes, 5, replace=False)", "self.items[index]"),
                  "MLD050") == [13]
