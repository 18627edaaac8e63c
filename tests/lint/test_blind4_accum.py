"""MLD032 across files of one run (blind split 4's family): a live loss stored under a key in a statistics
collector a step is handed, where another file defines the collector class whose __setitem__ keeps every
value. Quiet with the loss turned into a number, and when no class of the run keeps values set by key."""

from .families import project_findings

COLLECTOR = """
    from collections import defaultdict


    class StatisticsCollector:
        def __init__(self):
            self.statistics = defaultdict(list)

        def __setitem__(self, key, value):
            self.statistics[key].append(value)
"""

WORKER = """
    class Worker:
        def forward_and_collect(self, model, problem, batch, stat_col, episode):
            logits = model(batch)
            loss = problem.evaluate_loss(batch, logits)
            stat_col["episode"] = episode
            stat_col["loss"] = loss
            return logits, loss
"""


def _run(tmp_path, files: dict[str, str]) -> list[tuple[str, int]]:
    return project_findings(tmp_path, files, "MLD032")


def test_live_loss_stored_in_a_collector_of_another_file(tmp_path):
    assert _run(tmp_path, {"collector.py": COLLECTOR, "worker.py": WORKER}) == [("worker.py", 7)]


def test_number_stored_or_no_collector_class_is_quiet(tmp_path):
    fixed = WORKER.replace('stat_col["loss"] = loss', 'stat_col["loss"] = loss.item()')
    assert _run(tmp_path, {"collector.py": COLLECTOR, "worker.py": fixed}) == []
    plain = COLLECTOR.replace("self.statistics[key].append(value)", "self.statistics[key] = float(value)")
    assert _run(tmp_path, {"collector.py": plain, "worker.py": WORKER}) == []
