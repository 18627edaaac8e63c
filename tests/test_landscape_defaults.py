"""The landscape faces may not import the diagnostics core (test_architecture), so the CLI and the MCP tool
spell the probe's defaults out; this keeps their numbers the core's."""

from __future__ import annotations

import argparse
import inspect

from mldebug_mcp.cli.landscape import _landscape_arguments
from mldebug_mcp.diagnostics.landscape import DEFAULT_GRID, DEFAULT_POINTS, DEFAULT_POWER_ITERATIONS, DEFAULT_SPAN
from mldebug_mcp.server.landscape import loss_landscape


def test_cli_defaults_are_the_cores():
    parser = argparse.ArgumentParser()
    _landscape_arguments(parser)
    defaults = vars(parser.parse_args(["train.py:debug_spec"]))
    found = (defaults["points"], defaults["grid"], defaults["span"], defaults["power_iterations"])
    assert found == (DEFAULT_POINTS, DEFAULT_GRID, DEFAULT_SPAN, DEFAULT_POWER_ITERATIONS)


def test_mcp_tool_defaults_are_the_cores():
    parameters = inspect.signature(loss_landscape).parameters
    found = tuple(parameters[name].default for name in ("points", "grid", "span"))
    assert found == (DEFAULT_POINTS, DEFAULT_GRID, DEFAULT_SPAN)
