"""Check the agent A/B benchmark tasks.

For each task folder under tasks/ (or only --task ID):
  1. copy project/ to a temporary directory and run `python accept.py COPY` from the task folder;
     it must exit 1 for a bug task (kind: bug | two-bugs) and 0 for a healthy task;
  2. overlay fix/ (the changed files) on a fresh copy and run accept.py again: it must exit 0.
Prints one line per run with the exit status and wall time, and a summary; exits 1 if any task
does not behave as its kind says.

    python benchmarks/agent_ab/check_tasks.py
    python benchmarks/agent_ab/check_tasks.py --task t06-dropout-override
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

TASKS = Path(__file__).resolve().parent / "tasks"


def run_accept(task_dir: Path, project: Path, timeout: float) -> tuple[int, float, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0",
               PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    try:
        proc = subprocess.run([sys.executable, "accept.py", str(project)], cwd=task_dir, env=env,
                              capture_output=True, text=True, timeout=timeout)
        rc, out = proc.returncode, (proc.stdout + proc.stderr)
    except subprocess.TimeoutExpired as exc:
        rc, out = 124, f"timed out after {timeout:.0f}s\n{exc.stdout or ''}"
    return rc, time.time() - t0, out.strip()


def copy_project(task_dir: Path, dest: Path, with_fix: bool) -> None:
    shutil.copytree(task_dir / "project", dest)
    fix = task_dir / "fix"
    if with_fix and fix.is_dir():
        for src in fix.rglob("*"):
            if src.is_file():
                target = dest / src.relative_to(fix)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, target)


def check(task_dir: Path, timeout: float, verbose: bool) -> bool:
    meta = yaml.safe_load((task_dir / "task.yaml").read_text())
    kind = meta.get("kind", "bug")
    ok = True
    for label, with_fix in (("buggy", False), ("fixed", True)):
        want = 0 if (with_fix or kind == "healthy") else 1
        with tempfile.TemporaryDirectory(prefix=f"{task_dir.name}-") as tmp:
            proj = Path(tmp) / "project"
            copy_project(task_dir, proj, with_fix)
            rc, secs, out = run_accept(task_dir, proj, timeout)
        good = rc == want
        ok &= good
        last = out.splitlines()[-1] if out else ""
        print(f"{task_dir.name:32s} {kind:9s} {label}: rc={rc} (want {want}) {secs:6.1f}s "
              f"{'ok' if good else 'WRONG'}  | {last[:110]}")
        if verbose or not good:
            print("    " + out.replace("\n", "\n    "))
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--task", action="append", help="task id (folder name); repeatable")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    dirs = sorted(p for p in TASKS.iterdir() if (p / "task.yaml").is_file())
    if args.task:
        dirs = [d for d in dirs if d.name in args.task or d.name.split("-")[0] in args.task]
        if not dirs:
            print("no such task:", args.task)
            return 2
    results = {d.name: check(d, args.timeout, args.verbose) for d in dirs}
    bad = [k for k, v in results.items() if not v]
    print(f"{len(results) - len(bad)}/{len(results)} tasks behave as their kind says"
          + (f"; wrong: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
