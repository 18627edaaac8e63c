"""Logging helpers: a console logger and a JSON-lines metrics writer."""
from __future__ import annotations

import json
import logging
import os
import sys
import time
from typing import Any, Dict, Optional

_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def get_logger(name: str = "project", level: str = "INFO") -> logging.Logger:
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter(_FORMAT, datefmt="%H:%M:%S"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.setLevel(getattr(logging, str(level).upper(), logging.INFO))
    return logger


class MetricsWriter:
    """Appends one JSON object per call to ``<run_dir>/metrics.jsonl``."""

    def __init__(self, run_dir: Optional[str], enabled: bool = True):
        self.path = os.path.join(run_dir, "metrics.jsonl") if (run_dir and enabled) else None
        if self.path:
            os.makedirs(run_dir, exist_ok=True)
        self._t0 = time.time()

    def write(self, record: Dict[str, Any]) -> None:
        if not self.path:
            return
        row = {"time_s": round(time.time() - self._t0, 3)}
        for key, value in record.items():
            if hasattr(value, "item"):
                value = value.item()
            row[key] = value
        with open(self.path, "a") as fh:
            fh.write(json.dumps(row) + "\n")


def format_metrics(metrics: Dict[str, Any], precision: int = 4) -> str:
    parts = []
    for key, value in metrics.items():
        if isinstance(value, float):
            parts.append(f"{key}={value:.{precision}f}")
        else:
            parts.append(f"{key}={value}")
    return " ".join(parts)
