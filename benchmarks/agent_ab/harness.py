"""The agent A/B harness (issue 23): a fresh workspace per task, arm and run, and the automated scores.

    python benchmarks/agent_ab/harness.py prepare RUNS_DIR --tasks t01 t07 --arms none skill tools --runs 1
    python benchmarks/agent_ab/harness.py score RUNS_DIR [--out results.yaml]

`prepare` makes RUNS_DIR/<task>--<arm>--r<N>/ holding only what the agent may see: `project/` (a copy of
the task's project), `COMPLAINT.md`, and, for the skill arms, the skill installed by `mldebug-mcp
install-skill` under `.skills/ml-debug/`. `BRIEF.md` is the brief the agent is given (the same for every
arm but the paragraph that says which help it has), and `started` records when the workspace was made.
The agent ends by writing `ANSWER.md` (diagnosis, evidence, the change) and `COMMANDS.md` (one line per
command it ran), and by editing files under `project/`.

`score` runs each task's acceptance test on the patched `project/` (one thread, as check_tasks.py does),
reads ANSWER.md through the advice guard (`check_advice`: anti-patterns proposed), and counts commands,
tool calls and minutes; it writes one record per run. Whether the root cause was named is judged by a
separate reader who sees neither the arm nor the other runs (`judge_packet` below writes what that reader
sees; its verdicts go to RUNS_DIR/judgements.yaml).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
TASKS = HERE / "tasks"
ARMS = ("none", "skill", "tools")
COMMAND_BUDGET = 40
MAX_ANSWER_CHARS = 20_000  # the advice guard reads answers, not whole files
TOOL_WORDS = re.compile(r"\bmldebug-mcp\b")

ARM_HELP = {
    "none": "You have no debugging skill or special tools: use Python, the shell and your own judgement. Do not run "
            "`mldebug-mcp` and do not read anything outside this workspace.",
    "skill": "A debugging skill is installed at `.skills/ml-debug/` in this workspace: read `SKILL.md` first and "
             "follow it (its references are under `.skills/ml-debug/references/`). Do not run `mldebug-mcp`; do "
             "not read anything else outside this workspace.",
    "tools": "A debugging skill is installed at `.skills/ml-debug/` in this workspace: read `SKILL.md` first and "
             "follow it. Its tools are available as the command `/work/venv/bin/mldebug-mcp` (lint, diagnose, triage, curve, "
             "sweep, landscape, advice, quote; `mldebug-mcp --help`): use them where the skill says. Do not read "
             "anything else outside this workspace.",
}

BRIEF = """# A user needs your help with their training project

You are a coding agent. The user's project is in `project/` and their message is in `COMPLAINT.md`. Find the
root cause of their problem and fix it in the code, as you would for a real user.

{help}

Rules:
- Work only inside this workspace ({workspace}). Run the project with `OMP_NUM_THREADS=1` (the machine is
  shared): for example `cd project && OMP_NUM_THREADS=1 /work/venv/bin/python train.py` (that interpreter has torch).
- At most {budget} shell commands in all. Append each command you run, one line each, to `COMMANDS.md`.
- Change only what the fix needs; do not rewrite the project.
- End by writing `ANSWER.md` for the user: the root cause (what is wrong, in which file and why it produces
  what they saw), the evidence you collected, and the change you made. If you conclude that nothing in the
  code is wrong, say so and say what explains what they saw.
"""


def task_dirs(names: list[str] | None) -> list[Path]:
    every = sorted(p for p in TASKS.iterdir() if (p / "task.yaml").is_file())
    if not names:
        return every
    chosen = [p for p in every if any(p.name == n or p.name.startswith(n + "-") for n in names)]
    missing = [n for n in names if not any(p.name == n or p.name.startswith(n + "-") for p in every)]
    if missing:
        raise SystemExit(f"unknown task(s): {', '.join(missing)}; tasks: {', '.join(p.name for p in every)}")
    return chosen


def prepare(runs_dir: Path, tasks: list[str] | None, arms: list[str], runs: int) -> list[Path]:
    made = []
    for task in task_dirs(tasks):
        for arm in arms:
            for run in range(1, runs + 1):
                workspace = runs_dir / f"{task.name}--{arm}--r{run}"
                if workspace.exists():
                    shutil.rmtree(workspace)
                shutil.copytree(task / "project", workspace / "project")
                shutil.copy(task / "COMPLAINT.md", workspace / "COMPLAINT.md")
                if arm != "none":
                    subprocess.run([_cli(), "install-skill", "--dest", str(workspace / ".skills")], check=True,
                                   capture_output=True)
                (workspace / "BRIEF.md").write_text(BRIEF.format(help=ARM_HELP[arm], workspace=workspace,
                                                                 budget=COMMAND_BUDGET), encoding="utf-8")
                (workspace / "started").write_text(f"{time.time():.0f}\n", encoding="utf-8")
                made.append(workspace)
    return made


def _cli() -> str:
    found = Path(sys.executable).parent / "mldebug-mcp"
    return str(found) if found.is_file() else (shutil.which("mldebug-mcp") or "mldebug-mcp")


def accept(task: Path, project: Path, timeout: float = 300) -> tuple[bool, str]:
    """Whether the task's acceptance test passes on `project`, and its last line (check_tasks runs it)."""
    from check_tasks import (
        run_accept,  # this folder's script, run the same way for the reference fixes
    )

    returncode, _, out = run_accept(task, project, timeout)
    if returncode == 124 and out.startswith("timed out"):
        return False, f"acceptance test timed out after {timeout:.0f} s"
    lines = out.splitlines()
    return returncode == 0, lines[-1] if lines else ""


def anti_patterns(answer: str) -> list[str]:
    from mldebug_mcp.services.advice import check_advice

    return [finding.id for finding in check_advice(answer[:MAX_ANSWER_CHARS]).findings]


def score(runs_dir: Path) -> list[dict]:
    records = []
    for workspace in sorted(p for p in runs_dir.iterdir() if p.is_dir() and "--" in p.name):
        task_name, arm, run = workspace.name.split("--")
        task = TASKS / task_name
        answer_path = workspace / "ANSWER.md"
        answer = answer_path.read_text(encoding="utf-8") if answer_path.is_file() else ""
        commands = [c for c in (workspace / "COMMANDS.md").read_text(encoding="utf-8").splitlines() if c.strip()] \
            if (workspace / "COMMANDS.md").is_file() else []
        passed, why = accept(task, workspace / "project")
        started = float((workspace / "started").read_text().strip())
        ended = answer_path.stat().st_mtime if answer_path.is_file() else None
        records.append({
            "run": workspace.name, "task": task_name, "arm": arm, "kind": yaml.safe_load(
                (task / "task.yaml").read_text(encoding="utf-8"))["kind"],
            "answered": bool(answer.strip()), "fixed": passed, "acceptance": why,
            "anti_patterns": anti_patterns(answer) if answer else [], "commands": len(commands),
            "tool_calls": sum(1 for c in commands if TOOL_WORDS.search(c)),
            "minutes": round((ended - started) / 60, 1) if ended else None,
        })
    return records


def judge_packet(runs_dir: Path, out: Path, seed: int = 0) -> None:
    """What the blind judge reads: each answer under a neutral id with its task's confirmed cause, in random
    order; the id map is kept apart in out/judge_ids.json."""
    workspaces = sorted(p for p in runs_dir.iterdir() if (p / "ANSWER.md").is_file())
    random.Random(seed).shuffle(workspaces)
    out.mkdir(parents=True, exist_ok=True)
    ids, parts = {}, []
    for n, workspace in enumerate(workspaces, 1):
        neutral = f"answer-{n:03d}"
        ids[neutral] = workspace.name
        task = yaml.safe_load((TASKS / workspace.name.split("--")[0] / "task.yaml").read_text(encoding="utf-8"))
        parts.append(f"## {neutral}\n\n### confirmed cause\n\n{task['cause'].strip()}\n\n"
                     f"### how to judge (task kind: {task['kind']})\n\n{task.get('judge_note', '').strip() or '-'}\n\n"
                     f"### the agent's answer\n\n{(workspace / 'ANSWER.md').read_text(encoding='utf-8').strip()}\n")
    (out / "judge_packet.md").write_text("\n".join(parts), encoding="utf-8")
    (out / "judge_ids.json").write_text(json.dumps(ids, indent=1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("prepare")
    make.add_argument("runs_dir", type=Path)
    make.add_argument("--tasks", nargs="*")
    make.add_argument("--arms", nargs="*", default=list(ARMS), choices=ARMS)
    make.add_argument("--runs", type=int, default=1)
    scoring = sub.add_parser("score")
    scoring.add_argument("runs_dir", type=Path)
    scoring.add_argument("--out", type=Path)
    judging = sub.add_parser("judge-packet")
    judging.add_argument("runs_dir", type=Path)
    judging.add_argument("out", type=Path)
    args = parser.parse_args()
    if args.command == "prepare":
        for workspace in prepare(args.runs_dir, args.tasks, args.arms, args.runs):
            print(workspace)
    elif args.command == "score":
        records = score(args.runs_dir)
        text = yaml.safe_dump(records, sort_keys=False)
        if args.out:
            args.out.write_text(text, encoding="utf-8")
        print(text)
    else:
        judge_packet(args.runs_dir, args.out)


if __name__ == "__main__":
    main()
