import logging
import math

import hydra
import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from tqdm.auto import tqdm
from transformers import AutoModelForSequenceClassification, AutoTokenizer, get_linear_schedule_with_warmup

from config import TrainConfig
from data import get_dataloaders

logger = logging.getLogger(__name__)


def evaluate(model, eval_dl, accelerator):
    model.eval()
    correct, total = 0, 0
    for batch in eval_dl:
        with torch.no_grad():
            logits = model(**batch).logits
        preds, labels = accelerator.gather_for_metrics((logits.argmax(-1), batch["labels"]))
        correct += (preds == labels).sum().item()
        total += labels.numel()
    model.train()
    return correct / max(total, 1)


@hydra.main(version_base=None, config_name="train_config")
def main(cfg: TrainConfig):
    accelerator = Accelerator(mixed_precision=cfg.mixed_precision)
    set_seed(cfg.seed)

    tokenizer = AutoTokenizer.from_pretrained(cfg.model_name)
    model = AutoModelForSequenceClassification.from_pretrained(cfg.model_name, num_labels=2)
    train_dl, eval_dl = get_dataloaders(cfg.data, tokenizer)

    no_decay = ["bias", "LayerNorm.weight"]
    grouped = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": cfg.optim.weight_decay},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(grouped, lr=cfg.optim.lr)
    total_steps = cfg.optim.num_epochs * math.ceil(len(train_dl))
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, cfg.optim.warmup_steps, total_steps)

    model, optimizer, train_dl, eval_dl, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dl, eval_dl, lr_scheduler)

    progress = tqdm(range(total_steps), disable=not accelerator.is_local_main_process)
    for epoch in range(cfg.optim.num_epochs):
        model.train()
        for step, batch in enumerate(train_dl):
            outputs = model(**batch)
            loss = outputs.loss
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            lr_scheduler.step()
            progress.update(1)
            if step % 100 == 0:
                progress.set_postfix(loss=loss.item(), lr=lr_scheduler.get_last_lr()[0])

        acc = evaluate(model, eval_dl, accelerator)
        accelerator.print(f"epoch {epoch}: accuracy {acc:.4f}")

    accelerator.wait_for_everyone()
    unwrapped = accelerator.unwrap_model(model)
    unwrapped.save_pretrained(cfg.output_dir, save_function=accelerator.save,
                              is_main_process=accelerator.is_main_process)
    if accelerator.is_main_process:
        tokenizer.save_pretrained(cfg.output_dir)


if __name__ == "__main__":
    main()
