import torch

from model import LanguageModel
from utils import estimate_loss, get_batch, load_text

batch_size = 64
block_size = 256
max_iters = 5000
eval_interval = 500
learning_rate = 3e-4
eval_iters = 200
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(1337)

data, stoi, itos = load_text("input.txt")
n = int(0.9 * len(data))
splits = {"train": data[:n], "val": data[n:]}

model = LanguageModel(len(stoi), block_size=block_size).to(device)
print(sum(p.numel() for p in model.parameters()) / 1e6, "M parameters")
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

model.train()
for iter in range(max_iters):
    if iter % eval_interval == 0 or iter == max_iters - 1:
        losses = estimate_loss(model, splits, eval_iters, block_size, batch_size, device)
        print(f"step {iter}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")

    xb, yb = get_batch(splits["train"], block_size, batch_size, device)
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()

torch.save(model.state_dict(), "gpt_char.pt")
