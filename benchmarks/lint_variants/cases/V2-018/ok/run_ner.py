import numpy as np
from datasets import load_dataset
from seqeval.metrics import f1_score
from transformers import AutoTokenizer, DataCollatorForTokenClassification, TrainingArguments

from modeling import BertCNNForTokenTagging
from trainer import TaggingTrainer

MODEL_NAME = "bert-base-cased"
raw = load_dataset("conll2003")
label_list = raw["train"].features["ner_tags"].feature.names
tokenizer = AutoTokenizer.from_pretrained(MODEL_NAME)


def tokenize_and_align(examples):
    enc = tokenizer(examples["tokens"], truncation=True, is_split_into_words=True, max_length=128)
    all_labels = []
    for i, tags in enumerate(examples["ner_tags"]):
        prev, ids = None, []
        for wid in enc.word_ids(batch_index=i):
            ids.append(-100 if wid is None or wid == prev else tags[wid])
            prev = wid
        all_labels.append(ids)
    enc["labels"] = all_labels
    return enc


def compute_metrics(p):
    preds = np.argmax(p.predictions, axis=2)
    true_preds = [[label_list[pp] for pp, ll in zip(pr, la) if ll != -100] for pr, la in zip(preds, p.label_ids)]
    true_labels = [[label_list[ll] for pp, ll in zip(pr, la) if ll != -100] for pr, la in zip(preds, p.label_ids)]
    return {"f1": f1_score(true_labels, true_preds)}


tokenized = raw.map(tokenize_and_align, batched=True, remove_columns=raw["train"].column_names)
model = BertCNNForTokenTagging(MODEL_NAME, num_labels=len(label_list))
args = TrainingArguments(output_dir="out/bert-cnn-ner", learning_rate=3e-5, per_device_train_batch_size=32,
                         per_device_eval_batch_size=64, num_train_epochs=4, weight_decay=0.01,
                         eval_strategy="epoch", save_strategy="epoch", warmup_ratio=0.1, fp16=True)
trainer = TaggingTrainer(model=model, args=args, train_dataset=tokenized["train"],
                         eval_dataset=tokenized["validation"], tokenizer=tokenizer,
                         data_collator=DataCollatorForTokenClassification(tokenizer),
                         compute_metrics=compute_metrics)
trainer.train()
trainer.save_model()
