"""PyTorch tutorial "NLP From Scratch: Translation with a Sequence to Sequence Network" (Sutskever et al. 2014): EncoderRNN (Embedding, Dropout 0.1, GRU) and DecoderRNN (Embedding, ReLU, GRU, Linear, log_softmax) stepped one token at a time from SOS with teacher forcing on the target tensor, NLLLoss over all steps, Adam lr 0.001; task: reverse a digit string."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

SOS_token, EOS_token = 0, 1
DIGITS = 10
VOCAB = DIGITS + 2
SRC_LEN = 6
MAX_LENGTH = SRC_LEN + 1  # the reversed digits, then EOS
HIDDEN = 48
COUNT = 64


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super().__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, input):
        embedded = self.dropout(self.embedding(input))
        output, hidden = self.gru(embedded)
        return output, hidden


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, encoder_outputs, encoder_hidden, target_tensor=None):
        batch_size = encoder_outputs.size(0)
        decoder_input = torch.empty(batch_size, 1, dtype=torch.long, device=encoder_outputs.device).fill_(SOS_token)
        decoder_hidden = encoder_hidden
        decoder_outputs = []
        for i in range(MAX_LENGTH):
            decoder_output, decoder_hidden = self.forward_step(decoder_input, decoder_hidden)
            decoder_outputs.append(decoder_output)
            if target_tensor is not None:
                # Teacher forcing: Feed the target as the next input
                decoder_input = target_tensor[:, i].unsqueeze(1)
            else:
                # Without teacher forcing: use its own predictions as the next input
                _, topi = decoder_output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        decoder_outputs = torch.cat(decoder_outputs, dim=1)
        decoder_outputs = F.log_softmax(decoder_outputs, dim=-1)
        return decoder_outputs, decoder_hidden, None

    def forward_step(self, input, hidden):
        output = self.embedding(input)
        output = F.relu(output)
        output, hidden = self.gru(output, hidden)
        output = self.out(output)
        return output, hidden


class Seq2Seq(nn.Module):
    """The tutorial's encoder and decoder in one module; forward(src, target) returns (B, MAX_LENGTH, VOCAB) log-probs."""

    def __init__(self):
        super().__init__()
        self.encoder = EncoderRNN(VOCAB, HIDDEN)
        self.decoder = DecoderRNN(HIDDEN, VOCAB)

    def forward(self, input_tensor, target_tensor=None):
        encoder_outputs, encoder_hidden = self.encoder(input_tensor)
        decoder_outputs, _, _ = self.decoder(encoder_outputs, encoder_hidden, target_tensor)
        return decoder_outputs


criterion = nn.NLLLoss()


def seq_nll(decoder_outputs, target_tensor):
    return criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))


def make_pairs(gen: torch.Generator, count: int = COUNT):
    digits = torch.randint(0, DIGITS, (count, SRC_LEN), generator=gen) + 2
    src = torch.cat([digits, torch.full((count, 1), EOS_token)], dim=1)
    tgt = torch.cat([digits.flip(1), torch.full((count, 1), EOS_token)], dim=1)
    return src, tgt


def debug_spec(seed: int = 0, optimizer: bool = True) -> dict:
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    src, tgt = make_pairs(gen)
    spec = {
        "model": Seq2Seq(),
        "batch": ((src, tgt), tgt),  # the target tensor is also the decoder's teacher-forcing input
        "loss_fn": seq_nll,
        "task": "custom",
    }
    if optimizer:
        spec["optimizer"] = lambda params: torch.optim.Adam(params, lr=0.001)
    return spec
