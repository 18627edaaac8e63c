"""Round 2 variants (F11a, issue 17): the families behind the optimiser-loop misses, in shapes of our own.

MLD010: a step function hands its optimiser to a helper (of another file, or of its own) that runs the backward,
then steps it, and nothing clears the gradients. Fixed shapes (the step function clears, the helper clears, a
method of the file clears that optimiser) stay quiet."""

from pathlib import Path

from .families import both_ways

WRAPPED_HELPERS = (
    "def forward_backward(model, batch, crit, optimizer):\n"
    "    loss = crit(model(batch['x']), batch['y'])\n"
    "    optimizer.backward(loss)\n"
    "    return loss.item()\n"
    "\n"
    "def grads_of(model, batch, crit, opt):\n"
    "    loss = crit(model(batch['x']), batch['y'])\n"
    "    loss.backward()\n"
    "    return loss.item()\n"
)

UPDATER = (
    "from helpers import forward_backward, grads_of\n"
    "\n"
    "class Updater:\n"
    "    def __init__(self, model, crit, optimizer):\n"
    "        self.model, self.crit, self.optimizer = model, crit, optimizer\n"
    "\n"
    "    def update(self, micro_batches):\n"
    "        self.model.train()\n"
    "        total = 0.0\n"
    "        for batch in micro_batches:\n"
    "            total += forward_backward(self.model, batch, self.crit, self.optimizer)\n"
    "        self.optimizer.step()\n"
    "        return total\n"
)

FUNCTION_STEP = (
    "import helpers\n"
    "\n"
    "def train_step(model, batch, crit, opt):\n"
    "    loss = helpers.grads_of(model, batch, crit, opt)\n"
    "    opt.step()\n"
    "    return loss\n"
)


def test_step_after_another_files_backward_helper(tmp_path: Path):
    (tmp_path / "helpers.py").write_text(WRAPPED_HELPERS)
    (tmp_path / "updater.py").write_text(UPDATER)
    (tmp_path / "step.py").write_text(FUNCTION_STEP)
    assert sorted(both_ways(tmp_path, "MLD010")) == [("step.py", 4), ("updater.py", 10)]


def test_cleared_in_the_step_or_the_helper_or_elsewhere_is_quiet(tmp_path: Path):
    (tmp_path / "helpers.py").write_text(WRAPPED_HELPERS)
    (tmp_path / "updater.py").write_text(UPDATER.replace("        total = 0.0\n",
                                                         "        total = 0.0\n        self.optimizer.zero_grad()\n"))
    (tmp_path / "step.py").write_text(FUNCTION_STEP.replace("    loss = helpers", "    opt.zero_grad()\n    loss = helpers"))
    assert both_ways(tmp_path, "MLD010") == []
    (tmp_path / "helpers.py").write_text(WRAPPED_HELPERS.replace("    loss.backward()\n",
                                                                 "    opt.zero_grad()\n    loss.backward()\n"))
    (tmp_path / "step.py").write_text(FUNCTION_STEP)
    assert both_ways(tmp_path, "MLD010") == []
    # the trainer clears its optimiser in another method its driver calls
    (tmp_path / "updater.py").write_text(UPDATER + "\n    def reset(self):\n        self.optimizer.zero_grad()\n")
    assert both_ways(tmp_path, "MLD010") == []


def test_local_helper_that_backwards_on_the_handed_optimiser(tmp_path: Path):
    (tmp_path / "run.py").write_text(
        "class Runner:\n"
        "    def _backward(self, loss, optim):\n"
        "        optim.backward(loss)\n"
        "\n"
        "    def step(self, batch):\n"
        "        self._backward(self.loss(batch), self.optim)\n"
        "        self.optim.step()\n"
        "\n"
        "class ScaledOptim:\n"
        "    def backward(self, loss):\n"
        "        loss.backward()\n"
    )
    assert both_ways(tmp_path, "MLD010") == [("run.py", 6)]


# MLD032: a step of another file returns (loss, count, log); a loop sums the count and keeps the log. Only the
# loss element carries the graph: summing it is the finding, summing the count is not.
STEP_FILE = (
    "class Task:\n"
    "    def fit_batch(self, batch, model, crit, opt):\n"
    "        loss, n_items, stats = crit(model, batch)\n"
    "        opt.zero_grad()\n"
    "        loss.backward()\n"
    "        opt.step()\n"
    "        return loss, n_items, stats\n"
)

SUMMING_FILE = (
    "def run_epoch(task, batches, model, crit, opt):\n"
    "    seen, logs, total = 0, [], 0.0\n"
    "    for batch in batches:\n"
    "        step_loss, n, log = task.fit_batch(batch, model, crit, opt)\n"
    "        seen += n\n"
    "        logs.append(log)\n"
    "    return seen, logs\n"
)


def test_count_and_log_beside_a_returned_loss_are_quiet(tmp_path: Path):
    (tmp_path / "task.py").write_text(STEP_FILE)
    (tmp_path / "loop.py").write_text(SUMMING_FILE)
    assert both_ways(tmp_path, "MLD032") == []


def test_the_returned_loss_summed_elsewhere_still_fires(tmp_path: Path):
    (tmp_path / "task.py").write_text(STEP_FILE)
    (tmp_path / "loop.py").write_text(SUMMING_FILE.replace("        seen += n\n", "        seen += n\n        total += step_loss\n"))
    found = both_ways(tmp_path, "MLD032")
    assert found and all(name in ("task.py", "loop.py") for name, _ in found)


# MLD032: a training step hands its live losses to a hook or callback, which keeps them across iterations.
RUNNER = (
    "class Runner:\n"
    "    def step(self, i, batch):\n"
    "        parts = self.model(batch)\n"
    "        total = sum(parts.values())\n"
    "        self.opt.zero_grad()\n"
    "        total.backward()\n"
    "        self.opt.step()\n"
    "        parts['total'] = total\n"
    "        self.fire('after_iter', i, parts)\n"
    "\n"
    "    def fit_batch(self, batch):\n"
    "        loss = self.crit(self.model(batch))\n"
    "        loss.backward()\n"
    "        for callback in self.callbacks:\n"
    "            callback.on_batch_end(self, loss)\n"
)

HOOKS = (
    "class MetricHook:\n"
    "    def __init__(self):\n"
    "        self.seen = {}\n"
    "\n"
    "    def after_iter(self, runner, i, outputs):\n"
    "        for key, val in outputs.items():\n"
    "            self.seen.setdefault(key, [])\n"
    "            self.seen[key].append(val)\n"
    "\n"
    "class LossCallback:\n"
    "    def __init__(self):\n"
    "        self.losses = []\n"
    "\n"
    "    def on_batch_end(self, trainer, loss):\n"
    "        self.losses.append(loss)\n"
)


def test_hook_that_keeps_handed_losses(tmp_path: Path):
    (tmp_path / "runner.py").write_text(RUNNER)
    (tmp_path / "hooks.py").write_text(HOOKS)
    assert sorted(both_ways(tmp_path, "MLD032")) == [("hooks.py", 8), ("hooks.py", 15)]


def test_hook_that_keeps_numbers_is_quiet(tmp_path: Path):
    (tmp_path / "runner.py").write_text(RUNNER)
    (tmp_path / "hooks.py").write_text(HOOKS.replace("append(val)", "append(val.item())")
                                       .replace("append(loss)", "append(loss.detach())"))
    assert both_ways(tmp_path, "MLD032") == []
    # a step that hands on only what it turned into numbers
    (tmp_path / "runner.py").write_text(RUNNER.replace("        parts['total'] = total\n", "")
                                        .replace("'after_iter', i, parts", "'after_iter', i, {'total': total.item()}")
                                        .replace("on_batch_end(self, loss)", "on_batch_end(self, loss.item())"))
    (tmp_path / "hooks.py").write_text(HOOKS)
    assert both_ways(tmp_path, "MLD032") == []
