import argparse

import numpy as np
from datasets import load_dataset
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          TrainingArguments)

from trainer import WeightedBCETrainer, compute_metrics


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name", default="distilroberta-base")
    parser.add_argument("--train_file", default="data/train.csv")
    parser.add_argument("--valid_file", default="data/valid.csv")
    parser.add_argument("--output_dir", default="outputs/clickbait")
    parser.add_argument("--epochs", type=float, default=3)
    parser.add_argument("--batch_size", type=int, default=16)
    args = parser.parse_args()

    raw = load_dataset("csv", data_files={"train": args.train_file, "validation": args.valid_file})
    tokenizer = AutoTokenizer.from_pretrained(args.model_name)

    def preprocess(batch):
        enc = tokenizer(batch["headline"], truncation=True, max_length=64)
        enc["labels"] = batch["clickbait"]
        return enc

    tokenized = raw.map(preprocess, batched=True, remove_columns=raw["train"].column_names)
    positives = np.sum(tokenized["train"]["labels"])
    pos_weight = (len(tokenized["train"]) - positives) / max(positives, 1)
    model = AutoModelForSequenceClassification.from_pretrained(args.model_name, num_labels=1)
    training_args = TrainingArguments(
        output_dir=args.output_dir,
        per_device_train_batch_size=args.batch_size,
        per_device_eval_batch_size=args.batch_size * 2,
        num_train_epochs=args.epochs,
        learning_rate=3e-5,
        weight_decay=0.01,
        evaluation_strategy="epoch",
        save_strategy="epoch",
        load_best_model_at_end=True,
        metric_for_best_model="f1",
        logging_steps=50,
    )
    trainer = WeightedBCETrainer(
        model=model,
        args=training_args,
        train_dataset=tokenized["train"],
        eval_dataset=tokenized["validation"],
        tokenizer=tokenizer,
        data_collator=DataCollatorWithPadding(tokenizer),
        compute_metrics=compute_metrics,
        pos_weight=float(pos_weight),
    )
    trainer.train()
    print(trainer.evaluate())


if __name__ == "__main__":
    main()
