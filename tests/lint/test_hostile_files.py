"""Files a folder walk may meet that must not be followed, block, exhaust memory or end the run.

Each case is a finding (MLD000) for that file while the other files of the run are checked as usual.
"""

from __future__ import annotations

import os
import sys
import threading

import pytest

from mldebug_mcp.errors import UsageError
from mldebug_mcp.lint.engine import MAX_SOURCE_BYTES, UNREADABLE
from mldebug_mcp.safe_read import UnreadableFile, read_bounded
from mldebug_mcp.services.lint import lint
from mldebug_mcp.services.paths import AllowedDirs

BUG = "import torch.nn.functional as F\n\ndef f(x, y):\n    return F.cross_entropy(F.softmax(x, dim=1), y)\n"
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")


@pytest.fixture
def project(tmp_path):
    inside, outside = tmp_path / "project", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.py").write_text(BUG)
    (inside / "ok.py").write_text(BUG)
    return inside, outside


def _within(seconds: float, call):
    """call() in a thread; fails the test instead of hanging it when the call blocks."""
    box: dict = {}
    worker = threading.Thread(target=lambda: box.update(value=call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"the call still runs after {seconds} s"
    return box["value"]


def _by_file(report) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in report.findings:
        found.setdefault(os.path.basename(finding.path), []).append(finding.code)
    return found


def test_a_symlinked_file_leading_outside_is_refused_in_a_folder_walk(project):
    inside, outside = project
    (inside / "link.py").symlink_to(outside / "secret.py")
    report = lint([str(inside)], allowed=AllowedDirs((inside,)))
    assert _by_file(report) == {"link.py": [UNREADABLE], "ok.py": ["MLD001"]}
    refusal = next(f for f in report.findings if f.path.endswith("link.py"))
    assert "outside the allowed directories" in refusal.message


def test_a_symlink_staying_inside_is_followed(project):
    inside, _ = project
    (inside / "alias.py").symlink_to(inside / "ok.py")
    report = lint([str(inside)], allowed=AllowedDirs((inside,)))
    assert _by_file(report) == {"alias.py": ["MLD001"], "ok.py": ["MLD001"]}


def test_without_an_allow_list_the_cli_follows_symlinks_as_given(project):
    inside, outside = project
    (inside / "link.py").symlink_to(outside / "secret.py")
    assert _by_file(lint([str(inside)]))["link.py"] == ["MLD001"]


@posix_only
def test_a_fifo_named_like_source_does_not_block(project):
    inside, _ = project
    os.mkfifo(inside / "pipe.py")
    report = _within(20, lambda: lint([str(inside)], allowed=AllowedDirs((inside,))))
    assert _by_file(report) == {"ok.py": ["MLD001"], "pipe.py": [UNREADABLE]}
    assert "FIFO" in next(f.message for f in report.findings if f.path.endswith("pipe.py"))
    assert _by_file(_within(20, lambda: lint([str(inside / "pipe.py")])))["pipe.py"] == [UNREADABLE]


@posix_only
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_link_to_dev_zero_is_not_read(project):
    inside, _ = project
    (inside / "zero.py").symlink_to("/dev/zero")
    report = _within(20, lambda: lint([str(inside)]))  # even without an allow-list: not a regular file
    assert _by_file(report)["zero.py"] == [UNREADABLE]
    assert "character device" in next(f.message for f in report.findings if f.path.endswith("zero.py"))


def test_a_file_over_the_size_limit_is_a_finding_and_source_text_an_error(project):
    inside, _ = project
    (inside / "huge.py").write_text("x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1))
    report = lint([str(inside)])
    assert _by_file(report) == {"huge.py": [UNREADABLE], "ok.py": ["MLD001"]}
    with pytest.raises(Exception, match="over the .*-byte limit"):
        lint(source="x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1))


def test_a_file_growing_past_the_limit_while_read_is_still_refused(tmp_path, monkeypatch):
    # the size is taken once from fstat; a writer appending afterwards must not slip past the bound
    path = tmp_path / "growing.py"
    path.write_bytes(b"x" * 10)
    real_fstat = os.fstat
    monkeypatch.setattr(os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 5, *real_fstat(fd)[7:])))
    with pytest.raises(UnreadableFile, match="over the 8-byte limit"):
        read_bounded(path, 8)


@pytest.mark.parametrize("name, text", [
    ("ops.py", "x = " + "+".join(["1"] * 6000) + "\n"),
    ("wrappers.py", "\n".join(["def w0(x):\n    return x"]
                              + [f"def w{i}(x):\n    return w{i - 1}(x)" for i in range(1, 350)])
     + "\nimport torch.nn.functional as F\ndef g(x, y):\n    return F.cross_entropy(w349(F.softmax(x, 1)), y)\n"),
    ("nested.py", "x = " + "[" * 2000 + "]" * 2000 + "\n"),
])
def test_code_too_deep_for_the_checks_is_a_finding_and_the_run_goes_on(project, name, text):
    inside, _ = project
    (inside / name).write_text(text)
    report = lint([str(inside)])
    assert _by_file(report)["ok.py"] == ["MLD001"]
    codes = _by_file(report).get(name, [])
    assert codes == [] or codes == [UNREADABLE]  # checked fully, or one finding saying why not
    for finding in report.findings:
        if finding.path.endswith(name):
            assert "exclude" in finding.fix
    assert lint(source=text).files == 1  # source text too: an answer, never a traceback


def test_a_folder_that_cannot_be_listed_is_reported(project, monkeypatch):
    inside, _ = project
    (inside / "locked").mkdir()
    (inside / "locked" / "a.py").write_text(BUG)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = lint([str(inside)])
    assert _by_file(report) == {"locked": [UNREADABLE], "ok.py": ["MLD001"]}
    assert "Permission denied" in next(f.message for f in report.findings if f.path.endswith("locked"))


def test_a_pyproject_outside_the_allowed_directories_is_not_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.mldebug]\nignore = ['MLD001']\n")
    inside = tmp_path / "project"
    inside.mkdir()
    (inside / "ok.py").write_text(BUG)
    assert _by_file(lint([str(inside)])) == {}  # the CLI reads the parent's settings: MLD001 ignored
    assert _by_file(lint([str(inside)], allowed=AllowedDirs((inside,)))) == {"ok.py": ["MLD001"]}


@posix_only
def test_a_file_swapped_for_a_symlink_during_the_run_is_never_read_from_outside(project):
    # A writer flips target.py between a clean file inside and a link to a buggy file outside while
    # lint runs again and again: the check is made on the opened descriptor, so no run may report the
    # outside file's bug (before: 10 of 300 runs did).
    inside, outside = project
    (inside / "ok.py").unlink()
    target, clean, link = inside / "target.py", inside / ".clean", inside / ".link"
    clean.write_text("x = 1\n")
    link.symlink_to(outside / "secret.py")
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            for source in (clean, link):
                spare = inside / f".swap-{source.name}"
                if source.is_symlink():
                    spare.unlink(missing_ok=True)
                    spare.symlink_to(os.readlink(source))
                else:
                    spare.write_text(source.read_text())
                os.replace(spare, target)  # atomic: target is always one or the other

    writer = threading.Thread(target=flip, daemon=True)
    writer.start()
    allowed = AllowedDirs((inside.resolve(),))
    seen: set[str] = set()
    try:
        for _ in range(300):
            try:
                report = lint([str(target)], allowed=allowed, select=["MLD001"])
            except UsageError:  # the path check may refuse a link, or a path changing under it, outright: fine
                seen.add("refused")
                continue
            seen.update(f.code for f in report.findings) or seen.add("clean")
    finally:
        stop.set()
        writer.join(5)
    assert "MLD001" not in seen, "a run read the file outside the allowed directories"


def test_warnings_of_the_linted_code_are_not_printed(tmp_path):
    # an invalid escape is a SyntaxWarning on Python 3.12+, printed on stderr by default
    import subprocess
    import sys

    (tmp_path / "regex.py").write_text('import re\nPATTERN = re.compile("' + "\\" + 'd+")\n')  # an invalid escape
    run = subprocess.run([sys.executable, "-W", "default", "-m", "mldebug_mcp", "lint", "regex.py"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "Warning" not in run.stderr, run.stderr


def _chain(levels: int, calls: int, handed: str) -> str:
    """Helpers that pass a model and a loss down `levels` levels, each calling the next `calls` times."""
    lines = ["import torch.nn as nn", "crit = nn.CrossEntropyLoss()",
             "def f0(m, loss, x, y):\n    return loss(m(x), y) + crit(m(x), y)"]
    for level in range(1, levels + 1):
        body = "\n".join(f"    f{level - 1}({handed})" for _ in range(calls))
        lines.append(f"def f{level}(m, loss, x, y):\n{body}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("handed", ["m, loss, x, y", "m, nn.CrossEntropyLoss(), x, y", "nn.Softmax(), loss, x, y"])
def test_helpers_handing_values_down_many_paths_do_not_explode(tmp_path, handed):
    # Ten levels of a dozen calls each is 12**10 paths: walked per path, the kind analysis never finished.
    import subprocess

    (tmp_path / "deep.py").write_text(_chain(10, 12, handed))
    code = "import sys; from mldebug_mcp.services.lint import lint; lint([sys.argv[1]])"
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "deep.py")], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def test_a_name_reshaped_into_itself_before_its_log_finishes():
    """`v = v.view(...)` then `torch.log(v)`: MLD061 followed v back to that same call forever (a real file of
    HobbitLong/RepDistiller hung the run). Linted in a thread, so a regression fails here instead of hanging."""
    from mldebug_mcp.lint.engine import lint_source

    source = ("import torch\n"
              "def nll(mean, target, scale, eps):\n"
              "    var = torch.log(1.0 + torch.exp(scale)) + eps\n"
              "    var = var.view(1, -1, 1, 1)\n"
              "    return (0.5 * ((mean - target) ** 2 / var + torch.log(var))).mean()\n")
    done: list = []
    worker = threading.Thread(target=lambda: done.append(lint_source(source, "vid.py")), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert done, "linting a self-reshaped name did not finish in 30 s"
