import torch

from engine import Engine


def create_supervised_trainer(model, optimizer, loss_fn, device, accumulation_steps=1, max_norm=None):
    def _update(engine, batch):
        model.train()
        x, y = batch
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        y_pred = model(x)
        loss = loss_fn(y_pred, y)
        loss.backward()
        if engine.state.iteration % accumulation_steps == 0:
            if max_norm is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            optimizer.zero_grad()
        return loss.item()
    return Engine(_update)


def create_supervised_evaluator(model, device):
    def _inference(engine, batch):
        model.eval()
        with torch.no_grad():
            x, y = batch
            return model(x.to(device)), y.to(device)
    evaluator = Engine(_inference)

    def _reset(engine):
        engine.state.metrics = {"correct": 0, "total": 0}

    def _accumulate(engine):
        y_pred, y = engine.state.output
        engine.state.metrics["correct"] += (y_pred.argmax(1) == y).sum().item()
        engine.state.metrics["total"] += y.numel()

    evaluator.add_event_handler("started", _reset)
    evaluator.add_event_handler("iteration_completed", _accumulate)
    return evaluator
