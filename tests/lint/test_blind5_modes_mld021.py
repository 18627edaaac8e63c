"""MLD021, blind split 5's family: an eval() the training loop cannot see, in a helper reached through another
helper (a trainer's logging step that evaluates every n steps) or switched as the side effect of a helper not
named for evaluation (a trigger or perturbation search). train() belongs before that helper returns; an
evaluation the loop calls itself is restored right after the call. Fixed twins stay quiet."""

import textwrap

from mldebug_mcp.lint.engine import lint_source


def _lines(source: str) -> list[int]:
    return sorted(f.line for f in lint_source(textwrap.dedent(source), "train.py") if f.code == "MLD021")


TRAINER = """
    import torch
    import torch.nn.functional as F


    class RewardTrainer:
        def __init__(self, model, optim, strategy, loader, eval_loader):
            self.model, self.optim, self.strategy = model, optim, strategy
            self.loader, self.eval_loader = loader, eval_loader

        def fit(self, epochs):
            for epoch in range(epochs):
                self.model.train()
                for step, batch in enumerate(self.loader):
                    loss = self.model(batch).mean()
                    self.strategy.backward(loss, self.model, self.optim)
                    self.strategy.optimizer_step(self.optim, self.model)
                    self.save_logs_and_checkpoints(step)

        def save_logs_and_checkpoints(self, step):
            if step % 100 == 0:
                self.evaluate(self.eval_loader, step)

        def evaluate(self, loader, step):
            self.model.eval()
            with torch.no_grad():
                total = sum(self.model(b).mean().item() for b in loader)
            print(step, total)
    """


def test_a_trainer_evaluating_through_its_logging_helper_is_reported_where_evaluate_returns():
    assert _lines(TRAINER) == [28]


def test_the_same_trainer_restoring_train_mode_in_evaluate_is_quiet():
    fixed = TRAINER.replace("            print(step, total)\n", "            print(step, total)\n"
                                                                "            self.model.train()\n")
    assert _lines(fixed) == []


FUNCTIONS = """
    import torch
    import torch.nn.functional as F


    def run_dev(net, loader):
        net.eval()
        with torch.no_grad():
            acc = sum((net(x).argmax(1) == y).float().mean().item() for x, y in loader)
        return acc


    def maybe_report(net, dev_loader, it):
        if it % 500 == 0:
            print(run_dev(net, dev_loader))


    def train(net, opt, loader, dev_loader):
        net.train()
        history = []
        for it, (x, y) in enumerate(loader):
            opt.zero_grad()
            F.cross_entropy(net(x), y).backward()
            opt.step()
            maybe_report(net, dev_loader, it)
    """


def test_module_functions_two_helpers_down_are_reported_at_the_evaluating_function():
    assert _lines(FUNCTIONS) == [10]


def test_the_loop_calling_the_evaluation_itself_is_reported_after_its_call():
    direct = FUNCTIONS.replace("            maybe_report(net, dev_loader, it)", "            if it % 500 == 0:\n"
                                                                                 "                run_dev(net, dev_loader)")
    assert _lines(direct) == [26]


SEARCH = """
    import torch
    import torch.nn.functional as F


    class MaskSearch:
        def __init__(self, model):
            self.model = model

        def generate(self, x, target):
            self.model.eval()
            mask = torch.zeros_like(x[:1], requires_grad=True)
            for _ in range(10):
                loss = F.cross_entropy(self.model(x * mask), target)
                mask = (mask - 0.1 * torch.autograd.grad(loss, mask)[0]).detach().requires_grad_()
            return mask


    def train_with_masks(model, opt, loader, warmup):
        search = MaskSearch(model)
        model.train()
        for epoch in range(10):
            for x, y in loader:
                if epoch >= warmup:
                    x = x * search.generate(x, y)
                opt.zero_grad()
                F.cross_entropy(model(x), y).backward()
                opt.step()
    """


def test_a_search_helper_switching_to_eval_as_a_side_effect_is_reported_before_it_returns():
    assert _lines(SEARCH) == [16]


def test_the_search_helper_restoring_the_mode_is_quiet():
    fixed = SEARCH.replace("            return mask\n", "            self.model.train()\n            return mask\n")
    assert _lines(fixed) == []


def test_a_search_helper_run_before_every_update_is_reported_too():
    every = SEARCH.replace("                if epoch >= warmup:\n                    x = x * search.generate(x, y)\n",
                           "                x = x * search.generate(x, y)\n")
    assert _lines(every) == [16]


def test_an_unconditional_eval_in_the_loop_itself_stays_a_choice():
    frozen = SEARCH.replace("                if epoch >= warmup:\n                    x = x * search.generate(x, y)\n",
                            "                model.eval()\n")
    assert _lines(frozen) == []
