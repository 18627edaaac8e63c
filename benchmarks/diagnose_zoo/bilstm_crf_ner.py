"""PyTorch advanced tutorial "Advanced: Making Dynamic Decisions and the Bi-LSTM CRF" (Lample et al. 2016): Embedding, BiLSTM with a random initial hidden state per forward (init_hidden uses randn), hidden2tag emissions over tags incl. START/STOP, transitions nn.Parameter (to START / from STOP at -10000), loss = forward-algorithm log-partition minus gold path score, batched and summed over sentences (the tutorial steps once per sentence; pytorch-crf's default reduction='sum'); SGD lr 0.01 weight_decay 1e-4."""

from __future__ import annotations

import torch
from torch import nn

START_TAG, STOP_TAG = "<START>", "<STOP>"
TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC", START_TAG, STOP_TAG]
tag_to_ix = {t: i for i, t in enumerate(TAGS)}
# vocabulary: 0-11 plain words, 12-19 names, 20-27 places, 28-31 ambiguous (a name or a place),
# 32 "mr" (precedes a person), 33 "in" (precedes a place)
VOCAB = 34
MR, IN = 32, 33
SEQ_LEN = 12
COUNT = 32
EMBEDDING_DIM, HIDDEN_DIM = 16, 32


class BiLSTM_CRF(nn.Module):
    def __init__(self, vocab_size, tag_to_ix, embedding_dim, hidden_dim):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.hidden_dim = hidden_dim
        self.vocab_size = vocab_size
        self.tag_to_ix = tag_to_ix
        self.tagset_size = len(tag_to_ix)
        self.word_embeds = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim // 2, num_layers=1, bidirectional=True, batch_first=True)
        # Maps the output of the LSTM into tag space.
        self.hidden2tag = nn.Linear(hidden_dim, self.tagset_size)
        # Matrix of transition parameters.  Entry i,j is the score of transitioning *to* i *from* j.
        self.transitions = nn.Parameter(torch.randn(self.tagset_size, self.tagset_size))
        # These two statements enforce the constraint that we never transfer
        # to the start tag and we never transfer from the stop tag
        self.transitions.data[tag_to_ix[START_TAG], :] = -10000
        self.transitions.data[:, tag_to_ix[STOP_TAG]] = -10000

    def init_hidden(self, batch_size):
        return (torch.randn(2, batch_size, self.hidden_dim // 2), torch.randn(2, batch_size, self.hidden_dim // 2))

    def _get_lstm_features(self, sentence):
        self.hidden = self.init_hidden(sentence.size(0))
        embeds = self.word_embeds(sentence)
        lstm_out, self.hidden = self.lstm(embeds, self.hidden)
        return self.hidden2tag(lstm_out)

    def forward(self, sentence):
        """Returns (emission scores (B, T, K), transitions (K, K)): the CRF loss and Viterbi need both."""
        return self._get_lstm_features(sentence), self.transitions


def crf_forward_alg(feats, transitions):
    """log Z per sentence: the tutorial's _forward_alg, vectorised over the batch and the next tag."""
    start, stop = tag_to_ix[START_TAG], tag_to_ix[STOP_TAG]
    b, t, k = feats.shape
    forward_var = torch.full((b, k), -10000.0, device=feats.device)
    forward_var[:, start] = 0.0
    for i in range(t):
        # next_tag_var[b, next, prev] = forward_var[b, prev] + trans[next, prev] + emit[b, i, next]
        next_tag_var = forward_var.unsqueeze(1) + transitions.unsqueeze(0) + feats[:, i].unsqueeze(2)
        forward_var = torch.logsumexp(next_tag_var, dim=2)
    terminal_var = forward_var + transitions[stop].unsqueeze(0)
    return torch.logsumexp(terminal_var, dim=1)


def crf_score_sentence(feats, tags, transitions):
    """Gold path score: the tutorial's _score_sentence, batched."""
    start, stop = tag_to_ix[START_TAG], tag_to_ix[STOP_TAG]
    b, t, _ = feats.shape
    tags_with_start = torch.cat([torch.full((b, 1), start, dtype=torch.long, device=tags.device), tags], dim=1)
    emit = feats.gather(2, tags.unsqueeze(2)).squeeze(2).sum(1)
    trans = transitions[tags_with_start[:, 1:], tags_with_start[:, :-1]].sum(1)
    return emit + trans + transitions[stop, tags[:, -1]]


def neg_log_likelihood(outputs, tags):
    """Summed over the sentences of the batch, like the tutorial's per-sentence updates."""
    feats, transitions = outputs
    forward_score = crf_forward_alg(feats, transitions)
    gold_score = crf_score_sentence(feats, tags, transitions)
    return (forward_score - gold_score).sum()


def viterbi_decode(feats, transitions):
    start, stop = tag_to_ix[START_TAG], tag_to_ix[STOP_TAG]
    b, t, k = feats.shape
    forward_var = torch.full((b, k), -10000.0)
    forward_var[:, start] = 0
    backpointers = []
    for i in range(t):
        next_tag_var = forward_var.unsqueeze(1) + transitions.unsqueeze(0)
        best, idx = next_tag_var.max(dim=2)
        backpointers.append(idx)
        forward_var = best + feats[:, i]
    terminal_var = forward_var + transitions[stop].unsqueeze(0)
    best_tag = terminal_var.argmax(1)
    path = [best_tag]
    for bptrs in reversed(backpointers[1:]):
        best_tag = bptrs.gather(1, best_tag.unsqueeze(1)).squeeze(1)
        path.append(best_tag)
    return torch.stack(path[::-1], dim=1)


def make_sentences(gen: torch.Generator, count: int = COUNT):
    words = torch.zeros(count, SEQ_LEN, dtype=torch.long)
    tags = torch.zeros(count, SEQ_LEN, dtype=torch.long)
    for n in range(count):
        i = 0
        while i < SEQ_LEN:
            u = float(torch.rand(1, generator=gen))
            if u < 0.25 and i < SEQ_LEN - 2:  # an entity span after a trigger word or after a plain word
                kind = int(torch.randint(0, 2, (1,), generator=gen))  # 0 PER, 1 LOC
                length = int(torch.randint(1, 3, (1,), generator=gen))
                trigger = float(torch.rand(1, generator=gen)) < 0.7
                words[n, i] = (MR if kind == 0 else IN) if trigger else int(torch.randint(0, 12, (1,), generator=gen))
                i += 1
                for j in range(length):
                    if i >= SEQ_LEN:
                        break
                    ambiguous = trigger and float(torch.rand(1, generator=gen)) < 0.4
                    if ambiguous:
                        words[n, i] = 28 + int(torch.randint(0, 4, (1,), generator=gen))
                    else:
                        words[n, i] = (12 if kind == 0 else 20) + int(torch.randint(0, 8, (1,), generator=gen))
                    tags[n, i] = tag_to_ix[("B-" if j == 0 else "I-") + ("PER" if kind == 0 else "LOC")]
                    i += 1
            else:
                words[n, i] = int(torch.randint(0, 12, (1,), generator=gen))
                i += 1
    return words, tags


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    words, tags = make_sentences(gen)
    spec = {
        "model": BiLSTM_CRF(VOCAB, tag_to_ix, EMBEDDING_DIM, HIDDEN_DIM),
        "batch": (words, tags),
        "loss_fn": neg_log_likelihood,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.SGD(params, lr=0.01, weight_decay=1e-4)
    return spec
