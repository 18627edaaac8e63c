"""The command table: each family module declares the commands cli/__init__.py says it does, and a run
builds (and imports) only the command it names."""

import subprocess
import sys
from pathlib import Path

import pytest

from mldebug_mcp import cli


@pytest.mark.parametrize("family", sorted(cli.FAMILIES))
def test_each_family_declares_exactly_the_commands_the_table_names(family):
    assert tuple(c.name for c in cli.commands(family)) == cli.FAMILIES[family]


def test_command_names_are_unique():
    names = [name for names in cli.FAMILIES.values() for name in names]
    assert len(names) == len(set(names))


def test_help_lists_every_command_and_a_command_gets_only_its_own_parser(run_cli):
    everything = run_cli()
    assert all(name in everything.out for names in cli.FAMILIES.values() for name in names)
    parser = cli._parser(["lint", "x.py"])
    assert list(parser._subparsers._group_actions[0].choices) == ["lint"]


def test_running_a_command_imports_only_its_family():
    example = Path(__file__).resolve().parents[2] / "examples" / "double_softmax" / "buggy.py"
    code = ("import sys, mldebug_mcp.cli as c\n"
            f"c.main(['lint', {str(example)!r}])\n"
            "print('LOADED', *sorted(m for m in sys.modules if m.startswith('mldebug_mcp.cli.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "LOADED mldebug_mcp.cli.common mldebug_mcp.cli.lint", proc.stderr


def test_an_unknown_command_lists_the_known_ones(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["lnit"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "invalid choice: 'lnit'" in err
    assert all(f"'{name}'" in err for names in cli.FAMILIES.values() for name in names)


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_serve_on_a_terminal_says_it_waits_for_a_client(tmp_path):
    # a pseudo-terminal as stdin, as when a person types `mldebug-mcp serve`
    import os
    import pty
    import subprocess
    import sys
    import time

    from mldebug_mcp.cli.serve import WAITING_HINT

    leader, follower = pty.openpty()
    server = subprocess.Popen([sys.executable, "-m", "mldebug_mcp", "serve"], stdin=follower,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    os.close(follower)
    try:
        deadline = time.time() + 60
        err = b""
        os.set_blocking(server.stderr.fileno(), False)
        while WAITING_HINT.encode() not in err and time.time() < deadline and server.poll() is None:
            err += server.stderr.read() or b""
            time.sleep(0.1)
        assert WAITING_HINT.encode() in err
    finally:
        server.kill()
        server.wait()
        os.close(leader)
