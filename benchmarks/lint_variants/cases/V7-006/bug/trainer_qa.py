import collections
import logging
from typing import Dict, List, Optional

import numpy as np
import torch
import torch.nn as nn
from transformers import Trainer

logger = logging.getLogger(__name__)


class SpanQATrainer(Trainer):
    def __init__(self, *args, eval_examples=None, post_process_function=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.eval_examples = eval_examples
        self.post_process_function = post_process_function

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        start_positions = inputs.pop("start_positions")
        end_positions = inputs.pop("end_positions")
        outputs = model(**inputs)
        seq_len = outputs.start_scores.size(1)
        start_positions = start_positions.clamp(0, seq_len)
        end_positions = end_positions.clamp(0, seq_len)
        loss_fct = nn.CrossEntropyLoss(ignore_index=seq_len)
        loss = (loss_fct(outputs.start_scores, start_positions) + loss_fct(outputs.end_scores, end_positions)) / 2
        return (loss, outputs) if return_outputs else loss

    def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
        inputs = self._prepare_inputs(inputs)
        inputs = {k: v for k, v in inputs.items() if k not in ("start_positions", "end_positions")}
        with torch.no_grad():
            outputs = model(**inputs)
        return None, (outputs.start_scores, outputs.end_scores), None

    def evaluate(self, eval_dataset=None, eval_examples=None, ignore_keys=None, metric_key_prefix="eval"):
        eval_dataset = self.eval_dataset if eval_dataset is None else eval_dataset
        eval_examples = self.eval_examples if eval_examples is None else eval_examples
        eval_dataloader = self.get_eval_dataloader(eval_dataset)
        compute_metrics, self.compute_metrics = self.compute_metrics, None
        try:
            output = self.evaluation_loop(eval_dataloader, description="Evaluation", prediction_loss_only=False,
                                          ignore_keys=ignore_keys, metric_key_prefix=metric_key_prefix)
        finally:
            self.compute_metrics = compute_metrics
        metrics: Dict[str, float] = {}
        if self.post_process_function is not None and compute_metrics is not None:
            preds = self.post_process_function(eval_examples, eval_dataset, output.predictions)
            metrics = {f"{metric_key_prefix}_{k}": v for k, v in compute_metrics(preds).items()}
        self.log(metrics)
        return metrics


def postprocess_qa_predictions(examples, features, predictions, n_best_size: int = 20, max_answer_length: int = 30,
                               example_id_column: str = "example_id") -> List[Dict[str, str]]:
    all_start, all_end = predictions
    feats_per_example = collections.defaultdict(list)
    for i, feat in enumerate(features):
        feats_per_example[feat[example_id_column]].append(i)
    results = []
    for example in examples:
        best_score, best_text = -np.inf, ""
        for fi in feats_per_example[example["id"]]:
            offsets = features[fi]["offset_mapping"]
            start_idx = np.argsort(all_start[fi])[-1:-n_best_size - 1:-1]
            end_idx = np.argsort(all_end[fi])[-1:-n_best_size - 1:-1]
            for s in start_idx:
                for e in end_idx:
                    if s >= len(offsets) or e >= len(offsets) or offsets[s] is None or offsets[e] is None:
                        continue
                    if e < s or e - s + 1 > max_answer_length:
                        continue
                    score = all_start[fi][s] + all_end[fi][e]
                    if score > best_score:
                        best_score = score
                        best_text = example["context"][offsets[s][0]:offsets[e][1]]
        results.append({"id": example["id"], "prediction_text": best_text})
    return results
