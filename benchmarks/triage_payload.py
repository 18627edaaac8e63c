"""How much a triage answer weighs over MCP: compact (the tool's default) against full, for limit=10.

Calls the triage tool through an in-memory MCP session for the real descriptions of the forum sets a/b/c
(benchmarks/triage_cases/collected_*.yaml, the tuning sets; only sizes are read) and prints, per form,
the median and largest size in bytes of the structured content (compact JSON, as sent) plus the text
block. Target: the compact form under 12,000 bytes for every case (about 3,000 tokens).

    python benchmarks/triage_payload.py [--limit 10] [--cases 119]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import anyio
import yaml

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "benchmarks" / "triage_cases"
TARGET_BYTES = 12_000


def _sizes(result) -> tuple[int, int]:
    structured = json.dumps(result.structured_content, separators=(",", ":"), ensure_ascii=False).encode()
    text = sum(len(block.text.encode()) for block in result.content if block.type == "text")
    return len(structured), text


async def measure(symptoms: list[str], limit: int) -> dict[str, list[tuple[int, int]]]:
    from mcp import Client

    from mldebug_mcp.server import build_server

    sizes: dict[str, list[tuple[int, int]]] = {"compact": [], "full": []}
    async with Client(build_server()) as client:
        for symptom in symptoms:
            for detail, measured in sizes.items():
                result = await client.call_tool("triage", {"symptom": symptom, "limit": limit, "detail": detail})
                measured.append(_sizes(result))
    return sizes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=10, help="the triage limit (the skill asks for 10)")
    parser.add_argument("--cases", type=int, default=119, help="how many forum descriptions to send")
    args = parser.parse_args()
    symptoms = [case["symptom"] for name in ("a", "b", "c")
                for case in yaml.safe_load((CASES / f"collected_{name}.yaml").read_text(encoding="utf-8"))]
    symptoms = symptoms[: args.cases]
    sizes = anyio.run(measure, symptoms, args.limit)
    print(f"triage over MCP, limit={args.limit}, {len(symptoms)} forum descriptions; bytes")
    print(f"{'form':<8} {'structured':>11} {'text':>8} {'total':>8} {'largest':>8}")
    for detail, pairs in sizes.items():
        totals = [s + t for s, t in pairs]
        print(f"{detail:<8} {statistics.median(s for s, _ in pairs):>11,.0f} {statistics.median(t for _, t in pairs):>8,.0f} "
              f"{statistics.median(totals):>8,.0f} {max(totals):>8,}")
    largest = max(s + t for s, t in sizes["compact"])
    print(f"compact/full (median total): {statistics.median(s + t for s, t in sizes['compact']) / statistics.median(s + t for s, t in sizes['full']):.2f}; "
          f"target: compact under {TARGET_BYTES:,} bytes ({'met' if largest < TARGET_BYTES else 'NOT met'})")
    return 0 if largest < TARGET_BYTES else 1


if __name__ == "__main__":
    sys.exit(main())
