"""Fuzz: mutated copies of the fixture logs give a report or a UsageError, never anything else.

Deterministic (one seed per fixture); CURVE_FUZZ=2000 for a longer run. A failure prints the
fixture, the round and the mutation, so that it can be replayed.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from mldebug_mcp.analysis.curve import analyze_curve
from mldebug_mcp.analysis.curve_io import read_curve
from mldebug_mcp.errors import UsageError

FIXTURES = Path(__file__).parent / "fixtures"
LOGS = sorted((FIXTURES / "logs").iterdir()) + sorted((FIXTURES / "tfevents").iterdir())
ROUNDS = int(os.environ.get("CURVE_FUZZ", "150"))
TOKENS = [b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\xc3", b"[" * 3000, b"{" * 3000, b"9" * 5000, b'"', b",,,,",
          b"\t", b"\r", b"\n\n\n", b"nan", b"-inf", b"1e999", b"NaN", b"null", b"-", b'{"step": ', b"}\n",
          b"\x08\x96\x01", b"\xff" * 12, b"x" * 140_000, b"\\u0000", b'"\\ud800"', b"1_000"]


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One to three random edits: flip, cut, insert a token or random bytes, duplicate or drop a slice."""
    edits = []
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        kind = rng.choice(["flip", "cut", "token", "bytes", "duplicate", "drop", "truncate"])
        if kind == "flip" and data:
            at = min(at, len(data) - 1)
            data = data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1 :]
        elif kind == "cut":
            data = data[:at]
        elif kind == "token":
            data = data[:at] + rng.choice(TOKENS) + data[at:]
        elif kind == "bytes":
            data = data[:at] + rng.randbytes(rng.randint(1, 16)) + data[at:]
        elif kind == "duplicate":
            end = min(len(data), at + rng.randint(1, 200))
            data = data[:end] + data[at:end] + data[end:]
        elif kind == "drop":
            data = data[:at] + data[at + rng.randint(1, 50) :]
        elif kind == "truncate":
            data = data[: len(data) - rng.randint(1, 20)]
        edits.append(f"{kind}@{at}")
    return data, ", ".join(edits)


@pytest.mark.parametrize("fixture", LOGS, ids=lambda p: p.name)
def test_mutated_logs_give_a_report_or_a_usage_error(fixture, tmp_path):
    original = fixture.read_bytes()
    rng = random.Random(f"curve-fuzz/{fixture.name}")
    outcomes = {"report": 0, "usage error": 0}
    for round_ in range(ROUNDS):
        data, edits = mutate(original, rng)
        # the fixture's own name, and a neutral one so that the format is sniffed from the bytes
        name = fixture.name if round_ % 2 else "mutated.log"
        path = tmp_path / name
        path.write_bytes(data)
        try:
            report = analyze_curve(read_curve(path, check_crc=bool(round_ % 3)))
            assert report.source == str(path)
            outcomes["report"] += 1
        except UsageError as exc:
            assert str(path) in str(exc) or "no series" in str(exc) or "looks like a training loss" in str(exc), str(exc)
            outcomes["usage error"] += 1
        except Exception as exc:  # noqa: BLE001 - the point of the test
            pytest.fail(f"{fixture.name} round {round_} ({edits}) as {name}: {type(exc).__name__}: {exc}")
    assert outcomes["report"] and outcomes["usage error"], outcomes  # the mutations reach both outcomes
