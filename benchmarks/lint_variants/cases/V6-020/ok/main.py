import argparse

import timm
import torch
import torch.nn as nn

from data import get_dataflow
from engine import Events
from trainers import create_supervised_evaluator, create_supervised_trainer


def run(cfg):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    train_loader, val_loader = get_dataflow(cfg.data_path, cfg.batch_size, cfg.num_workers)
    model = timm.create_model(cfg.model, pretrained=True, num_classes=cfg.num_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    trainer = create_supervised_trainer(model, optimizer, criterion, device,
                                        accumulation_steps=cfg.accumulation_steps, max_norm=5.0)
    evaluator = create_supervised_evaluator(model, device)

    @trainer.on(Events.ITERATION_COMPLETED)
    def log_training_loss(engine):
        if engine.state.iteration % cfg.log_every == 0:
            print(f"Epoch[{engine.state.epoch}] Iter[{engine.state.iteration}] Loss: {engine.state.output:.4f}")

    @trainer.on(Events.EPOCH_COMPLETED)
    def log_validation(engine):
        m = evaluator.run(val_loader).metrics
        print(f"Validation Epoch[{engine.state.epoch}] Accuracy: {m['correct'] / max(m['total'], 1):.4f}")
        torch.save(model.state_dict(), f"{cfg.output_dir}/{cfg.model}_e{engine.state.epoch}.pt")

    trainer.run(train_loader, max_epochs=cfg.epochs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", default="/data/imagenette2-320")
    parser.add_argument("--model", default="resnet50")
    parser.add_argument("--num_classes", type=int, default=10)
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--accumulation_steps", type=int, default=8)
    parser.add_argument("--num_workers", type=int, default=8)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--log_every", type=int, default=50)
    parser.add_argument("--output_dir", default="checkpoints")
    run(parser.parse_args())
