import random
import re
import unicodedata

import numpy as np
import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

from model import EOS_token, MAX_LENGTH

ENG_PREFIXES = ("i am ", "i m ", "he is", "he s ", "she is", "she s ", "you are", "you re ",
                "we are", "we re ", "they are", "they re ")


class Lang:
    def __init__(self, name):
        self.name = name
        self.word2index = {}
        self.word2count = {}
        self.index2word = {0: "SOS", 1: "EOS"}
        self.n_words = 2

    def add_sentence(self, sentence):
        for word in sentence.split(" "):
            self.add_word(word)

    def add_word(self, word):
        if word not in self.word2index:
            self.word2index[word] = self.n_words
            self.word2count[word] = 1
            self.index2word[self.n_words] = word
            self.n_words += 1
        else:
            self.word2count[word] += 1


def unicode_to_ascii(s):
    return "".join(c for c in unicodedata.normalize("NFD", s) if unicodedata.category(c) != "Mn")


def normalize_string(s):
    s = unicode_to_ascii(s.lower().strip())
    s = re.sub(r"([.!?])", r" \1", s)
    s = re.sub(r"[^a-zA-Z!?]+", r" ", s)
    return s.strip()


def read_pairs(path, reverse=False):
    with open(path, encoding="utf-8") as f:
        pairs = [[normalize_string(s) for s in line.split("\t")[:2]] for line in f.read().strip().split("\n")]
    return [list(reversed(p)) for p in pairs] if reverse else pairs


def keep(pair):
    return (len(pair[0].split(" ")) < MAX_LENGTH and len(pair[1].split(" ")) < MAX_LENGTH
            and pair[1].startswith(ENG_PREFIXES))


def prepare_data(path, lang1="eng", lang2="fra", reverse=True):
    pairs = [p for p in read_pairs(path, reverse) if keep(p)]
    input_lang, output_lang = (Lang(lang2), Lang(lang1)) if reverse else (Lang(lang1), Lang(lang2))
    for src, tgt in pairs:
        input_lang.add_sentence(src)
        output_lang.add_sentence(tgt)
    print(f"{len(pairs)} pairs; {input_lang.name}: {input_lang.n_words} words, "
          f"{output_lang.name}: {output_lang.n_words} words")
    return input_lang, output_lang, pairs


def indexes_from_sentence(lang, sentence):
    return [lang.word2index[word] for word in sentence.split(" ")]


def split_pairs(pairs, test_frac=0.1, seed=0):
    rng = random.Random(seed)
    pairs = pairs[:]
    rng.shuffle(pairs)
    n = int(len(pairs) * test_frac)
    return pairs[n:], pairs[:n]


def get_dataloader(input_lang, output_lang, pairs, batch_size, device):
    n = len(pairs)
    input_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
    target_ids = np.zeros((n, MAX_LENGTH), dtype=np.int32)
    for idx, (inp, tgt) in enumerate(pairs):
        inp_ids = indexes_from_sentence(input_lang, inp) + [EOS_token]
        tgt_ids = indexes_from_sentence(output_lang, tgt) + [EOS_token]
        input_ids[idx, :len(inp_ids)] = inp_ids
        target_ids[idx, :len(tgt_ids)] = tgt_ids
    data = TensorDataset(torch.LongTensor(input_ids).to(device), torch.LongTensor(target_ids).to(device))
    return DataLoader(data, sampler=RandomSampler(data), batch_size=batch_size)
