import torch
import torch.nn as nn

HEADS = {}


def register_head(name):
    def wrap(cls):
        HEADS[name] = cls
        return cls
    return wrap


@register_head("softmax")
class SoftmaxDecoder(nn.Module):
    uses_crf = False

    def __init__(self, in_dim, num_tags):
        super().__init__()
        self.hidden2tag = nn.Linear(in_dim, num_tags)

    def forward(self, features):
        return self.hidden2tag(features)

    def decode(self, scores, mask):
        best = scores.argmax(-1)
        return [row[: int(m.sum())].tolist() for row, m in zip(best, mask)]


@register_head("crf")
class CRFDecoder(nn.Module):
    uses_crf = True

    def __init__(self, in_dim, num_tags):
        super().__init__()
        self.hidden2tag = nn.Linear(in_dim, num_tags)
        self.transitions = nn.Parameter(torch.empty(num_tags, num_tags).uniform_(-0.1, 0.1))
        self.start = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))
        self.end = nn.Parameter(torch.empty(num_tags).uniform_(-0.1, 0.1))

    def forward(self, features):
        return self.hidden2tag(features)

    def neg_log_likelihood(self, emissions, tags, mask):
        mask = mask.bool()
        b, t, _ = emissions.shape
        score = self.start[tags[:, 0]] + emissions[:, 0].gather(1, tags[:, :1]).squeeze(1)
        alpha = self.start + emissions[:, 0]
        for i in range(1, t):
            m = mask[:, i]
            trans = self.transitions[tags[:, i - 1], tags[:, i]]
            emit = emissions[:, i].gather(1, tags[:, i:i + 1]).squeeze(1)
            score = score + (trans + emit) * m
            nxt = torch.logsumexp(alpha.unsqueeze(2) + self.transitions + emissions[:, i].unsqueeze(1), dim=1)
            alpha = torch.where(m.unsqueeze(1), nxt, alpha)
        last = tags.gather(1, (mask.sum(1) - 1).unsqueeze(1)).squeeze(1)
        score = score + self.end[last]
        log_z = torch.logsumexp(alpha + self.end, dim=1)
        return (log_z - score).mean()

    def decode(self, emissions, mask):
        mask = mask.bool()
        score = self.start + emissions[:, 0]
        history = []
        for i in range(1, emissions.size(1)):
            nxt, idx = (score.unsqueeze(2) + self.transitions + emissions[:, i].unsqueeze(1)).max(dim=1)
            score = torch.where(mask[:, i].unsqueeze(1), nxt, score)
            history.append(idx)
        score = score + self.end
        paths = []
        for b in range(emissions.size(0)):
            length = int(mask[b].sum())
            best = [int(score[b].argmax())]
            for idx in reversed(history[: length - 1]):
                best.append(int(idx[b, best[-1]]))
            paths.append(best[::-1])
        return paths
