"""Adoni/word2vec_pytorch SkipGramModel (Mikolov et al. 2013): u (centre) and v (context) embedding tables, u uniform(+-1/dim), v zeros, score clamp +-10, loss mean(-logsigmoid(u.v) - sum_k logsigmoid(-u.v_neg)), 5 negatives per pair drawn inside forward from unigram^0.75; Adam lr 0.001 (dense stand-in for its SparseAdam)."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

TOPICS, WORDS_PER_TOPIC, FUNCTION_WORDS = 6, 10, 4
VOCAB = TOPICS * WORDS_PER_TOPIC + FUNCTION_WORDS
DIM = 32
NEG = 5
WINDOW = 2
PAIRS = 128
SENT_LEN = 8


class SkipGramModel(nn.Module):
    def __init__(self, emb_size, emb_dimension, noise_dist, negatives=NEG):
        super().__init__()
        self.emb_size, self.emb_dimension, self.negatives = emb_size, emb_dimension, negatives
        self.u_embeddings = nn.Embedding(emb_size, emb_dimension)
        self.v_embeddings = nn.Embedding(emb_size, emb_dimension)
        self.register_buffer("noise_dist", noise_dist)
        initrange = 1.0 / self.emb_dimension
        nn.init.uniform_(self.u_embeddings.weight.data, -initrange, initrange)
        nn.init.constant_(self.v_embeddings.weight.data, 0)

    def forward(self, pos_u, pos_v):
        """Returns the per-pair loss terms (positive, negatives summed), shape (B,); negatives are sampled here."""
        neg_v = torch.multinomial(self.noise_dist, pos_u.numel() * self.negatives, replacement=True).view(-1, self.negatives)
        emb_u = self.u_embeddings(pos_u)
        emb_v = self.v_embeddings(pos_v)
        emb_neg_v = self.v_embeddings(neg_v)
        score = torch.sum(torch.mul(emb_u, emb_v), dim=1)
        score = torch.clamp(score, max=10, min=-10)
        score = -F.logsigmoid(score)
        neg_score = torch.bmm(emb_neg_v, emb_u.unsqueeze(2)).squeeze(2)
        neg_score = torch.clamp(neg_score, max=10, min=-10)
        neg_score = -torch.sum(F.logsigmoid(-neg_score), dim=1)
        return score + neg_score


def sgns_loss(per_pair, _targets=None):
    return torch.mean(per_pair)


def make_corpus(gen: torch.Generator, sentences: int = 40):
    """Each sentence draws its content words from one topic, with shared function words sprinkled in."""
    rows = []
    for _ in range(sentences):
        topic = int(torch.randint(0, TOPICS, (1,), generator=gen))
        words = topic * WORDS_PER_TOPIC + torch.randint(0, WORDS_PER_TOPIC, (SENT_LEN,), generator=gen)
        func = torch.rand(SENT_LEN, generator=gen) < 0.25
        words[func] = TOPICS * WORDS_PER_TOPIC + torch.randint(0, FUNCTION_WORDS, (int(func.sum()),), generator=gen)
        rows.append(words)
    return torch.stack(rows)


def skipgram_pairs(corpus: torch.Tensor, gen: torch.Generator, count: int = PAIRS):
    centres, contexts = [], []
    for sent in corpus:
        for i in range(len(sent)):
            for j in range(max(0, i - WINDOW), min(len(sent), i + WINDOW + 1)):
                if j != i:
                    centres.append(int(sent[i]))
                    contexts.append(int(sent[j]))
    idx = torch.randperm(len(centres), generator=gen)[:count]
    return torch.tensor(centres)[idx], torch.tensor(contexts)[idx]


def unigram_noise(corpus: torch.Tensor) -> torch.Tensor:
    counts = torch.bincount(corpus.flatten(), minlength=VOCAB).float()
    p = counts.clamp_min(1) ** 0.75
    return p / p.sum()


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    corpus = make_corpus(gen)
    centre, context = skipgram_pairs(corpus, gen)
    spec = {
        "model": SkipGramModel(VOCAB, DIM, unigram_noise(corpus)),
        "batch": ((centre, context), None),
        "loss_fn": sgns_loss,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.Adam(params, lr=0.001)
    return spec
