"""Reading a TensorBoard event file: seconds per way of checksumming, side by side in one run.

Writes one event file of about --mb megabytes (default 60) in a temporary folder: at every step
a scalar event (train/loss, train/lr, train/grad_norm; val/loss every 100 steps) and an image
summary of --image-kb kilobytes, which the reader skips but must still frame (and checksum).
Then reads it with read_curve in a fresh child process per way, best of --repeat:

    python-crc, data checked   the reader before google-crc32c (every byte through pure Python)
    python-crc, lengths only   the fallback's default without google-crc32c installed
    google-crc32c, data checked the default with google-crc32c installed
    no data check (fast crc)   lengths only, with google-crc32c

    python benchmarks/tfevents_speed.py [--mb 60] [--image-kb 2] [--repeat 3] [--baseline DIR]

--baseline DIR reads the file with another source tree too, with its own defaults (an older
commit: `git archive COMMIT src | tar -x -C /tmp/old`, then --baseline /tmp/old/src).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
from pathlib import Path
from mldebug_mcp.analysis import tfrecord
from mldebug_mcp.analysis.curve_io import read_curve
crc, check = sys.argv[2], {"default": None, "on": True, "off": False}[sys.argv[3]]
if crc == "python":
    tfrecord.crc32c = getattr(tfrecord, "python_crc32c", tfrecord.crc32c)
    tfrecord.FAST_CRC32C = None
started = time.perf_counter()
log = read_curve(Path(sys.argv[1])) if check is None else read_curve(Path(sys.argv[1]), check_crc=check)
print(json.dumps({"seconds": time.perf_counter() - started, "points": sum(log.count(n) for n in log.names)}))
"""

WAYS = (  # label, crc implementation, data check
    ("python-crc, data checked", "python", "on"),
    ("python-crc, lengths only", "python", "default"),
    ("google-crc32c, data checked", "fast", "default"),
    ("no data check (fast crc)", "fast", "off"),
)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, wire: int, payload: bytes | int) -> bytes:
    key = _varint(number << 3 | wire)
    if wire == 0:
        return key + _varint(payload)
    return key + (_varint(len(payload)) + payload if wire == 2 else payload)


def _event(step: int, values: list[bytes]) -> bytes:
    summary = b"".join(_field(1, 2, value) for value in values)
    return _field(1, 1, struct.pack("<d", 1.7e9 + step)) + _field(2, 0, step) + _field(5, 2, summary)


def _record(payload: bytes, masked_crc) -> bytes:
    length = struct.pack("<Q", len(payload))
    return length + struct.pack("<I", masked_crc(length)) + payload + struct.pack("<I", masked_crc(payload))


def write_event_file(path: Path, megabytes: float, image_kb: float) -> int:
    """An event file of about `megabytes` MB; returns the number of steps written."""
    sys.path.insert(0, str(ROOT / "src"))
    from mldebug_mcp.analysis.tfrecord import masked_crc32c

    image = _field(4, 2, os.urandom(int(image_kb * 1024)))  # Value.image: skipped by the reader
    written, step = 0, 0
    with path.open("wb") as handle:
        while written < megabytes * 1e6:
            scalars = [_field(1, 2, tag.encode()) + _field(2, 5, struct.pack("<f", value))
                       for tag, value in (("train/loss", 2.0 / (1 + step)), ("train/lr", 1e-3),
                                          ("train/grad_norm", 1.0))]
            if step % 100 == 0:
                scalars.append(_field(1, 2, b"val/loss") + _field(2, 5, struct.pack("<f", 2.5 / (1 + step))))
            chunk = _record(_event(step, scalars), masked_crc32c)
            chunk += _record(_event(step, [_field(1, 2, b"samples/image") + image]), masked_crc32c) if image_kb else b""
            handle.write(chunk)
            written += len(chunk)
            step += 1
    return step


def measure(path: Path, src: Path, crc: str, check: str, repeat: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", CHILD, str(path), crc, check], env=env,
                             capture_output=True, text=True, check=True)
        result = json.loads(out.stdout)
        best = result if best is None or result["seconds"] < best["seconds"] else best
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=60.0, help="size of the event file in MB")
    parser.add_argument("--image-kb", type=float, default=2.0, help="image summary per step in KB (0: scalars only)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per way; the fastest is kept")
    parser.add_argument("--baseline", type=Path, help="another source tree to measure beside this one")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from mldebug_mcp.analysis.tfrecord import FAST_CRC32C

    if FAST_CRC32C is None:
        print("google-crc32c (C extension) is not installed: `pip install google-crc32c`; its ways are skipped")
    with tempfile.TemporaryDirectory(prefix="tfevents-speed-") as tmp:
        path = Path(tmp) / "events.out.tfevents.1700000000.bench"
        steps = write_event_file(path, args.mb, args.image_kb)
        size_mb = path.stat().st_size / 1e6
        print(f"python {sys.version.split()[0]}; {path.name}: {size_mb:.1f} MB, {steps:,} steps")
        print(f"{'source':<9} {'way':<30} {'seconds':>8} {'MB/s':>8} {'points':>10}")
        runs = [("this", ROOT / "src", *way) for way in WAYS if FAST_CRC32C or way[1] == "python"]
        if args.baseline:
            runs.insert(0, ("baseline", args.baseline, "its default", "python", "default"))
        for source, src, label, crc, check in runs:
            result = measure(path, src, crc, check, args.repeat)
            print(f"{source:<9} {label:<30} {result['seconds']:>8.2f} {size_mb / result['seconds']:>8.1f} "
                  f"{result['points']:>10,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
