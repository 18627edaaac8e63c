"""Cold start and warm call latency of the mldebug server, side by side with a minimal MCPServer.

Cold start = spawn the process, initialize, list tools, make one tool call (quote for
mldebug, echo for the baseline), over stdio through the SDK client. The two servers are
run alternately in the same loop so machine noise hits both alike. Warm latency = the
median of repeated calls within one session.

    python benchmarks/server_latency.py [--rounds 10] [--calls 200]

Targets: cold-start ratio (mldebug / minimal, medians) <= 1.5; warm quote median < 5 ms.
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

HERE = Path(__file__).resolve().parent
MLDEBUG = (StdioServerParameters(command=sys.executable, args=["-m", "mldebug_mcp", "serve"]),
           "quote", {"key": "jones/assume-a-bug"})
MINIMAL = (StdioServerParameters(command=sys.executable, args=[str(HERE / "minimal_server.py")]),
           "echo", {"text": "hello"})


async def cold_start(target) -> float:
    params, tool, arguments = target
    start = time.perf_counter()
    async with Client(params) as client:
        await client.list_tools()
        result = await client.call_tool(tool, arguments)
        assert not result.is_error, result
        elapsed = time.perf_counter() - start
    return elapsed


async def warm_calls(target, calls: int) -> list[float]:
    params, tool, arguments = target
    times = []
    async with Client(params) as client:
        await client.call_tool(tool, arguments)  # load caches once
        for _ in range(calls):
            start = time.perf_counter()
            await client.call_tool(tool, arguments)
            times.append(time.perf_counter() - start)
    return times


async def main(rounds: int, calls: int) -> int:
    cold = {"mldebug": [], "minimal": []}
    for _ in range(rounds):
        cold["minimal"].append(await cold_start(MINIMAL))
        cold["mldebug"].append(await cold_start(MLDEBUG))
    warm = {"mldebug": await warm_calls(MLDEBUG, calls), "minimal": await warm_calls(MINIMAL, calls)}
    med = {k: statistics.median(v) for k, v in cold.items()}
    ratio = med["mldebug"] / med["minimal"]
    warm_ms = {k: statistics.median(v) * 1000 for k, v in warm.items()}
    print(f"cold start, median of {rounds} (spawn + initialize + list tools + one call):")
    print(f"  minimal MCPServer  {med['minimal'] * 1000:8.1f} ms")
    print(f"  mldebug            {med['mldebug'] * 1000:8.1f} ms")
    print(f"  ratio              {ratio:8.2f}   (target <= 1.5)")
    print(f"warm call, median of {calls}:")
    print(f"  minimal echo       {warm_ms['minimal']:8.2f} ms")
    print(f"  mldebug quote      {warm_ms['mldebug']:8.2f} ms   (target < 5 ms)")
    return 0 if ratio <= 1.5 and warm_ms["mldebug"] < 5 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    sys.exit(anyio.run(main, args.rounds, args.calls))
