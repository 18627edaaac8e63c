"""SeanNaren/deepspeech.pytorch's DeepSpeech2 (MaskConv: Conv2d-BN-Hardtanh(0,20) x2 with per-utterance time masking, bidirectional LSTM BatchRNNs with sequence-wise BatchNorm, summed directions and packed sequences, SequenceWise BN + bias-free Linear, softmax only in eval), log_softmax over (T, N, C) into nn.CTCLoss(blank=0, reduction='sum', zero_infinity=True) with output/target lengths, clip_grad_norm_(400) after backward, AdamW lr 1.5e-4 betas (0.9, 0.999) eps 1e-8 weight_decay 1e-5."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

LABELS = "_abcde"  # '_' is the blank, index 0
NUM_CLASSES = len(LABELS)
FREQ = 16  # spectrogram bins
HIDDEN = 32
HIDDEN_LAYERS = 2
BATCH = 16
MAX_NORM = 400
TASK_SEED = 2015_12595  # fixes the spectral shape of each symbol; the sample seed only draws utterances


class SequenceWise(nn.Module):
    """Collapses T*N*H to (T*N)*H, applies the module, restores T*N*H."""

    def __init__(self, module: nn.Module):
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t, n = x.size(0), x.size(1)
        x = x.view(t * n, -1)
        x = self.module(x)
        return x.view(t, n, -1)


class MaskConv(nn.Module):
    """Zeroes, after every module of the conv stack, the frames past each utterance's length (input B x C x D x T)."""

    def __init__(self, seq_module: nn.Sequential):
        super().__init__()
        self.seq_module = seq_module

    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        for module in self.seq_module:
            x = module(x)
            # the repo fills mask[i].narrow(2, length, T - length) utterance by utterance; same mask, built at once
            frames = torch.arange(x.size(3), device=x.device)
            mask = (frames[None, :] >= lengths.to(x.device)[:, None])[:, None, None, :].expand(x.size())
            x = x.masked_fill(mask, 0)
        return x, lengths


class InferenceBatchSoftmax(nn.Module):
    def forward(self, input_: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return F.softmax(input_, dim=-1)
        return input_


class BatchRNN(nn.Module):
    def __init__(self, input_size: int, hidden_size: int, rnn_type=nn.LSTM, bidirectional: bool = False, batch_norm: bool = True):
        super().__init__()
        self.bidirectional = bidirectional
        self.batch_norm = SequenceWise(nn.BatchNorm1d(input_size)) if batch_norm else None
        self.rnn = rnn_type(input_size=input_size, hidden_size=hidden_size, bidirectional=bidirectional, bias=True)

    def forward(self, x: torch.Tensor, output_lengths: torch.Tensor) -> torch.Tensor:
        if self.batch_norm is not None:
            x = self.batch_norm(x)
        x = nn.utils.rnn.pack_padded_sequence(x, output_lengths)  # lengths sorted longest first, as the loader does
        x, _ = self.rnn(x)
        x, _ = nn.utils.rnn.pad_packed_sequence(x)
        if self.bidirectional:
            x = x.view(x.size(0), x.size(1), 2, -1).sum(2).view(x.size(0), x.size(1), -1)  # (TxNxH*2) -> (TxNxH) by sum
        return x


class DeepSpeech(nn.Module):
    def __init__(self, num_classes: int = NUM_CLASSES, hidden_size: int = HIDDEN, hidden_layers: int = HIDDEN_LAYERS):
        super().__init__()
        self.conv = MaskConv(nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=(5, 5), stride=(2, 2), padding=(2, 2)),
            nn.BatchNorm2d(8),
            nn.Hardtanh(0, 20, inplace=True),
            nn.Conv2d(8, 8, kernel_size=(5, 5), stride=(2, 1), padding=(2, 2)),
            nn.BatchNorm2d(8),
            nn.Hardtanh(0, 20, inplace=True),
        ))
        rnn_input_size = FREQ
        rnn_input_size = (rnn_input_size + 2 * 2 - 5) // 2 + 1
        rnn_input_size = (rnn_input_size + 2 * 2 - 5) // 2 + 1
        rnn_input_size *= 8
        self.rnns = nn.Sequential(
            BatchRNN(rnn_input_size, hidden_size, nn.LSTM, bidirectional=True, batch_norm=False),
            *(BatchRNN(hidden_size, hidden_size, nn.LSTM, bidirectional=True) for _ in range(hidden_layers - 1)),
        )
        fully_connected = nn.Sequential(nn.BatchNorm1d(hidden_size), nn.Linear(hidden_size, num_classes, bias=False))
        self.fc = nn.Sequential(SequenceWise(fully_connected))
        self.inference_softmax = InferenceBatchSoftmax()

    def get_seq_lens(self, input_length: torch.Tensor) -> torch.Tensor:
        seq_len = input_length
        for m in self.conv.modules():
            if type(m) == nn.modules.conv.Conv2d:
                seq_len = (seq_len + 2 * m.padding[1] - m.dilation[1] * (m.kernel_size[1] - 1) - 1) // m.stride[1] + 1
        return seq_len.int()

    def forward(self, x: torch.Tensor, lengths: torch.Tensor):
        lengths = lengths.cpu().int()
        output_lengths = self.get_seq_lens(lengths)
        x, _ = self.conv(x, output_lengths)
        sizes = x.size()
        x = x.view(sizes[0], sizes[1] * sizes[2], sizes[3])  # collapse feature dimension
        x = x.transpose(1, 2).transpose(0, 1).contiguous()  # TxNxH
        for rnn in self.rnns:
            x = rnn(x, output_lengths)
        x = self.fc(x)
        x = x.transpose(0, 1)  # NxTxC
        x = self.inference_softmax(x)  # identity in training mode, softmax in eval mode
        return x, output_lengths


criterion = nn.CTCLoss(blank=LABELS.index("_"), reduction="sum", zero_infinity=True)


def ctc_loss(outputs, targets) -> torch.Tensor:
    out, output_sizes = outputs
    flat_targets, target_sizes = targets
    out = out.transpose(0, 1)  # TxNxC
    out = out.log_softmax(-1)
    return criterion(out, flat_targets, output_sizes, target_sizes)


def _symbol_spectra() -> torch.Tensor:
    """Each symbol: two formant-like bumps at its own frequencies, with its own rising or falling slope."""
    gen = torch.Generator().manual_seed(TASK_SEED)
    f = torch.arange(FREQ, dtype=torch.float32)
    spectra = []
    for _ in range(NUM_CLASSES - 1):
        c1, c2 = torch.randperm(FREQ, generator=gen)[:2].float()
        spectra.append(torch.exp(-0.5 * ((f - c1) / 1.2) ** 2) + 0.8 * torch.exp(-0.5 * ((f - c2) / 1.5) ** 2))
    return torch.stack(spectra)


def make_batch(seed: int, count: int = BATCH):
    """Utterances of 2-4 symbols (4-7 frames each, 1-2 near-silent frames around each), log-spectrogram-like, normalised per
    utterance, zero-padded, sorted longest first; targets concatenated with their lengths, as the loader collates."""
    gen = torch.Generator().manual_seed(seed)
    spectra = _symbol_spectra()
    utterances, transcripts = [], []
    for _ in range(count):
        n = int(torch.randint(2, 5, (1,), generator=gen))
        symbols, prev = [], -1
        while len(symbols) < n:
            s = int(torch.randint(1, NUM_CLASSES, (1,), generator=gen))
            if s != prev:
                symbols.append(s)
                prev = s
        frames = [0.1 * torch.rand(FREQ, int(torch.randint(1, 3, (1,), generator=gen)), generator=gen)]
        for s in symbols:
            d = int(torch.randint(4, 8, (1,), generator=gen))
            env = torch.linspace(0.6, 1.0, d) if torch.rand(1, generator=gen) < 0.5 else torch.linspace(1.0, 0.6, d)
            frames.append(spectra[s - 1][:, None] * env[None, :])
            frames.append(0.1 * torch.rand(FREQ, int(torch.randint(1, 3, (1,), generator=gen)), generator=gen))
        spect = torch.log1p(4 * torch.cat(frames, dim=1))
        spect = spect + 0.15 * torch.randn(spect.shape, generator=gen)
        spect = (spect - spect.mean()) / spect.std()
        utterances.append(spect)
        transcripts.append(torch.tensor(symbols))
    order = sorted(range(count), key=lambda i: -utterances[i].size(1))
    utterances = [utterances[i] for i in order]
    transcripts = [transcripts[i] for i in order]
    max_t = utterances[0].size(1)
    inputs = torch.zeros(count, 1, FREQ, max_t)
    for i, u in enumerate(utterances):
        inputs[i, 0, :, : u.size(1)] = u
    input_sizes = torch.tensor([u.size(1) for u in utterances], dtype=torch.int32)
    targets = torch.cat(transcripts).int()
    target_sizes = torch.tensor([len(t) for t in transcripts], dtype=torch.int32)
    return (inputs, input_sizes), (targets, target_sizes)


def train_step(model: nn.Module, batch, optimizer: torch.optim.Optimizer) -> torch.Tensor:
    """Lightning's automatic optimisation of training_step plus on_after_backward's gradient clipping."""
    (inputs, input_sizes), targets = batch
    optimizer.zero_grad()
    loss = ctc_loss(model(inputs, input_sizes), targets)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters=model.parameters(), max_norm=MAX_NORM)
    optimizer.step()
    return loss


def make_optimizer(params) -> torch.optim.Optimizer:
    return torch.optim.AdamW(params, lr=1.5e-4, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-5)


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    batch = make_batch(seed)
    torch.manual_seed(seed)
    spec = {
        "model": DeepSpeech(),
        "batch": batch,
        "loss_fn": ctc_loss,
        "task": "custom",
        "train_step": train_step,
    }
    if optimizer:
        spec["optimizer"] = make_optimizer
    return spec
