import argparse
import math
import time

import torch
import torch.nn as nn
from torch import optim
from torchtext.data.metrics import bleu_score

from data import get_dataloader, indexes_from_sentence, prepare_data, split_pairs
from model import EOS_token, AttnDecoderRNN, EncoderRNN, Seq2Seq

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def as_minutes(s):
    m = math.floor(s / 60)
    return "%dm %ds" % (m, s - m * 60)


def train_epoch(dataloader, model, optimizer, criterion):
    model.train()
    total_loss = 0
    for input_tensor, target_tensor in dataloader:
        optimizer.zero_grad()
        decoder_outputs, _, _ = model(input_tensor, target_tensor)
        loss = criterion(decoder_outputs.view(-1, decoder_outputs.size(-1)), target_tensor.view(-1))
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / len(dataloader)


@torch.no_grad()
def translate(model, sentence, input_lang, output_lang):
    model.eval()
    input_tensor = torch.tensor(indexes_from_sentence(input_lang, sentence) + [EOS_token], dtype=torch.long,
                                device=device).view(1, -1)
    decoder_outputs, _, attentions = model(input_tensor)
    decoded_ids = decoder_outputs.argmax(-1).squeeze(0).tolist()
    words = []
    for idx in decoded_ids:
        if idx == EOS_token:
            break
        words.append(output_lang.index2word[idx])
    return words, attentions


def evaluate_bleu(model, pairs, input_lang, output_lang):
    candidates, references = [], []
    for src, tgt in pairs:
        words, _ = translate(model, src, input_lang, output_lang)
        candidates.append(words)
        references.append([tgt.split(" ")])
    return bleu_score(candidates, references)


def main():
    parser = argparse.ArgumentParser(description="fra->eng seq2seq with Bahdanau attention")
    parser.add_argument("--data", default="data/eng-fra.txt")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--dropout", type=float, default=0.1)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=80)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--print-every", type=int, default=5)
    parser.add_argument("--save", default="seq2seq_attn.pt")
    args = parser.parse_args()

    input_lang, output_lang, pairs = prepare_data(args.data)
    train_pairs, test_pairs = split_pairs(pairs)
    train_dl = get_dataloader(input_lang, output_lang, train_pairs, args.batch_size, device)
    model = Seq2Seq(EncoderRNN(input_lang.n_words, args.hidden, args.dropout),
                    AttnDecoderRNN(args.hidden, output_lang.n_words, args.dropout)).to(device)
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.NLLLoss()

    start = time.time()
    for epoch in range(1, args.epochs + 1):
        loss = train_epoch(train_dl, model, optimizer, criterion)
        if epoch % args.print_every == 0:
            bleu = evaluate_bleu(model, test_pairs[:500], input_lang, output_lang)
            print(f"{as_minutes(time.time() - start)} epoch {epoch} loss {loss:.4f} bleu {bleu:.4f}")
    torch.save({"model": model.state_dict(), "hidden": args.hidden}, args.save)
    for src, tgt in test_pairs[:5]:
        words, _ = translate(model, src, input_lang, output_lang)
        print(">", src, "\n=", tgt, "\n<", " ".join(words), "\n")


if __name__ == "__main__":
    main()
