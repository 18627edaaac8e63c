class HookBase:
    trainer = None

    def before_train(self):
        pass

    def after_step(self):
        pass

    def after_train(self):
        pass


class PeriodicWriter(HookBase):
    def __init__(self, period=20):
        self._period = period

    def after_step(self):
        it = self.trainer.iter
        if (it + 1) % self._period == 0:
            print(f"iter: {it + 1}  total_loss: {self.trainer.storage['loss']:.4f}  "
                  f"lr: {self.trainer.optimizer.param_groups[0]['lr']:.5f}")


class EvalHook(HookBase):
    def __init__(self, eval_period, eval_function):
        self._period = eval_period
        self._func = eval_function

    def _do_eval(self):
        results = self._func()
        for k, v in results.items():
            self.trainer.storage[f"val/{k}"] = v
        print(f"Evaluation results at iter {self.trainer.iter + 1}: {results}")

    def after_step(self):
        next_iter = self.trainer.iter + 1
        if self._period > 0 and next_iter % self._period == 0 and next_iter != self.trainer.max_iter:
            self._do_eval()

    def after_train(self):
        if self.trainer.iter + 1 >= self.trainer.max_iter:
            self._do_eval()
