import sys

import torch

import opts
from models import CharRNN


def sample(model, vocab, opt, device):
    ivocab = {i: c for c, i in vocab.items()}
    hidden = model.init_hidden(1, device)
    prime = [vocab.get(c, 0) for c in opt.primetext]
    generated = list(opt.primetext)
    with torch.no_grad():
        inp = torch.tensor([prime], device=device)
        logits, hidden = model(inp, hidden)
        for _ in range(opt.length):
            probs = torch.softmax(logits[:, -1] / opt.temperature, dim=-1)
            next_id = torch.multinomial(probs, 1)
            generated.append(ivocab[next_id.item()])
            logits, hidden = model(next_id, hidden)
    return "".join(generated)


def main():
    opt = opts.parse_sample_opts()
    torch.manual_seed(opt.seed)
    device = torch.device(f"cuda:{opt.gpuid}" if opt.gpuid >= 0 and torch.cuda.is_available() else "cpu")
    model, vocab = CharRNN.from_checkpoint(opt.checkpoint, opt, device)
    text = sample(model, vocab, opt, device)
    sys.stdout.write(text + "\n")


if __name__ == "__main__":
    main()
