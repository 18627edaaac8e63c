"""MLD032 with running-average objects: a meter class read in this file, told by another file of the run
(the project index's `keeps:` facts), or known only by its name."""

import ast

from mldebug_mcp.lint.config import LintSettings
from mldebug_mcp.lint.context import ProjectIndex, build_context
from mldebug_mcp.lint.engine import check_module, lint_source
from mldebug_mcp.lint.helpers.accum_meters import meter_facts
from mldebug_mcp.lint.rules.mld032_accumulated_loss_keeps_graph import (
    AccumulatedLossKeepsGraph,
)

STORING = (
    "class AverageMeter:\n"
    "    def __init__(self):\n"
    "        self.sum, self.count = 0, 0\n"
    "    def update(self, val, n=1):\n"
    "        self.val = val\n"
    "        self.sum += val * n\n"
    "        self.count += n\n"
)
CONVERTING = STORING.replace("        self.val = val\n", "        val = float(val)\n        self.val = val\n")
RUNNER = (
    "from meters import AverageMeter\n"
    "class Runner:\n"
    "    def __init__(self, model, opt, criterion):\n"
    "        self.model, self.opt, self.criterion = model, opt, criterion\n"
    "        self.losses = AverageMeter()\n"
    "    def train_step(self, x, y):\n"
    "        self.opt.zero_grad()\n"
    "        coarse_loss, fine_loss = self.criterion(self.model(x), y)\n"
    "        (coarse_loss + fine_loss).backward()\n"
    "        self.opt.step()\n"
    "        self.losses.update(coarse_loss * 1000)\n"
)


def _context(source: str, path: str):
    return build_context(path, source, ast.parse(source))


def _runner_lines(meter_source: str) -> list[int]:
    runner = _context(RUNNER, "runner.py")
    runner.project = ProjectIndex(returns=meter_facts(_context(meter_source, "meters.py")))
    return [f.line for f in check_module(runner, [AccumulatedLossKeepsGraph()])]


def test_meter_facts_say_whether_update_keeps_its_argument():
    assert meter_facts(_context(STORING, "m.py")) == {"keeps:AverageMeter.update": "stores"}
    assert meter_facts(_context(CONVERTING, "m.py")) == {"keeps:AverageMeter.update": "converts"}


def test_meter_of_another_file_decides():
    assert _runner_lines(STORING) == [11]
    assert _runner_lines(CONVERTING) == []


def test_meter_seen_nowhere_is_judged_by_its_name():
    lines = [f.line for f in lint_source(RUNNER, "runner.py", LintSettings(select=("MLD032",)))]
    assert lines == [11]
    renamed = RUNNER.replace("AverageMeter", "StatsLogger")
    assert [f.line for f in lint_source(renamed, "runner.py", LintSettings(select=("MLD032",)))] == []


def test_meter_in_the_same_file_is_read():
    fixed = STORING + RUNNER.replace("from meters import AverageMeter\n", "")
    assert [f.line for f in lint_source(fixed, "r.py", LintSettings(select=("MLD032",)))] == [17]
    converted = CONVERTING + RUNNER.replace("from meters import AverageMeter\n", "")
    assert [f.line for f in lint_source(converted, "r.py", LintSettings(select=("MLD032",)))] == []


def test_meter_reading_data_keeps_no_graph():
    summing = STORING.replace("        self.val = val\n", "        val = val.data.sum()\n        self.val = val\n")
    assert meter_facts(_context(summing, "m.py")) == {"keeps:AverageMeter.update": "converts"}
    assert _runner_lines(summing) == []


def test_metric_loggers_and_numbers_stay_quiet():
    source = (
        "import utils\n"
        "from utils import AverageMeter\n"
        "def train_one_epoch(model, optimizer, data_loader):\n"
        "    metric_logger = utils.MetricLogger(delimiter='  ')\n"
        "    losses = AverageMeter()\n"
        "    for images, targets in data_loader:\n"
        "        loss_dict = model(images, targets)\n"
        "        total = sum(loss for loss in loss_dict.values())\n"
        "        optimizer.zero_grad()\n"
        "        total.backward()\n"
        "        optimizer.step()\n"
        "        metric_logger.update(loss=total, **loss_dict)\n"
        "        losses.update(total.item(), images.size(0))\n"
        "        losses.update(total.data[0], images.size(0))\n"
    )
    assert [f.line for f in lint_source(source, "engine.py", LintSettings(select=("MLD032",)))] == []
    kept = source.replace("losses.update(total.item(), images.size(0))", "losses.update(total, images.size(0))")
    assert [f.line for f in lint_source(kept, "engine.py", LintSettings(select=("MLD032",)))] == [13]
