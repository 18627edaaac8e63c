import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, vocab_size, opt):
        super().__init__()
        self.encoder = nn.Embedding(vocab_size, opt.emb_size)
        self.emb_dropout = nn.Dropout(opt.dropout)
        self.rnn = nn.LSTM(opt.emb_size, opt.rnn_size, opt.num_layers, dropout=opt.dropout,
                           batch_first=True)
        self.out_dropout = nn.Dropout(opt.dropout)
        self.decoder = nn.Linear(opt.rnn_size, vocab_size)
        self.opt = opt

    def forward(self, input, hidden=None):
        emb = self.emb_dropout(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(self.out_dropout(output)), hidden

    def init_hidden(self, batch_size, device):
        shape = (self.opt.num_layers, batch_size, self.opt.rnn_size)
        return (torch.zeros(shape, device=device), torch.zeros(shape, device=device))

    @classmethod
    def from_checkpoint(cls, path, opt, device):
        ckpt = torch.load(path, map_location=device)
        model = cls(len(ckpt["vocab"]), ckpt.get("opt", opt))
        model.load_state_dict(ckpt["model"])
        return model.to(device), ckpt["vocab"]
