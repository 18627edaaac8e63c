import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from evaluation import ClassificationEvaluator, inference_on_dataset
from hooks import EvalHook, PeriodicWriter


class SimpleTrainer:
    def __init__(self, model, data_loader, optimizer, max_iter):
        model.train()
        self.model, self.data_loader, self.optimizer = model, data_loader, optimizer
        self.max_iter, self.iter, self.storage = max_iter, 0, {}
        self._data_loader_iter = iter(data_loader)
        self._hooks = []

    def register_hooks(self, hooks):
        for h in hooks:
            h.trainer = self
            self._hooks.append(h)

    def run_step(self):
        try:
            data = next(self._data_loader_iter)
        except StopIteration:
            self._data_loader_iter = iter(self.data_loader)
            data = next(self._data_loader_iter)
        logits = self.model(data["image"].cuda(non_blocking=True))
        loss = nn.functional.cross_entropy(logits, data["label"].cuda())
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.storage["loss"] = loss.item()

    def train(self):
        for h in self._hooks:
            h.before_train()
        for self.iter in range(self.max_iter):
            self.run_step()
            for h in self._hooks:
                h.after_step()
        for h in self._hooks:
            h.after_train()


def main(cfg):
    from data import build_dataset
    import torchvision
    model = torchvision.models.regnet_y_800mf(num_classes=cfg["num_classes"]).cuda()
    train_loader = DataLoader(build_dataset(cfg["train"]), batch_size=cfg["ims_per_batch"],
                              shuffle=True, num_workers=8, drop_last=True)
    test_loader = DataLoader(build_dataset(cfg["test"]), batch_size=64, num_workers=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["base_lr"], momentum=0.9, weight_decay=5e-5)
    trainer = SimpleTrainer(model, train_loader, optimizer, cfg["max_iter"])
    trainer.register_hooks([
        EvalHook(cfg["eval_period"], lambda: inference_on_dataset(model, test_loader, ClassificationEvaluator())),
        PeriodicWriter(20),
    ])
    trainer.train()


if __name__ == "__main__":
    main({"num_classes": 200, "train": "tiny_imagenet_train", "test": "tiny_imagenet_val",
          "ims_per_batch": 128, "base_lr": 0.2, "max_iter": 90000, "eval_period": 5000})
