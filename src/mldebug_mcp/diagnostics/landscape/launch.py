"""Start the landscape probe in a child process with the user's interpreter, and watch it as ../launch.py
watches diagnose: the same timeout, memory cap over the whole process tree, output cap and kill, whatever
ends the run. Never imports torch.

The child loads this folder's child.py by path, under a private package over the diagnostics folder (as
../distributed/bootstrap.py does), so the user's interpreter needs torch, not this package.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...errors import DiagnoseError
from ..events import (
    EVENT_FIELDS,
    EventReader,
    MalformedEvent,
    _check_fields,
    parse_event,
)
from ..launch import (
    Limits,
    ProgressCallback,
    Stop,
    run_child,
    stop_message,
    survivors_note,
)

DIAGNOSTICS_DIR = Path(__file__).parent.parent
BOOTSTRAP = """\
import importlib, sys, types
p = types.ModuleType('_mldebug_diag'); p.__path__ = [sys.argv[1]]; sys.modules['_mldebug_diag'] = p
entry = importlib.import_module('_mldebug_diag.landscape.child')
sys.exit(entry.main(sys.argv[2:]))
"""
STAGES = {"build": "building the debug spec", "spec": "validating the debug spec",
          "checkpoint": "loading the checkpoint", "run": "probing the landscape"}


class LandscapeEvents(EventReader):
    """The events file, with the final report checked against LandscapeReport instead of a diagnose report."""

    def parse(self, raw: bytes, line: int) -> dict[str, Any]:
        return _parse(raw, line)


def _parse(raw: bytes, line: int) -> dict[str, Any]:
    try:
        event = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return parse_event(raw, line)  # raises with the reason
    if not (isinstance(event, dict) and event.get("event") == "report"):
        return parse_event(raw, line)
    _check_fields(event, EVENT_FIELDS["report"], f"line {line}: 'report' event")
    from pydantic import ValidationError

    from ...models.landscape import LandscapeReport

    try:
        LandscapeReport.model_validate({"target": "-", **event["report"]})
    except ValidationError as exc:
        raise MalformedEvent(f"line {line}: the report does not validate: {str(exc).splitlines()[0]}") from None
    return event


async def run_landscape(target: str, options: dict[str, Any], limits: Limits, cwd: Path,
                        on_progress: ProgressCallback | None = None) -> dict[str, Any]:
    """The child's report dict, or DiagnoseError saying why there is none."""
    def make_run(tmp: Path) -> tuple[list[str], LandscapeEvents]:
        events = LandscapeEvents(tmp / "events.jsonl")
        events.path.touch()
        return [BOOTSTRAP, str(DIAGNOSTICS_DIR), target, str(events.path), json.dumps(options)], events

    final, returncode, tail, survivors = await run_child(make_run, limits, cwd, on_progress, "landscape")
    return _outcome(final, returncode, tail, limits, survivors)


def _outcome(final: dict[str, Any] | Stop, returncode: int | None, tail: str, limits: Limits,
             survivors: list[str]) -> dict[str, Any]:
    if isinstance(final, dict) and final["event"] == "report":
        return final["report"]
    note = survivors_note(survivors)
    if isinstance(final, Stop):
        raise DiagnoseError(stop_message(final, returncode, limits) + note, output_tail=tail)
    error, stage = final["error"], final["stage"]
    if stage == "import":
        raise DiagnoseError(f"{limits.python} cannot import torch ({error['message']}); install torch in that "
                            f"environment or pass --python with an interpreter that has it{note}")
    if stage == "checkpoint":
        raise DiagnoseError(error["message"] + note, error["frames"], tail)
    where = STAGES.get(stage, "running")
    raise DiagnoseError(f"{error['type']} while {where}: {error['message']}{note}", error["frames"], tail)
