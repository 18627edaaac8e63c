import torch


class Hook:
    priority = 50

    def before_run(self, runner):
        pass

    def after_train_iter(self, runner, batch_idx, outputs):
        pass

    def after_run(self, runner):
        pass


class LoggerHook(Hook):
    priority = 90

    def __init__(self, interval=50):
        self.interval = interval

    def after_train_iter(self, runner, batch_idx, outputs):
        if runner.iter % self.interval == 0:
            lr = runner.optimizer.param_groups[0]["lr"]
            print(f"Iter [{runner.iter}/{runner.max_iters}] lr: {lr:.3e} loss: {outputs['loss']:.4f}")


class ValLossHook(Hook):
    priority = 60

    def __init__(self, dataloader, interval=1000):
        self.dataloader = dataloader
        self.interval = interval
        self.best = float("inf")

    def after_train_iter(self, runner, batch_idx, outputs):
        if runner.iter % self.interval != 0:
            return
        runner.model.eval()
        total, n = 0.0, 0
        with torch.no_grad():
            for data in self.dataloader:
                losses = runner.model(**runner.to_device(data), mode="loss")
                total += losses["loss"].item() * data["inputs"].size(0)
                n += data["inputs"].size(0)
        runner.model.train()
        val_loss = total / n
        print(f"Iter(val) [{runner.iter}] loss: {val_loss:.4f}")
        if val_loss < self.best:
            self.best = val_loss
            torch.save(runner.model.state_dict(), f"{runner.work_dir}/best_val_loss.pth")
