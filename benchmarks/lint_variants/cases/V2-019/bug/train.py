import torch
import torch.nn as nn
from ignite.contrib.handlers import ProgressBar
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.handlers import EarlyStopping, ModelCheckpoint
from ignite.metrics import Accuracy, Loss

from data import get_loaders
from model import HARNet


def run(epochs=60, lr=1e-3, device="cuda" if torch.cuda.is_available() else "cpu"):
    train_loader, val_loader = get_loaders()
    model = HARNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-5)
    criterion = nn.CrossEntropyLoss()

    trainer = create_supervised_trainer(model, optimizer, criterion, device=device)
    evaluator = create_supervised_evaluator(model, metrics={"acc": Accuracy(), "nll": Loss(criterion)},
                                            device=device)
    ProgressBar().attach(trainer, output_transform=lambda loss: {"loss": loss})

    @trainer.on(Events.EPOCH_COMPLETED)
    def log_validation(engine):
        evaluator.run(val_loader)
        m = evaluator.state.metrics
        print(f"Epoch {engine.state.epoch}: val acc {m['acc']:.4f} val loss {m['nll']:.4f}")

    score_fn = lambda engine: engine.state.metrics["acc"]
    evaluator.add_event_handler(Events.COMPLETED, EarlyStopping(patience=10, score_function=score_fn,
                                                                trainer=trainer))
    evaluator.add_event_handler(Events.COMPLETED, ModelCheckpoint("checkpoints", "har", n_saved=2,
                                                                  score_function=score_fn,
                                                                  require_empty=False),
                                {"model": model})
    trainer.run(train_loader, max_epochs=epochs)


if __name__ == "__main__":
    run()
