"""Robustness figures for the hardening note: fuzzing, load with a heavy call running, memory per input.

    python benchmarks/robustness.py [--fuzz] [--load] [--memory] [--real 8000] [--sessions 50]

With no section named, all three run.

fuzz    lints generated programs (seeded mutations of the lint fixtures and examples), real files (every
        .py of the installed torch, numpy, mcp and pydantic packages and the standard library, up to
        --real) and corrupt files (random bytes, invalid UTF-8, NULs, deep nesting, giant lines), and feeds
        corrupt copies of the curve fixtures to the curve reader. A crash is any exception other than our
        UsageError; the target is none.
load    starts `mldebug-mcp serve --transport http`, runs --sessions concurrent sessions of quote calls
        while the server is idle and then while lint calls on a 2 MB source run back to back, and prints
        the p50/p99 of the light calls in both phases and their ratio. Target: p99 busy / p99 idle <= 5.
memory  peak resident memory of a lint of 2 MB of source and of a 100 MB file, each in a fresh process
        beside the same process linting one line (the baseline), as a multiple of the input; and the
        server's resident memory before and after the load phase's heavy calls.

Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = [*sorted((ROOT / "tests" / "lint" / "fixtures").rglob("*.py")), *sorted((ROOT / "examples").rglob("*.py"))]
CURVE_FIXTURES = sorted(p for p in (ROOT / "tests" / "analysis" / "fixtures").rglob("*") if p.is_file())
SNIPPETS = ["loss.backward()", "optimizer.step()", "with torch.no_grad():", "model.eval()", "    ", "):", "]",
            "lambda x:", "F.softmax(x, dim=1)", "nn.CrossEntropyLoss()(", "for epoch in range(10):", "'''", "#",
            "yield", "await", "x = x[", "@torch.no_grad()", "def f(*a, **k):", "\\", "\t"]


# ---- fuzz -------------------------------------------------------------------------------------------------

def _mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    for _ in range(rng.randint(1, 6)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        action = rng.choice(("delete", "duplicate", "swap", "insert", "indent", "truncate"))
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif action == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "insert":
            lines.insert(i, " " * rng.choice((0, 4, 8)) + rng.choice(SNIPPETS))
        elif action == "indent":
            lines[i] = " " * rng.choice((1, 4, 12)) + lines[i]
        else:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    return "\n".join(lines) + "\n"


def _corrupt_bytes(rng: random.Random, k: int) -> bytes:
    kind = k % 8
    if kind == 0:
        return rng.randbytes(rng.randint(1, 4096))
    if kind == 1:
        return b"x = '" + bytes([rng.randint(0x80, 0xFF)]) * 20 + b"'\n"
    if kind == 2:
        return b"import torch\n\0\0\0loss.backward()\n"
    if kind == 3:
        return b"x = " + b"(" * rng.randint(100, 5000) + b"1" + b")" * rng.randint(100, 5000) + b"\n"
    if kind == 4:
        return b"x = '" + b"a" * rng.randint(100_000, 1_000_000) + b"'\n"
    if kind == 5:
        return b"x = " + b"+".join([b"1"] * rng.randint(1000, 8000)) + b"\n"
    if kind == 6:
        depth = rng.randint(50, 400)
        return "".join(f"{'    ' * d}def f{d}():\n" for d in range(depth)).encode() + b"    " * depth + b"pass\n"
    return b"\xef\xbb\xbf" + rng.choice(FIXTURES).read_bytes()[: rng.randint(0, 3000)]


def _real_files(limit: int) -> list[Path]:
    roots = [Path(sysconfig.get_paths()["stdlib"])]
    for name in ("torch", "numpy", "mcp", "pydantic"):
        try:
            module = __import__(name)
            roots.append(Path(module.__file__).parent)
        except ImportError:
            pass
    files = [p for root in roots for p in sorted(root.rglob("*.py"))]
    return files[:limit]


def fuzz(real_limit: int) -> bool:
    from mldebug_mcp.errors import UsageError
    from mldebug_mcp.services.curves import curve_report
    from mldebug_mcp.services.lint import lint

    rng = random.Random(20261126)
    crashes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mldebug-fuzz-") as tmp:
        generated, corrupt = Path(tmp) / "generated", Path(tmp) / "corrupt"
        generated.mkdir()
        corrupt.mkdir()
        texts = [p.read_text(encoding="utf-8") for p in FIXTURES]
        for k in range(1500):
            (generated / f"g{k:04d}.py").write_text(_mutate(rng.choice(texts), rng), encoding="utf-8")
        for k in range(440):
            (corrupt / f"c{k:03d}.py").write_bytes(_corrupt_bytes(rng, k))
        real = _real_files(real_limit)
        for label, paths in (("generated", [str(generated)]), ("corrupt", [str(corrupt)]),
                             ("real", [str(p) for p in real])):
            start = time.perf_counter()
            try:
                report = lint(paths, jobs=os.cpu_count() or 1)
                unreadable = report.counts.get("MLD000", 0)
                print(f"fuzz {label:9s}: {report.files:6d} files, {len(report.findings):6d} findings, "
                      f"{unreadable:5d} MLD000, {time.perf_counter() - start:6.1f} s, no crash")
            except Exception as exc:  # noqa: BLE001 - a crash is what this counts
                crashes.append(f"lint {label}: {type(exc).__name__}: {exc}")
                print(f"fuzz {label:9s}: CRASH {type(exc).__name__}: {exc}")
        logs = Path(tmp) / "logs"
        logs.mkdir()
        refused = answered = 0
        for k in range(441):
            source = rng.choice(CURVE_FIXTURES)
            data = bytearray(source.read_bytes())
            for _ in range(rng.randint(1, 20)):
                if data:
                    data[rng.randrange(len(data))] = rng.randrange(256)
            target = logs / f"l{k:03d}{source.suffix if 'tfevents' not in source.name else ''}"
            if "tfevents" in source.name:
                target = logs / f"events.out.tfevents.{k}.fuzz"
            target.write_bytes(bytes(data[: rng.randint(0, len(data))] if k % 3 == 0 else data))
            try:
                curve_report(target)
                answered += 1
            except UsageError:
                refused += 1
            except Exception as exc:  # noqa: BLE001
                crashes.append(f"curve {target.name}: {type(exc).__name__}: {exc}")
            finally:
                target.unlink()
        print(f"fuzz curves   : {answered + refused} corrupt logs, {answered} analysed, {refused} refused with a "
              f"usage error, {len([c for c in crashes if c.startswith('curve')])} crashes")
    for crash in crashes[:10]:
        print("  ", crash)
    return not crashes


# ---- load -------------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_mb(pid: int, field: str = "VmRSS") -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _big_source(size: int) -> str:
    text = "\n".join(p.read_text(encoding="utf-8") for p in FIXTURES)
    chunks, total, k = [], 0, 0
    while total < size:
        chunk = text.replace("def ", f"def v{k}_")
        chunks.append(chunk)
        total += len(chunk)
        k += 1
    source = "".join(chunks)[:size]
    return source[: source.rfind("\ndef ")] + "\n"


async def _light_latencies(clients: list, calls: int) -> list[float]:
    import anyio

    latencies: list[float] = []

    async def session(client) -> None:
        for _ in range(calls):
            start = time.perf_counter()
            result = await client.call_tool("quote", {"key": "jones/assume-a-bug"})
            latencies.append(time.perf_counter() - start)
            assert not result.is_error

    async with anyio.create_task_group() as group:
        for client in clients:
            group.start_soon(session, client)
    return latencies


async def _load(url: str, sessions: int, calls: int, big: str) -> tuple[list[float], list[float], int]:
    from contextlib import AsyncExitStack

    from mcp import Client

    async with AsyncExitStack() as stack:  # every session open before any call is timed
        clients = [await stack.enter_async_context(Client(url)) for _ in range(sessions)]
        await _light_latencies(clients, 2)  # warm: first calls load the evidence store
        return await _phases(url, clients, calls, big)


async def _phases(url: str, clients: list, calls: int, big: str) -> tuple[list[float], list[float], int]:
    import anyio
    from mcp import Client

    idle = await _light_latencies(clients, calls)
    heavy_done = 0
    stop = anyio.Event()

    async def heavy() -> None:
        nonlocal heavy_done
        async with Client(url) as client:
            while not stop.is_set():
                result = await client.call_tool("lint", {"source": big})
                assert not result.is_error, result
                heavy_done += 1

    async with anyio.create_task_group() as group:
        group.start_soon(heavy)
        await anyio.sleep(1.0)  # the first heavy call is under way
        busy = await _light_latencies(clients, calls)
        stop.set()
    return idle, busy, heavy_done


def _p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


def load(sessions: int, calls: int) -> bool:
    import anyio

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "mldebug_mcp", "serve", "--transport", "http", "--port",
                               str(port), "--allow-dir", str(ROOT)], stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.2)
        before = _rss_mb(server.pid)
        idle, busy, heavy = anyio.run(_load, f"http://127.0.0.1:{port}/mcp", sessions, calls, _big_source(2_000_000))
        after, peak = _rss_mb(server.pid), _rss_mb(server.pid, "VmHWM")
    finally:
        server.terminate()
        server.wait(10)
    ratio = _p(busy, 99) / _p(idle, 99)
    print(f"load: {sessions} sessions x {calls} quote calls over HTTP")
    print(f"  idle: p50 {_p(idle, 50):7.1f} ms  p99 {_p(idle, 99):7.1f} ms")
    print(f"  busy: p50 {_p(busy, 50):7.1f} ms  p99 {_p(busy, 99):7.1f} ms  ({heavy} lint calls of 2 MB ran meanwhile)")
    print(f"  p99 busy / idle: {ratio:.2f} (target <= 5)")
    print(f"  server resident memory: {before:.0f} MB before, {after:.0f} MB after, peak {peak:.0f} MB")
    return ratio <= 5


# ---- memory -----------------------------------------------------------------------------------------------

CHILD = """
import sys, time
from mldebug_mcp.services.lint import lint
kind, arg = sys.argv[1], sys.argv[2]
start = time.perf_counter()
try:
    report = lint(source=open(arg).read()) if kind == "source" else lint([arg])
    unread = [f.message for f in report.findings if f.code == "MLD000"]
    outcome = f"MLD000: {unread[0][-80:]}" if unread else f"{len(report.findings)} findings"
except Exception as exc:
    outcome = f"refused: {str(exc)[:90]}"
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec, so a child would report its parent's peak
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) / 1024
print(peak, time.perf_counter() - start, outcome, sep="\\t")
"""


def _peak(kind: str, path: Path) -> tuple[float, float, str]:
    out = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True, check=True)
    peak, seconds, outcome = out.stdout.strip().split("\t")
    return float(peak), float(seconds), outcome


def memory() -> bool:
    with tempfile.TemporaryDirectory(prefix="mldebug-memory-") as tmp:
        one, two, hundred = Path(tmp) / "one.py", Path(tmp) / "two.py", Path(tmp) / "hundred.py"
        one.write_text("x = 1\n")
        two.write_text(_big_source(2_000_000))
        with open(hundred, "w") as handle:
            block = _big_source(1_000_000)
            handle.writelines(block for _ in range(100))
        base, _, _ = _peak("source", one)
        rows = []
        for label, kind, path in (("2 MB source text", "source", two), ("2 MB file", "file", two),
                                  ("100 MB file", "file", hundred)):
            peak, seconds, outcome = _peak(kind, path)
            size_mb = path.stat().st_size / 2**20
            rows.append((label, peak, seconds, outcome, (peak - base) / size_mb))
    print(f"memory: baseline process {base:.0f} MB (lint of one line)")
    for label, peak, seconds, outcome, multiple in rows:
        print(f"  {label:17s}: peak {peak:6.0f} MB, {seconds:6.2f} s, +{multiple:5.1f} MB per MB of input; {outcome}")
    return all(peak < 1024 for _, peak, _, _, _ in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuzz", action="store_true")
    parser.add_argument("--load", action="store_true")
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--real", type=int, default=8000, help="most real files to lint (default 8000)")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--calls", type=int, default=10, help="quote calls per session per phase")
    args = parser.parse_args()
    everything = not (args.fuzz or args.load or args.memory)
    ok = True
    if args.fuzz or everything:
        ok &= fuzz(args.real)
    if args.memory or everything:
        ok &= memory()
    if args.load or everything:
        ok &= load(args.sessions, args.calls)
    print("all targets met" if ok else "A TARGET WAS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
