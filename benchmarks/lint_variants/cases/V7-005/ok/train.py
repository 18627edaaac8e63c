import argparse
import time

import torch
import torch.backends.cudnn as cudnn
import torch.optim
import torch.utils.data
import torchvision.transforms as transforms
from nltk.translate.bleu_score import corpus_bleu
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from datasets import CaptionDataset
from models import DecoderWithAttention, Encoder
from utils import AverageMeter, accuracy, adjust_learning_rate, clip_gradient, load_word_map, save_checkpoint

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
cudnn.benchmark = True


def train(train_loader, encoder, decoder, criterion, encoder_optimizer, decoder_optimizer, epoch, args):
    decoder.train()
    encoder.train()
    losses, top5accs, start = AverageMeter(), AverageMeter(), time.time()
    for i, (imgs, caps, caplens) in enumerate(train_loader):
        imgs, caps, caplens = imgs.to(device), caps.to(device), caplens.to(device)
        imgs = encoder(imgs)
        scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(imgs, caps, caplens)
        targets = caps_sorted[:, 1:]
        scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
        targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data

        loss = criterion(scores, targets)
        loss += args.alpha_c * ((1.0 - alphas.sum(dim=1)) ** 2).mean()

        decoder_optimizer.zero_grad()
        if encoder_optimizer is not None:
            encoder_optimizer.zero_grad()
        loss.backward()
        if args.grad_clip is not None:
            clip_gradient(decoder_optimizer, args.grad_clip)
            if encoder_optimizer is not None:
                clip_gradient(encoder_optimizer, args.grad_clip)
        decoder_optimizer.step()
        if encoder_optimizer is not None:
            encoder_optimizer.step()

        losses.update(loss.item(), sum(decode_lengths))
        top5accs.update(accuracy(scores, targets, 5), sum(decode_lengths))
        if i % args.print_freq == 0:
            print(f"Epoch: [{epoch}][{i}/{len(train_loader)}]\tLoss {losses.val:.4f} ({losses.avg:.4f})\t"
                  f"Top-5 Accuracy {top5accs.val:.3f} ({top5accs.avg:.3f})\t{time.time() - start:.1f}s")


def validate(val_loader, encoder, decoder, criterion, word_map):
    decoder.eval()
    encoder.eval()
    references, hypotheses, losses = [], [], AverageMeter()
    with torch.no_grad():
        for imgs, caps, caplens, allcaps in val_loader:
            imgs, caps, caplens = imgs.to(device), caps.to(device), caplens.to(device)
            scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(encoder(imgs), caps, caplens)
            scores_copy = scores.clone()
            targets = caps_sorted[:, 1:]
            packed = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
            loss = criterion(packed, pack_padded_sequence(targets, decode_lengths, batch_first=True).data)
            losses.update(loss.item(), sum(decode_lengths))
            allcaps = allcaps[sort_ind.cpu()]
            for j in range(allcaps.shape[0]):
                img_caps = allcaps[j].tolist()
                references.append([[w for w in c if w not in {word_map["<start>"], word_map["<pad>"]}]
                                   for c in img_caps])
            _, preds = torch.max(scores_copy, dim=2)
            for j, p in enumerate(preds.tolist()):
                hypotheses.append(p[:decode_lengths[j]])
    bleu4 = corpus_bleu(references, hypotheses)
    print(f"\n * LOSS - {losses.avg:.3f}, BLEU-4 - {bleu4:.4f}\n")
    return bleu4


def main():
    parser = argparse.ArgumentParser("show, attend and tell")
    parser.add_argument("--data_folder", default="data/coco_5_cap_per_img_5_min_word_freq")
    parser.add_argument("--data_name", default="coco_5_cap_per_img_5_min_word_freq")
    parser.add_argument("--epochs", type=int, default=120)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--decoder_lr", type=float, default=4e-4)
    parser.add_argument("--encoder_lr", type=float, default=1e-4)
    parser.add_argument("--grad_clip", type=float, default=5.0)
    parser.add_argument("--alpha_c", type=float, default=1.0)
    parser.add_argument("--fine_tune_encoder", action="store_true")
    parser.add_argument("--print_freq", type=int, default=100)
    args = parser.parse_args()

    word_map = load_word_map(args.data_folder, args.data_name)
    decoder = DecoderWithAttention(attention_dim=512, embed_dim=512, decoder_dim=512, vocab_size=len(word_map))
    decoder_optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, decoder.parameters()), lr=args.decoder_lr)
    encoder = Encoder()
    encoder.fine_tune(args.fine_tune_encoder)
    encoder_optimizer = torch.optim.Adam(filter(lambda p: p.requires_grad, encoder.parameters()),
                                         lr=args.encoder_lr) if args.fine_tune_encoder else None
    decoder, encoder = decoder.to(device), encoder.to(device)
    criterion = nn.CrossEntropyLoss().to(device)

    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_loader = torch.utils.data.DataLoader(
        CaptionDataset(args.data_folder, args.data_name, "TRAIN", transform=transforms.Compose([normalize])),
        batch_size=args.batch_size, shuffle=True, num_workers=4, pin_memory=True)
    val_loader = torch.utils.data.DataLoader(
        CaptionDataset(args.data_folder, args.data_name, "VAL", transform=transforms.Compose([normalize])),
        batch_size=args.batch_size, shuffle=False, num_workers=4, pin_memory=True)

    best_bleu4, epochs_since_improvement = 0.0, 0
    for epoch in range(args.epochs):
        if epochs_since_improvement == 20:
            break
        if epochs_since_improvement > 0 and epochs_since_improvement % 8 == 0:
            adjust_learning_rate(decoder_optimizer, 0.8)
            if args.fine_tune_encoder:
                adjust_learning_rate(encoder_optimizer, 0.8)
        train(train_loader, encoder, decoder, criterion, encoder_optimizer, decoder_optimizer, epoch, args)
        recent_bleu4 = validate(val_loader, encoder, decoder, criterion, word_map)
        is_best = recent_bleu4 > best_bleu4
        best_bleu4 = max(recent_bleu4, best_bleu4)
        epochs_since_improvement = 0 if is_best else epochs_since_improvement + 1
        save_checkpoint(args.data_name, epoch, epochs_since_improvement, encoder, decoder, encoder_optimizer,
                        decoder_optimizer, recent_bleu4, is_best)


if __name__ == "__main__":
    main()
