"""benchmarks/diagnose_device.py's comparison (what it counts as a broken suite, a false alarm on a healthy
setup, a spec that cannot run on the device, a mutation lost), on rows shaped as its GPU runs return them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.diagnose_device import compare  # noqa: E402


def _suite(**checks: str) -> dict:
    return {"seconds": 1.0, "checks": {k: {"status": v, "summary": f"{k} said {v}"} for k, v in checks.items()}}


def test_matching_verdicts_meet_every_target():
    rows = [{"kind": "zoo", "name": "a", "cpu": _suite(x="pass", y="warn"), "device": _suite(x="pass", y="warn")},
            {"kind": "mutation", "name": "m", "intended": "x", "cpu": _suite(x="fail"), "device": _suite(x="fail")}]
    result = compare(rows)
    assert result["agree"] == result["verdicts"] == 3 and all(result["targets"].values())
    assert result["caught"] == {"cpu": 1, "device": 1, "lost": []}


def test_a_device_only_fail_on_a_healthy_setup_and_a_lost_mutation_miss_targets():
    rows = [{"kind": "zoo", "name": "a", "cpu": _suite(x="pass"), "device": _suite(x="error")},
            {"kind": "mutation", "name": "m", "intended": "x", "cpu": _suite(x="warn"), "device": _suite(x="pass")}]
    result = compare(rows)
    assert [d["name"] for d in result["differences"]] == ["a", "m"]
    assert result["healthy_alarms"][0]["status"] == "error" and result["caught"]["lost"] == ["m"]
    assert not result["targets"]["no_fail_or_error_on_healthy"] and not result["targets"]["mutations_kept"]


def test_a_spec_that_keeps_tensors_on_the_cpu_is_counted_apart_and_a_broken_suite_is_named():
    device = _suite(x="fail")
    device["checks"]["x"]["summary"] = "train_step raised: Expected all tensors to be on the same device, but ..."
    broken = {"seconds": 0.0, "checks": {}, "run_error": "AcceleratorError: device-side assert triggered"}
    rows = [{"kind": "zoo", "name": "a", "cpu": _suite(x="pass"), "device": device},
            {"kind": "setup", "name": "b", "cpu": _suite(x="pass"), "device": broken}]
    result = compare(rows)
    assert [a["name"] for a in result["not_portable"]] == ["a"] and not result["healthy_alarms"]
    assert [b["name"] for b in result["broken"]] == ["b"] and not result["targets"]["no_broken_suite"]
