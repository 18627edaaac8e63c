import numpy as np
import torch
from datasets import load_dataset
from transformers import AutoTokenizer, DataCollatorWithPadding, TrainingArguments

from modeling import TransformerClassifier
from trainer import WeightedLossTrainer, compute_metrics

MODEL_NAME = "microsoft/deberta-v3-base"
NUM_LABELS = 6

raw = load_dataset("dair-ai/emotion")
tokenizer = AutoTokenizer.from_pretrained(MODEL_NAME)


def tokenize(batch):
    return tokenizer(batch["text"], truncation=True, max_length=128)


encoded = raw.map(tokenize, batched=True, remove_columns=["text"]).rename_column("label", "labels")
counts = np.bincount(encoded["train"]["labels"], minlength=NUM_LABELS)
class_weights = torch.tensor(counts.sum() / (NUM_LABELS * counts), dtype=torch.float)

model = TransformerClassifier(MODEL_NAME, NUM_LABELS)
args = TrainingArguments(
    output_dir="outputs/deberta-emotion",
    learning_rate=2e-5,
    per_device_train_batch_size=32,
    per_device_eval_batch_size=64,
    num_train_epochs=4,
    weight_decay=0.01,
    warmup_ratio=0.1,
    eval_strategy="epoch",
    save_strategy="epoch",
    load_best_model_at_end=True,
    metric_for_best_model="macro_f1",
    report_to="none",
)
trainer = WeightedLossTrainer(
    model=model,
    args=args,
    train_dataset=encoded["train"],
    eval_dataset=encoded["validation"],
    data_collator=DataCollatorWithPadding(tokenizer),
    compute_metrics=compute_metrics,
    class_weights=class_weights,
)
trainer.train()
print(trainer.evaluate(encoded["test"]))
