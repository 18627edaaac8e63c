import argparse
import logging

import torch
import torchvision.transforms as transforms
from nltk.translate.bleu_score import corpus_bleu
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from datasets import CaptionDataset, load_word_map
from models import DecoderWithAttention, Encoder
from utils import AverageMeter, accuracy, adjust_learning_rate, clip_gradient, save_checkpoint

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("caption")
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train_epoch(loader, encoder, decoder, criterion, dec_opt, args):
    decoder.train()
    encoder.train()
    losses, top5 = AverageMeter(), AverageMeter()
    for i, (imgs, caps, caplens) in enumerate(loader):
        imgs, caps, caplens = imgs.to(device), caps.to(device), caplens.to(device)
        scores, caps_sorted, decode_lengths, alphas, _ = decoder(encoder(imgs), caps, caplens)
        targets = caps_sorted[:, 1:]
        scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
        targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data
        loss = criterion(scores, targets) + args.alpha_c * ((1.0 - alphas.sum(dim=1)) ** 2).mean()
        dec_opt.zero_grad()
        loss.backward()
        clip_gradient(dec_opt, args.grad_clip)
        dec_opt.step()
        losses.update(loss.item(), sum(decode_lengths))
        top5.update(accuracy(scores, targets, 5), sum(decode_lengths))
        if i % 100 == 0:
            log.info("[%d/%d] loss %.4f top5 %.3f", i, len(loader), losses.avg, top5.avg)


@torch.no_grad()
def validate(loader, encoder, decoder, word_map):
    decoder.eval()
    encoder.eval()
    references, hypotheses = [], []
    skip = {word_map["<start>"], word_map["<pad>"]}
    for imgs, caps, caplens, allcaps in loader:
        imgs, caps, caplens = imgs.to(device), caps.to(device), caplens.to(device)
        scores, _, decode_lengths, _, sort_ind = decoder(encoder(imgs), caps, caplens)
        allcaps = allcaps[sort_ind.cpu()]
        for j in range(allcaps.shape[0]):
            references.append([[w for w in c if w not in skip] for c in allcaps[j].tolist()])
        preds = torch.max(scores, dim=2)[1].tolist()
        hypotheses.extend(p[: decode_lengths[j]] for j, p in enumerate(preds))
    return corpus_bleu(references, hypotheses)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-folder", default="caption_data")
    ap.add_argument("--data-name", default="coco_5_cap_per_img_5_min_word_freq")
    ap.add_argument("--epochs", type=int, default=120)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--decoder-lr", type=float, default=4e-4)
    ap.add_argument("--grad-clip", type=float, default=5.0)
    ap.add_argument("--alpha-c", type=float, default=1.0)
    args = ap.parse_args()

    word_map = load_word_map(args.data_folder, args.data_name)
    decoder = DecoderWithAttention(512, 512, 512, len(word_map)).to(device)
    encoder = Encoder().to(device)
    dec_opt = torch.optim.Adam(decoder.parameters(), lr=args.decoder_lr)
    criterion = nn.CrossEntropyLoss().to(device)
    norm = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_loader = torch.utils.data.DataLoader(CaptionDataset(args.data_folder, args.data_name, "TRAIN", norm),
                                               batch_size=args.batch_size, shuffle=True, num_workers=1)
    val_loader = torch.utils.data.DataLoader(CaptionDataset(args.data_folder, args.data_name, "VAL", norm),
                                             batch_size=args.batch_size, num_workers=1)
    best_bleu4, since_improvement = 0.0, 0
    for epoch in range(args.epochs):
        if since_improvement == 20:
            break
        if since_improvement > 0 and since_improvement % 8 == 0:
            adjust_learning_rate(dec_opt, 0.8)
        train_epoch(train_loader, encoder, decoder, criterion, dec_opt, args)
        bleu4 = validate(val_loader, encoder, decoder, word_map)
        is_best = bleu4 > best_bleu4
        best_bleu4 = max(bleu4, best_bleu4)
        since_improvement = 0 if is_best else since_improvement + 1
        log.info("epoch %d BLEU-4 %.4f (best %.4f)", epoch, bleu4, best_bleu4)
        save_checkpoint(args.data_name, epoch, since_improvement, encoder, decoder, None, dec_opt, bleu4, is_best)


if __name__ == "__main__":
    main()
