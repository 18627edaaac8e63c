"""One service call in a process of its own: `python -m mldebug_mcp.services.worker`.

Reads a pickled (function, args, kwargs) from stdin, writes a pickled ("ok", value) or ("error",
exception) to stdout and exits, so the memory of the call goes back to the system. The server
starts a worker before it is needed (server/workers.py); the services are imported while it waits.
"""

from __future__ import annotations

import os
import pickle
import sys

from ..errors import MldebugError

PRELOAD = ("lint", "curves")


def _portable(exc: BaseException) -> BaseException:
    """The exception itself if it survives a pickle round trip; else our base error with its message."""
    try:
        pickle.loads(pickle.dumps(exc))  # trusted: our own bytes
        return exc
    except Exception:  # noqa: BLE001 - any failure to round-trip means: send the message instead
        return MldebugError(f"{type(exc).__name__}: {exc}")


def main() -> int:
    answer = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever the call prints goes to stderr, never into the answer
    from importlib import import_module

    for name in PRELOAD:
        import_module(f"{__package__}.{name}")
    request = sys.stdin.buffer.read()
    if not request:
        return 0  # the server went away before it needed this spare
    function, args, kwargs = pickle.loads(request)  # trusted: the server's own request, over a private pipe
    try:
        outcome = ("ok", function(*args, **kwargs))
    except Exception as exc:  # noqa: BLE001 - every error of the call goes back to the server
        outcome = ("error", _portable(exc))
    with answer:
        answer.write(pickle.dumps(outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())
