"""The events of a distributed run, read by the parent: one file per rank plus torchrun's (agent.jsonl).

When a rank fails, the others fail after it in whatever collective they were waiting in, so the first
error is not always the cause. The order of preference: a rank's own error (its code raised), then a
rank that died without a word (reported by torchrun), then a collective that failed; a failed collective
alone is held back GRACE_SECONDS for a better explanation to arrive. Rank 0's report ends the run and
outweighs whatever fails after it (teardown).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from ..events import FINAL_EVENTS, EventReader, MalformedEvent

AGENT = "agent"
GRACE_SECONDS = 5.0  # torchrun notices a dead rank within its 0.1 s monitor interval, then stops the rest


class RankEvents:
    """Follows agent.jsonl and rank<N>.jsonl in `folder`; `read` returns rank 0's progress and, at the end,
    the one final event that explains the run (its error carries the rank)."""

    def __init__(self, folder: Path, nproc: int) -> None:
        self.readers: dict[str | int, EventReader] = {AGENT: EventReader(folder / "agent.jsonl")}
        self.readers.update({rank: EventReader(folder / f"rank{rank}.jsonl") for rank in range(nproc)})
        for reader in self.readers.values():
            reader.path.touch()
        self._finals: list[dict[str, Any]] = []
        self._held_since: float | None = None

    def read(self) -> list[dict[str, Any]]:
        progress = []
        for who, reader in self.readers.items():
            for event in reader.read():
                if event["event"] in FINAL_EVENTS:
                    self._finals.append(_checked(event, who))
                elif who == 0 and event["event"] == "progress":
                    progress.append(event)
        final = self._explanation()
        return progress + ([final] if final is not None else [])

    def check_ended(self) -> None:
        for reader in self.readers.values():
            reader.check_ended()

    def _explanation(self) -> dict[str, Any] | None:
        report = next((e for e in self._finals if e["event"] == "report"), None)
        if report is not None:  # every rank got through the step and the gather: what fails after is teardown
            return report
        errors = sorted((e for e in self._finals if e["event"] == "error"), key=lambda e: e.get("time", math.inf))
        own = [e for e in errors if e["stage"] not in ("collective", "rank")]
        # a rank that failed to join the group may only be the witness of a peer that died as it formed
        joining = bool(own) and all(e["stage"] == "init" for e in own)
        if own and not joining:
            return own[0]
        # a collective the user's code called explains more than the diagnostics' gather the others wait in
        waits = sorted((e for e in errors if e["stage"] == "collective"), key=lambda e: bool(e.get("ours")))
        agent = next((e for e in errors if e["stage"] == "rank"), None)
        if agent is not None:  # torchrun's word on the ranks that ended: one that wrote nothing died silently
            spoke = {e.get("rank") for e in errors if e is not agent}
            stopped = set(agent.get("stopped", []))  # SIGTERM: torchrun stopping the ranks after the first failure
            failed = agent.get("failed") or {str(agent.get("rank")): agent["error"]["message"]}
            silent = [int(r) for r in failed if r.isdigit() and int(r) not in spoke | stopped]
            if silent:
                rank = min(silent, key=lambda r: r != agent.get("rank"))  # torchrun's first, if it is silent
                return {**agent, "rank": rank, "error": {**agent["error"], "message": failed[str(rank)]}}
            if joining:
                return own[0]
            return _with_others(waits[0], waits) if waits else agent
        if joining or waits:
            self._held_since = self._held_since or time.monotonic()
            if time.monotonic() - self._held_since >= GRACE_SECONDS:
                return own[0] if joining else _with_others(waits[0], waits)
        return None

    def flush(self) -> dict[str, Any] | None:
        """After the run stopped: the best explanation read so far, held-back collective failures included."""
        errors = sorted((e for e in self._finals if e["event"] == "error"), key=lambda e: e.get("time", math.inf))
        waits = sorted((e for e in errors if e["stage"] == "collective"), key=lambda e: bool(e.get("ours")))
        own = [e for e in errors if e["stage"] not in ("collective", "rank")]
        return self._explanation() or (own[0] if own else _with_others(waits[0], waits) if waits
                                       else errors[0] if errors else None)


def _with_others(chosen: dict[str, Any], errors: list[dict[str, Any]]) -> dict[str, Any]:
    """A failed collective, with where the other ranks were waiting when it failed: a rank absent from the
    list was not in any collective (busy, or stuck elsewhere) and was stopped by torchrun."""
    if chosen["stage"] != "collective":
        return chosen
    others = [{"rank": e.get("rank"), "collective": e.get("collective", "a collective")} for e in errors
              if e["stage"] == "collective" and e.get("rank") != chosen.get("rank")]
    return {**chosen, "others": others}


def _checked(event: dict[str, Any], who: str | int) -> dict[str, Any]:
    """A rank's events must name that rank: the file's path is in its argv, so user code could write there."""
    failed, stopped = event.get("failed", {}), event.get("stopped", [])
    if not (isinstance(failed, dict) and all(k.isdigit() and isinstance(v, str) for k, v in failed.items())
            and isinstance(stopped, list) and all(isinstance(r, int) for r in stopped)):
        raise MalformedEvent(f"an error event of {who} lists failed ranks that are not rank numbers and messages")
    if event["event"] == "report" and who != 0:
        raise MalformedEvent(f"a report in rank {who}'s events file; only rank 0 reports")
    if event["event"] == "error" and who != AGENT and event.get("rank") != who:
        raise MalformedEvent(f"an error event in rank {who}'s events file names rank {event.get('rank')!r}")
    if event["event"] == "error" and not isinstance(event.get("time", 0.0), (int, float)):
        raise MalformedEvent(f"an error event of rank {who} has a time that is not a number")
    return event
