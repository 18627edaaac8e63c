"""allegro/allRank, reproducibility/configs/neuralndcg_web30k/lambdarank_atmax.json (LambdaRank in the LambdaLoss framework, Wang et al. 2018): FCModel (no activation) -> pre-norm Transformer encoder over each query's slate (1 head, padding mask, dropout 0.1, Annotated-Transformer LayerNorm) -> Linear score, xavier init; lambdaLoss with the lambdaRank weighing scheme (|delta NDCG| weights on the pairwise logistic loss of correctly ordered pairs within a query, padded documents y=-1 masked, sigma 1, sum reduction, log2), Adam lr 1e-3."""

from __future__ import annotations

import copy
import math

import torch
import torch.nn.functional as F
from torch import nn

PADDED_Y_VALUE = -1
DEFAULT_EPS = 1e-10
NUM_FEATURES = 16
D_MODEL = 32
D_FF = 64
N_LAYERS = 2
HEADS = 1
DROPOUT = 0.1
QUERIES = 32  # the batch dimension: one slate per query
SLATE_LENGTH = 12
TASK_SEED = 2019_05_14  # fixes the relevance function; the sample seed only draws the queries and documents


# ---------------------------------------------------------------- model (allrank/models/model.py, transformer.py)
def clones(module: nn.Module, n: int) -> nn.ModuleList:
    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class FCModel(nn.Module):
    def __init__(self, sizes, input_norm: bool, activation, dropout: float, n_features: int):
        super().__init__()
        sizes = [n_features] + list(sizes)
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.input_norm = nn.LayerNorm(n_features) if input_norm else nn.Identity()
        self.activation = nn.Identity() if activation is None else activation
        self.dropout = nn.Dropout(dropout or 0.0)
        self.output_size = sizes[-1]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.input_norm(x)
        for layer in self.layers:
            x = self.dropout(self.activation(layer(x)))
        return x


class LayerNorm(nn.Module):
    def __init__(self, features: int, eps: float = 1e-6):
        super().__init__()
        self.a_2 = nn.Parameter(torch.ones(features))
        self.b_2 = nn.Parameter(torch.zeros(features))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.a_2 * (x - mean) / (std + self.eps) + self.b_2


class SublayerConnection(nn.Module):
    """Residual connection around a pre-normalised sublayer."""

    def __init__(self, size: int, dropout: float):
        super().__init__()
        self.norm = LayerNorm(size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(self.norm(x)))


def attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 1, float("-inf"))
    p_attn = F.softmax(scores, dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


class MultiHeadedAttention(nn.Module):
    def __init__(self, h: int, d_model: int, dropout: float = 0.1):
        super().__init__()
        assert d_model % h == 0
        self.d_k = d_model // h
        self.h = h
        self.linears = clones(nn.Linear(d_model, d_model), 4)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)  # same mask for all heads
        nbatches = query.size(0)
        query, key, value = [lin(x).view(nbatches, -1, self.h, self.d_k).transpose(1, 2)
                             for lin, x in zip(self.linears, (query, key, value))]
        x, _ = attention(query, key, value, mask=mask, dropout=self.dropout)
        x = x.transpose(1, 2).contiguous().view(nbatches, -1, self.h * self.d_k)
        return self.linears[-1](x)


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(F.relu(self.w_1(x))))


class EncoderLayer(nn.Module):
    def __init__(self, size: int, self_attn: nn.Module, feed_forward: nn.Module, dropout: float):
        super().__init__()
        self.self_attn = self_attn
        self.feed_forward = feed_forward
        self.sublayer = clones(SublayerConnection(size, dropout), 2)
        self.size = size

    def forward(self, x, mask):
        x = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask))
        return self.sublayer[1](x, self.feed_forward)


class Encoder(nn.Module):
    def __init__(self, layer: EncoderLayer, n: int):
        super().__init__()
        self.layers = clones(layer, n)
        self.norm = LayerNorm(layer.size)

    def forward(self, x, mask):
        mask = mask.unsqueeze(-2)  # [batch, 1, slate]: padded documents are never attended to
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


class OutputLayer(nn.Module):
    def __init__(self, d_model: int, d_output: int = 1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_output)

    def forward(self, x):
        return self.w_1(x).squeeze(dim=2)


class LTRModel(nn.Module):
    """forward(x [Q, L, F], mask [Q, L] True where padded) -> scores [Q, L]."""

    def __init__(self):
        super().__init__()
        self.input_layer = FCModel([D_MODEL], input_norm=False, activation=None, dropout=0.0, n_features=NUM_FEATURES)
        c = copy.deepcopy
        attn = MultiHeadedAttention(HEADS, D_MODEL, DROPOUT)
        ff = PositionwiseFeedForward(D_MODEL, D_FF, DROPOUT)
        self.encoder = Encoder(EncoderLayer(D_MODEL, c(attn), c(ff), DROPOUT), N_LAYERS)
        self.output_layer = OutputLayer(D_MODEL, 1)
        for p in self.parameters():  # Glorot / fan_avg
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.output_layer(self.encoder(self.input_layer(x), mask))


# ---------------------------------------------------------------- loss (allrank/models/losses/lambdaLoss.py)
def lambdaRank_scheme(G, D, *args):
    return torch.abs(torch.pow(D[:, :, None], -1.0) - torch.pow(D[:, None, :], -1.0)) * torch.abs(G[:, :, None] - G[:, None, :])


def lambda_loss(y_pred: torch.Tensor, y_true: torch.Tensor, eps: float = DEFAULT_EPS, padded_value_indicator: int = PADDED_Y_VALUE,
                weighing_scheme=lambdaRank_scheme, k=None, sigma: float = 1.0, mu: float = 10.0,
                reduction: str = "sum", reduction_log: str = "binary") -> torch.Tensor:
    y_pred = y_pred.clone()
    y_true = y_true.clone().to(y_pred.dtype)

    padded_mask = y_true == padded_value_indicator
    y_pred[padded_mask] = float("-inf")
    y_true[padded_mask] = float("-inf")

    # sort the true and predicted relevancies
    y_pred_sorted, indices_pred = y_pred.sort(descending=True, dim=-1)
    y_true_sorted, _ = y_true.sort(descending=True, dim=-1)

    # pairs (i, j) of the predicted order in which i is truly more relevant than j and neither is padded
    true_sorted_by_preds = torch.gather(y_true, dim=1, index=indices_pred)
    true_diffs = true_sorted_by_preds[:, :, None] - true_sorted_by_preds[:, None, :]
    padded_pairs_mask = torch.isfinite(true_diffs) & (true_diffs > 0)

    ndcg_at_k_mask = torch.zeros((y_pred.shape[1], y_pred.shape[1]), dtype=torch.bool, device=y_pred.device)
    ndcg_at_k_mask[:k, :k] = 1

    # gains, discounts and ideal DCGs per slate
    true_sorted_by_preds.clamp_(min=0.0)
    y_true_sorted.clamp_(min=0.0)
    pos_idxs = torch.arange(1, y_pred.shape[1] + 1, device=y_pred.device)
    D = torch.log2(1.0 + pos_idxs.to(y_pred.dtype))[None, :]
    maxDCGs = torch.sum(((torch.pow(2, y_true_sorted) - 1) / D)[:, :k], dim=-1).clamp(min=eps)
    G = (torch.pow(2, true_sorted_by_preds) - 1) / maxDCGs[:, None]

    weights = weighing_scheme(G, D, mu, true_sorted_by_preds)

    scores_diffs = (y_pred_sorted[:, :, None] - y_pred_sorted[:, None, :]).clamp(min=-1e8, max=1e8)
    scores_diffs.masked_fill(torch.isnan(scores_diffs), 0.0)  # not in place: a no-op, kept as in allRank
    weighted_probas = (torch.sigmoid(sigma * scores_diffs).clamp(min=eps) ** weights).clamp(min=eps)
    losses = torch.log2(weighted_probas) if reduction_log == "binary" else torch.log(weighted_probas)

    if reduction == "sum":
        return -torch.sum(losses[padded_pairs_mask & ndcg_at_k_mask])
    return -torch.mean(losses[padded_pairs_mask & ndcg_at_k_mask])


def ranking_loss(y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
    return lambda_loss(y_pred, y_true, weighing_scheme=lambdaRank_scheme, k=None, sigma=1.0, mu=10.0)


# ---------------------------------------------------------------- data: MSLR-like slates with graded labels 0-4
def _relevance_function():
    gen = torch.Generator().manual_seed(TASK_SEED)
    w1 = torch.randn(NUM_FEATURES, generator=gen) / math.sqrt(NUM_FEATURES)
    w2 = torch.randn(NUM_FEATURES, generator=gen) / math.sqrt(NUM_FEATURES)
    return w1, w2


def make_batch(seed: int, count: int = QUERIES):
    """`count` queries of 6-12 documents each, padded to SLATE_LENGTH (features 0, label -1). Each query shifts its
    documents' features; a document's graded relevance depends on its features relative to the query's."""
    gen = torch.Generator().manual_seed(seed)
    w1, w2 = _relevance_function()
    x = torch.zeros(count, SLATE_LENGTH, NUM_FEATURES)
    y = torch.full((count, SLATE_LENGTH), PADDED_Y_VALUE, dtype=torch.long)
    for q in range(count):
        n = int(torch.randint(6, SLATE_LENGTH + 1, (1,), generator=gen))
        query = torch.randn(NUM_FEATURES, generator=gen)
        docs = torch.randn(n, NUM_FEATURES, generator=gen)
        score = docs @ w1 + 0.5 * (docs @ w2) ** 2 + 0.3 * torch.randn(n, generator=gen)
        rel = torch.bucketize(score, torch.tensor([0.3, 1.0, 1.7, 2.4]))  # skewed toward 0, like web30k
        x[q, :n] = docs + query  # the query-level shift makes absolute feature values uninformative alone
        y[q, :n] = rel
    return (x, y == PADDED_Y_VALUE), y


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.Adam(params, lr=1e-3)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    spec = {
        "model": LTRModel(),
        "batch": batch,
        "loss_fn": ranking_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
