import torch
import torch.nn.functional as F

CHARS = " 'abcdefghijklmnopqrstuvwxyz"
char2idx = {c: i + 1 for i, c in enumerate(CHARS)}


def text_to_int(text):
    return [char2idx[c] for c in text.lower() if c in char2idx]


def ctc_loss(logits, labels, input_lengths, label_lengths):
    log_probs = F.log_softmax(logits, dim=2).transpose(0, 1)   # (T, B, C)
    return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, zero_infinity=True)


def optimizer_step(loss, model, optimizer, scheduler, step, accum_steps, clip=1.0):
    loss.backward()
    if (step + 1) % accum_steps == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        return True
    return False


def greedy_decode(logits, blank=0):
    out = []
    for seq in logits.argmax(dim=2):
        prev, chars = blank, []
        for idx in seq.tolist():
            if idx != prev and idx != blank:
                chars.append(CHARS[idx - 1])
            prev = idx
        out.append("".join(chars))
    return out
