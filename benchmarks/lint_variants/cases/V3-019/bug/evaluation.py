import time

import torch


class ClassificationEvaluator:
    def reset(self):
        self._correct, self._count = 0, 0

    def process(self, inputs, outputs):
        self._correct += (outputs.argmax(dim=1).cpu() == inputs["label"]).sum().item()
        self._count += inputs["label"].numel()

    def evaluate(self):
        return {"top1": 100.0 * self._correct / max(self._count, 1)}


def inference_on_dataset(model, data_loader, evaluator):
    evaluator.reset()
    start = time.perf_counter()
    model.eval()
    with torch.no_grad():
        for inputs in data_loader:
            outputs = model(inputs["image"].cuda(non_blocking=True))
            evaluator.process(inputs, outputs)
    results = evaluator.evaluate()
    print(f"Total inference time: {time.perf_counter() - start:.1f}s on {len(data_loader)} batches")
    return results
