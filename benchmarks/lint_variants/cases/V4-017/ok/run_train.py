import numpy as np
import pandas as pd
from datasets import Dataset
from transformers import AutoTokenizer, DataCollatorWithPadding, TrainingArguments

from modeling import EssayScorer
from trainer import LLRDTrainer

MODEL = "roberta-large"
TARGETS = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]


def compute_metrics(eval_pred):
    preds, labels = eval_pred
    rmse = np.sqrt(((preds - labels) ** 2).mean(axis=0))
    return {"mcrmse": float(rmse.mean())}


def main(fold=0):
    df = pd.read_csv("train_folds.csv")
    tok = AutoTokenizer.from_pretrained(MODEL)

    def encode(batch):
        enc = tok(batch["full_text"], truncation=True, max_length=512)
        enc["labels"] = [list(map(float, r)) for r in zip(*[batch[t] for t in TARGETS])]
        return enc

    cols = ["full_text"] + TARGETS
    train_ds = Dataset.from_pandas(df[df.fold != fold][cols]).map(encode, batched=True, remove_columns=cols)
    valid_ds = Dataset.from_pandas(df[df.fold == fold][cols]).map(encode, batched=True, remove_columns=cols)

    args = TrainingArguments(
        output_dir=f"out/fold{fold}", learning_rate=2e-5, weight_decay=0.01,
        per_device_train_batch_size=8, per_device_eval_batch_size=16, num_train_epochs=4,
        warmup_ratio=0.1, lr_scheduler_type="cosine", evaluation_strategy="steps", eval_steps=200,
        save_strategy="steps", save_steps=200, load_best_model_at_end=True,
        metric_for_best_model="mcrmse", greater_is_better=False, fp16=True, report_to="none",
        remove_unused_columns=False,
    )
    trainer = LLRDTrainer(model=EssayScorer(MODEL), args=args, train_dataset=train_ds,
                          eval_dataset=valid_ds, data_collator=DataCollatorWithPadding(tok),
                          compute_metrics=compute_metrics, head_lr=5e-4, llrd=0.85)
    trainer.train()
    trainer.save_model(f"out/fold{fold}/best")


if __name__ == "__main__":
    for f in range(4):
        main(f)
