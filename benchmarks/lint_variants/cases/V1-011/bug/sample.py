"""Sample from a trained model."""
import os
import pickle

import torch

from model import GPT, GPTConfig

out_dir = "out-shakespeare-char"
start = "\n"
num_samples = 10
max_new_tokens = 500
temperature = 0.8
top_k = 200
seed = 1337
device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(seed)
checkpoint = torch.load(os.path.join(out_dir, "ckpt.pt"), map_location=device)
model = GPT(GPTConfig(**checkpoint["model_args"]))
state_dict = checkpoint["model"]
unwanted_prefix = "_orig_mod."
for k in list(state_dict.keys()):
    if k.startswith(unwanted_prefix):
        state_dict[k[len(unwanted_prefix):]] = state_dict.pop(k)
model.load_state_dict(state_dict)
model.to(device)

with open(os.path.join("data", checkpoint["config"]["dataset"], "meta.pkl"), "rb") as f:
    meta = pickle.load(f)
stoi, itos = meta["stoi"], meta["itos"]


def encode(s):
    return [stoi[c] for c in s]


def decode(ids):
    return "".join(itos[i] for i in ids)


x = torch.tensor(encode(start), dtype=torch.long, device=device)[None, ...]
for k in range(num_samples):
    y = model.generate(x, max_new_tokens, temperature=temperature, top_k=top_k)
    print(decode(y[0].tolist()))
    print("---------------")
