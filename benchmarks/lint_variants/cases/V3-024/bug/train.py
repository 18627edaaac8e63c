import pandas as pd
from datasets import Dataset
from transformers import AutoTokenizer, DataCollatorWithPadding, TrainingArguments

from model import EssayScorer
from trainer import RegressionTrainer, compute_metrics

MODEL_NAME = "microsoft/deberta-v3-base"
TARGETS = ["cohesion", "syntax", "vocabulary", "phraseology", "grammar", "conventions"]
FOLD = 0

df = pd.read_csv("../input/feedback-prize-english-language-learning/train_folds.csv")
tokenizer = AutoTokenizer.from_pretrained(MODEL_NAME)


def preprocess(batch):
    enc = tokenizer(batch["full_text"], truncation=True, max_length=768)
    enc["labels"] = [list(row) for row in zip(*[batch[t] for t in TARGETS])]
    return enc


train_ds = Dataset.from_pandas(df[df.fold != FOLD].reset_index(drop=True)).map(preprocess, batched=True)
valid_ds = Dataset.from_pandas(df[df.fold == FOLD].reset_index(drop=True)).map(preprocess, batched=True)
keep = ["input_ids", "attention_mask", "labels"]
train_ds = train_ds.remove_columns([c for c in train_ds.column_names if c not in keep])
valid_ds = valid_ds.remove_columns([c for c in valid_ds.column_names if c not in keep])

args = TrainingArguments(
    output_dir=f"outputs/fold{FOLD}", per_device_train_batch_size=8, per_device_eval_batch_size=16,
    learning_rate=2e-5, num_train_epochs=4, warmup_ratio=0.1, weight_decay=0.01,
    evaluation_strategy="steps", eval_steps=250, save_strategy="steps", save_steps=250,
    load_best_model_at_end=True, metric_for_best_model="mcrmse", greater_is_better=False,
    fp16=True, report_to="none",
)
trainer = RegressionTrainer(model=EssayScorer(MODEL_NAME, len(TARGETS)), args=args,
                            train_dataset=train_ds, eval_dataset=valid_ds, tokenizer=tokenizer,
                            data_collator=DataCollatorWithPadding(tokenizer),
                            compute_metrics=compute_metrics)
trainer.train()
print(trainer.evaluate())
