import logging
import sys
from dataclasses import dataclass, field

import evaluate
from datasets import load_dataset
from transformers import AutoTokenizer, DataCollatorWithPadding, HfArgumentParser, TrainingArguments, set_seed

from modeling_qa import EncoderForSpanQA
from trainer_qa import SpanQATrainer, postprocess_qa_predictions

logger = logging.getLogger(__name__)


@dataclass
class ModelArguments:
    model_name_or_path: str = field(default="bert-base-uncased")
    head_dropout: float = field(default=0.1)


@dataclass
class DataArguments:
    dataset_name: str = field(default="squad")
    max_seq_length: int = field(default=384)
    doc_stride: int = field(default=128)
    max_train_samples: int = field(default=None)


def prepare_train_features(examples, tokenizer, args: DataArguments):
    enc = tokenizer([q.lstrip() for q in examples["question"]], examples["context"], truncation="only_second",
                    max_length=args.max_seq_length, stride=args.doc_stride, return_overflowing_tokens=True,
                    return_offsets_mapping=True, padding="max_length")
    sample_map = enc.pop("overflow_to_sample_mapping")
    offsets_all = enc.pop("offset_mapping")
    enc["start_positions"], enc["end_positions"], enc["context_mask"] = [], [], []
    for i, offsets in enumerate(offsets_all):
        seq_ids = enc.sequence_ids(i)
        enc["context_mask"].append([1 if s == 1 else 0 for s in seq_ids])
        answers = examples["answers"][sample_map[i]]
        start_char = answers["answer_start"][0]
        end_char = start_char + len(answers["text"][0])
        ts = seq_ids.index(1)
        te = len(seq_ids) - 1 - seq_ids[::-1].index(1)
        if not (offsets[ts][0] <= start_char and offsets[te][1] >= end_char):
            enc["start_positions"].append(0)
            enc["end_positions"].append(0)
            continue
        while ts < len(offsets) and offsets[ts][0] <= start_char:
            ts += 1
        while offsets[te][1] >= end_char:
            te -= 1
        enc["start_positions"].append(ts - 1)
        enc["end_positions"].append(te + 1)
    return enc


def prepare_eval_features(examples, tokenizer, args: DataArguments):
    enc = tokenizer([q.lstrip() for q in examples["question"]], examples["context"], truncation="only_second",
                    max_length=args.max_seq_length, stride=args.doc_stride, return_overflowing_tokens=True,
                    return_offsets_mapping=True, padding="max_length")
    sample_map = enc.pop("overflow_to_sample_mapping")
    enc["example_id"], enc["context_mask"] = [], []
    for i in range(len(enc["input_ids"])):
        seq_ids = enc.sequence_ids(i)
        enc["context_mask"].append([1 if s == 1 else 0 for s in seq_ids])
        enc["example_id"].append(examples["id"][sample_map[i]])
        enc["offset_mapping"][i] = [o if seq_ids[k] == 1 else None for k, o in enumerate(enc["offset_mapping"][i])]
    return enc


def main():
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    logging.basicConfig(level=logging.INFO, handlers=[logging.StreamHandler(sys.stdout)])
    set_seed(training_args.seed)

    raw = load_dataset(data_args.dataset_name)
    tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path, use_fast=True)
    train_ds = raw["train"]
    if data_args.max_train_samples:
        train_ds = train_ds.select(range(data_args.max_train_samples))
    train_ds = train_ds.map(prepare_train_features, batched=True, remove_columns=train_ds.column_names,
                            fn_kwargs={"tokenizer": tokenizer, "args": data_args})
    eval_examples = raw["validation"]
    eval_ds = eval_examples.map(prepare_eval_features, batched=True, remove_columns=eval_examples.column_names,
                                fn_kwargs={"tokenizer": tokenizer, "args": data_args})

    model = EncoderForSpanQA(model_args.model_name_or_path, model_args.head_dropout)
    metric = evaluate.load("squad")

    def post_process(examples, features, predictions):
        preds = postprocess_qa_predictions(examples, features, predictions)
        refs = [{"id": ex["id"], "answers": ex["answers"]} for ex in examples]
        return preds, refs

    training_args.remove_unused_columns = False
    trainer = SpanQATrainer(model=model, args=training_args, train_dataset=train_ds,
                            eval_dataset=eval_ds.remove_columns(["example_id", "offset_mapping"]),
                            eval_examples=eval_examples, tokenizer=tokenizer,
                            data_collator=DataCollatorWithPadding(tokenizer),
                            post_process_function=lambda ex, feats, p: post_process(ex, eval_ds, p),
                            compute_metrics=lambda pr: metric.compute(predictions=pr[0], references=pr[1]))
    if training_args.do_train:
        result = trainer.train()
        trainer.save_model()
        logger.info("train metrics: %s", result.metrics)
    if training_args.do_eval:
        logger.info("eval metrics: %s", trainer.evaluate())


if __name__ == "__main__":
    main()
