"""Claims about what a loss value means, checked by running them (CPU, well under a second).

- A loss far below ln k at step 0 is a measurement bug, not leakage: an untrained model cannot exploit a leak,
  while a divisor that counts ignored positions does read far below ln k (SKILL.md, PLAYBOOK, diagnostics.md,
  the triage tree's leaf-init-low). A leak shows as a loss that collapses within the first steps.
- Every target ignored: plain PyTorch cross-entropy (mean) gives NaN; 0 comes only from code that guards the
  division (SKILL.md, PLAYBOOK, transformers-llm.md).
- Packing documents differently changes the validation loss of the same model on the same documents
  (evidence/folklore.argdown, [Packing changes what validation loss measures]).
"""

from __future__ import annotations

import math
import random
from itertools import pairwise

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

K = 10


def _leaky_data(n: int = 512):
    """Features whose first K columns are the one-hot label: a perfect leak."""
    generator = torch.Generator().manual_seed(0)
    y = torch.randint(0, K, (n,), generator=generator)
    x = torch.cat([F.one_hot(y, K).float(), torch.randn(n, 20, generator=generator)], dim=1)
    return x, y


def test_an_untrained_model_reads_ln_k_even_when_the_label_is_in_the_input():
    x, y = _leaky_data()
    for seed in range(5):
        torch.manual_seed(seed)
        model = torch.nn.Sequential(torch.nn.Linear(x.shape[1], 64), torch.nn.ReLU(), torch.nn.Linear(64, K))
        with torch.no_grad():
            loss = F.cross_entropy(model(x), y).item()
        assert abs(loss - math.log(K)) < 0.25 * math.log(K), (seed, loss)  # diagnostics.md's pass band


def test_the_leak_shows_as_a_collapse_within_the_first_steps():
    x, y = _leaky_data()
    torch.manual_seed(0)
    model = torch.nn.Linear(x.shape[1], K)
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    for _ in range(30):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    assert loss.item() < 0.05 * math.log(K)  # from about 2.3 to below 0.12 in 30 steps


def test_a_divisor_that_counts_ignored_positions_reads_far_below_ln_k_at_init():
    torch.manual_seed(0)
    logits = torch.nn.Linear(16, K)(torch.randn(4, 50, 16))  # (B, T, K), untrained
    labels = torch.randint(0, K, (4, 50))
    labels[:, 5:] = -100  # 90% of the positions carry no label
    per_token = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")  # 0 at ignored positions
    right = per_token.sum() / (labels != -100).sum()
    wrong = per_token.mean()  # divides by every position
    assert abs(right.item() - math.log(K)) < 0.25 * math.log(K)
    assert wrong.item() < 0.5 * math.log(K)  # "below half": the fail band, with no leak anywhere


def test_every_target_ignored_gives_nan_in_plain_pytorch_and_0_only_behind_a_guarded_division():
    logits = torch.randn(3, 7, K, requires_grad=True)
    labels = torch.full((3, 7), -100)
    mean = F.cross_entropy(logits.reshape(-1, K), labels.reshape(-1))
    assert math.isnan(mean.item())
    assert math.isnan(torch.nn.CrossEntropyLoss()(logits.reshape(-1, K), labels.reshape(-1)).item())
    summed = F.cross_entropy(logits.reshape(-1, K), labels.reshape(-1), reduction="sum")
    guarded = summed / (labels != -100).sum().clamp_min(1)  # how trainers that report 0 divide
    assert summed.item() == 0.0 and guarded.item() == 0.0


def _documents(n: int = 200, seed: int = 0) -> list[list[int]]:
    """Documents [BOS, a, a, ..., a]: after the first word, each word repeats the one before."""
    rng = random.Random(seed)
    return [[0] + [rng.randrange(1, 50)] * rng.randrange(3, 40) for _ in range(n)]


def _nll(window: list[int]) -> list[float]:
    """A fixed model: the next token equals the previous one with probability 0.9, else uniform over the
    other 49 tokens. Scores every position after the first; the model sees only its window."""
    out = []
    for previous, token in pairwise(window):
        out.append(-math.log(0.9 if token == previous else 0.1 / 49))
    return out


def test_packing_changes_the_validation_loss_of_the_same_model_on_the_same_documents():
    docs = _documents()
    T = 16
    stream = [token for doc in docs for token in doc]
    packed = [nll for i in range(0, len(stream) - 1, T) for nll in _nll(stream[i:i + T + 1])]  # windows cross docs
    aligned = [nll for doc in docs for nll in _nll(doc[:T + 1])]  # each window starts at BOS, the rest is cropped
    packed_loss, aligned_loss = sum(packed) / len(packed), sum(aligned) / len(aligned)
    # packing scores the BOS tokens and the first word of a document seen after another document's words;
    # BOS alignment scores no BOS, and crops the long documents' easy repeats: about 0.68 against 0.57 nats
    assert abs(packed_loss - aligned_loss) > 0.1, (packed_loss, aligned_loss)
