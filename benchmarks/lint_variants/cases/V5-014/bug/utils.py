import math

import torch


def group_texts(examples, block_size):
    concatenated = {k: sum(examples[k], []) for k in examples.keys()}
    total_length = (len(concatenated["input_ids"]) // block_size) * block_size
    result = {
        k: [t[i:i + block_size] for i in range(0, total_length, block_size)]
        for k, t in concatenated.items()
    }
    result["labels"] = result["input_ids"].copy()
    return result


def perplexity(loss):
    try:
        return math.exp(loss)
    except OverflowError:
        return float("inf")


@torch.no_grad()
def generate_samples(model, tokenizer, prompts, device, max_new_tokens=64):
    outputs = []
    for prompt in prompts:
        inputs = tokenizer(prompt, return_tensors="pt").to(device)
        out = model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=True, top_p=0.9,
                             temperature=0.8, pad_token_id=tokenizer.eos_token_id)
        outputs.append(tokenizer.decode(out[0], skip_special_tokens=True))
    return outputs
