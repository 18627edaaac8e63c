"""The lint engine: read, parse once, index once, dispatch rules by node type, filter noqa.

Files of one run share a ProjectIndex (which functions and model classes return an
activation), so a softmax returned by `forward` in model.py is seen by a loss in train.py.
Each file is checked on its own first; a file that asked about a name another file
defines is checked once more with the merged facts. With jobs > 1 the first pass runs in
worker processes.

A notebook's code cells are checked as one module (notebook.py) and each finding is placed back in
its cell: `line` and `col` within the cell, `cell` its number.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import gc
import os
import warnings
from collections import Counter
from pathlib import Path

from ..models.lint import Finding, LintReport
from ..safe_read import UnreadableFile, read_bounded
from .config import SKIP_DIRS, LintSettings
from .context import ModuleContext, among_words, build_context
from .noqa import suppressed
from .notebook import (
    MAX_NOTEBOOK_BYTES,
    NotANotebook,
    NotebookModule,
    in_cells,
    read_notebook,
)
from .project_facts import LocalFacts, ProjectIndex, RunFacts
from .registry import RULES
from .result_cache import ResultCache, outcome_data, outcome_fields, text_key
from .rule import Rule

UNREADABLE = "MLD000"
# Parsing and indexing take about 150 bytes of memory per byte of source; 2 MiB keeps one file under
# about 300 MB. Hand-written Python files are far smaller: only generated code comes near.
MAX_SOURCE_BYTES = 2 << 20
PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
Roots = tuple[Path, ...] | None


def report(findings: list[Finding], files: int, min_severity: str = "info") -> LintReport:
    """The one result type of a lint run, files or source text alike."""
    return LintReport(findings=findings, files=files, counts=dict(Counter(f.code for f in findings)),
                      min_severity=min_severity)


FIX_SOURCE = "Fix the syntax or encoding (UTF-8), or exclude the file in [tool.mldebug] exclude."
FIX_NOT_READ = ("Lint regular files inside the allowed directories; remove the link or special file, or exclude "
                "it in [tool.mldebug] exclude.")
FIX_TOO_COMPLEX = "Exclude generated code in [tool.mldebug] exclude, or split the file into smaller modules."
FIX_NOT_PYTHON = "Name .py, .pyi or .ipynb files, or a folder (walked for them)."
FIX_NOTEBOOK = ("Save the notebook again from Jupyter (File > Save) to repair its JSON, or exclude it in "
                "[tool.mldebug] exclude.")
FIX_FOREIGN_NOTEBOOK = "Lint Python notebooks only, or exclude this one in [tool.mldebug] exclude."


def shown(path: str | Path) -> str:
    """A path as text that every output can carry: bytes of a file name that are not UTF-8 (kept by
    the OS as lone surrogates) become \\xNN escapes instead of breaking JSON and strict terminals."""
    text = os.fspath(path)
    if text.isascii():
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no file name byte produced
        raw = text.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "backslashreplace")


def _problem(path: str, message: str, line: int = 1, col: int = 1, fix: str = FIX_SOURCE) -> Finding:
    return Finding(
        code=UNREADABLE, name="unreadable-file", path=shown(path), line=line, col=col, end_line=line, end_col=col,
        severity="error", message=message, why="A file that cannot be read and parsed cannot be checked for silent "
        "bugs.", fix=fix, evidence="",
    )


def _too_complex(path: str, exc: BaseException) -> Finding:
    reason = "nested too deeply" if isinstance(exc, RecursionError) else "too large to index in memory"
    return _problem(path, f"not checked: the code is {reason} for the checks ({type(exc).__name__}); "
                          "the other files are checked as usual", fix=FIX_TOO_COMPLEX)


def parse_source(source: str, path: str, notebook: bool = False) -> tuple[ModuleContext | None, Finding | None]:
    """The indexed module, or the finding saying why not; a notebook may `await` at top level, as IPython does."""
    flags = ast.PyCF_ONLY_AST | (ast.PyCF_ALLOW_TOP_LEVEL_AWAIT if notebook else 0)
    try:
        with warnings.catch_warnings():  # the user's invalid escapes are theirs to see, not lint's output
            warnings.simplefilter("ignore")
            try:
                tree = compile(source, path, "exec", flags, dont_inherit=True)
            except SyntaxError:
                # py2 is imported when needed: compiling its patterns costs every run start-up time
                from .py2 import without_async_arguments

                legacy = without_async_arguments(source)  # old PyTorch's .cuda(async=True)
                if legacy is None:
                    raise
                tree = compile(legacy, path, "exec", flags, dont_inherit=True)
                source = legacy
    except SyntaxError as exc:
        where = exc.lineno or 1, (exc.offset or 0) + 1
        from .py2 import FIX as FIX_PYTHON2
        from .py2 import MESSAGE as PY2_MESSAGE
        from .py2 import python2_syntax

        what = python2_syntax(source, exc)
        if what is not None:
            return None, _problem(path, PY2_MESSAGE.format(what=what), *where, fix=FIX_PYTHON2)
        from .newer_python import newer_python_problem

        newer = newer_python_problem(source, exc)
        if newer is not None:
            return None, _problem(path, newer[0], *where, fix=newer[1])
        return None, _problem(path, f"syntax error: {exc.msg}", *where)
    except ValueError as exc:  # NUL bytes
        return None, _problem(path, f"cannot parse: {exc}")
    except (RecursionError, MemoryError) as exc:  # absurd nesting or length
        return None, _too_complex(path, exc)
    return build_context(path, source, tree), None


def _read(path: Path, limit: int, roots: Roots, what: str) -> tuple[bytes | None, Finding | None]:
    """The bytes of one regular file of at most `limit` bytes (with `roots`, inside them), or why not."""
    try:
        return read_bounded(path, limit, roots, what), None
    except UnreadableFile as exc:
        return None, _problem(str(path), f"not read: {exc}", fix=FIX_NOT_READ)
    except OSError as exc:
        return None, _problem(str(path), f"cannot read file: {exc.strerror or exc}", fix=FIX_NOT_READ)


def read_source(path: Path, roots: Roots = None) -> tuple[str | None, Finding | None]:
    """The text of one regular file of at most MAX_SOURCE_BYTES; with `roots`, inside them."""
    data, problem = _read(path, MAX_SOURCE_BYTES, roots, "Python file to lint")
    if problem is not None:
        return None, problem
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        return None, _problem(str(path), f"not UTF-8: byte {exc.start} cannot be decoded")


def is_notebook(path: Path) -> bool:
    return path.suffix.lower() == NOTEBOOK_SUFFIX


def read_notebook_module(path: Path, roots: Roots = None) -> tuple[NotebookModule | None, Finding | None]:
    """The code cells of one notebook of at most MAX_NOTEBOOK_BYTES as one module; with `roots`, inside them."""
    data, problem = _read(path, MAX_NOTEBOOK_BYTES, roots, "notebook to lint")
    if problem is not None:
        return None, problem
    try:
        return read_notebook(data), None
    except NotANotebook as exc:
        return None, _problem(str(path), str(exc), fix=FIX_NOTEBOOK)


def active_rules(settings: LintSettings) -> list[Rule]:
    """The selected rules at or above the severity threshold (MLD000, an error, is never filtered); new
    instances for each module (a rule may keep state while it checks one)."""
    return [rule_class() for rule_class in _selected(settings)]


@functools.lru_cache(maxsize=16)
def _selected(settings: LintSettings) -> tuple[type[Rule], ...]:
    # asked once per file: the selection of one run's (frozen, hashable) settings is worked out once
    return tuple(rule_class for rule_class in RULES
                 if settings.enabled(rule_class.code) and settings.shows(rule_class.severity))


def check_module(ctx: ModuleContext, rules: list[Rule]) -> list[Finding]:
    """Run `rules` over one indexed module; findings sorted, noqa applied."""
    by_type: dict[type, list[Rule]] = {}
    rules = [r for r in rules if (not r.requires_text or _has_any_text(ctx, r)) and r.applies(ctx)]
    for rule in rules:
        for node_type in rule.node_types:
            by_type.setdefault(node_type, []).append(rule)
    found: dict[tuple, Finding] = {}
    for node_type, type_rules in by_type.items():
        if node_type is ast.Call and any(r.call_names is not None for r in type_rules):
            _check_calls(ctx, type_rules, found)
            continue
        for node in ctx.by_type.get(node_type, ()):
            for rule in type_rules:
                for hit in rule.check(node, ctx):
                    _add(found, rule, hit, ctx)
    for rule in rules:
        for hit in rule.finish(ctx):
            _add(found, rule, hit, ctx)
    return sorted(found.values(), key=lambda f: (f.line, f.col, f.code))


def _shown(findings: list[Finding], settings: LintSettings) -> list[Finding]:
    """The findings at or above the severity threshold: a rule passes the threshold as a whole (active_rules), but
    one of its hits may be milder than the rule."""
    return findings if settings.severity == "info" else [f for f in findings if settings.shows(f.severity)]


def _has_any_text(ctx: ModuleContext, rule: Rule) -> bool:
    """ctx.has_text for any of the rule's requires_text, inlined: asked for every rule of every file. Each
    distinct text is looked for once per file (the answers are shared with has_text)."""
    answers, words, source = ctx._texts, None, ctx.source
    for text, in_words in _text_places(type(rule)):
        found = answers.get(text)
        if found is None:
            if in_words and words is None:
                words = ctx.code_words
            found = answers[text] = text in (words if in_words else source)
        if found:
            return True
    return False


@functools.cache  # one entry per rule class
def _text_places(rule_class: type) -> tuple[tuple[str, bool], ...]:
    """Each text of requires_text, and whether has_text looks for it among the code's words (a name)."""
    return tuple((t, among_words(t)) for t in rule_class.requires_text)


def _check_calls(ctx: ModuleContext, rules: list[Rule], found: dict) -> None:
    """Each call to the rules that may find something in it (Rule.call_names), in the rules' order: most
    rules look at a few methods or functions, and most calls are none of them."""
    chosen: dict = {}  # a callee's names -> the rules to ask about such a call
    every = [r for r in rules if r.call_names is None]  # what most calls are asked by: no named rule wants them
    tests = [r.call_names for r in rules if callable(r.call_names)]
    listed = set().union(*(r.call_names for r in rules if r.call_names is not None and not callable(r.call_names)))
    attribute, name = ast.Attribute, ast.Name
    for call in ctx.by_type.get(ast.Call, ()):
        callee = call.func
        kind = type(callee)
        if kind is attribute:
            key = callee.attr  # also the last part of its qualified name, when it has one
        elif kind is name:
            qualified = ctx.call_name(call)  # `from torch import log as ln`: `ln` and `log`
            key = callee.id if qualified is None else (callee.id, qualified.rpartition(".")[2])
        else:
            key = None
        call_rules = chosen.get(key)
        if call_rules is None:
            names = {key} if type(key) is str else set(key or ())
            if names.isdisjoint(listed) and not any(test(n) for test in tests for n in names):
                call_rules = chosen[key] = every
            else:
                call_rules = chosen[key] = [r for r in rules if _looks_at(r.call_names, names)]
        for rule in call_rules:
            for hit in rule.check(call, ctx):
                _add(found, rule, hit, ctx)


def _looks_at(wanted, names: set[str]) -> bool:
    if wanted is None:
        return True
    if callable(wanted):  # a test of a name (MLD015: a class name)
        return any(map(wanted, names))
    return not names.isdisjoint(wanted)


def _add(found: dict, rule: Rule, hit, ctx: ModuleContext) -> None:
    node = hit.node
    line = getattr(node, "lineno", 1)
    if suppressed(ctx.lines, line, getattr(node, "end_lineno", line), rule.code):
        return
    finding = Finding(
        code=rule.code, name=rule.name, path=shown(ctx.path), line=line, col=getattr(node, "col_offset", 0) + 1,
        end_line=getattr(node, "end_lineno", line) or line, end_col=(getattr(node, "end_col_offset", 0) or 0) + 1,
        severity=hit.severity or rule.severity, message=hit.message or rule.message, why=rule.why, fix=rule.fix,
        evidence=rule.evidence,
    )
    found.setdefault((finding.code, finding.line, finding.col), finding)


def lint_source(source: str, path: str = "<source>", settings: LintSettings | None = None) -> list[Finding]:
    """Lint one piece of source text on its own."""
    try:
        ctx, problem = parse_source(source, path)
        if problem is not None:
            return [problem]
        ctx.project = ProjectIndex(local=LocalFacts(ctx))
        settings = settings or LintSettings()
        try:
            return _shown(check_module(ctx, active_rules(settings)), settings)
        finally:
            ctx.project = None  # the facts refer to the module: no cycle left to the collector
    except (RecursionError, MemoryError) as exc:
        return [_too_complex(path, exc)]


def collect_files(paths: list[Path], settings: LintSettings) -> tuple[list[Path], list[Finding]]:
    """Python files and notebooks under `paths`, skipping VCS, virtualenv and cache folders and excluded globs.

    Symlinked folders are not entered; symlinked files are yielded and checked when opened. A folder
    that cannot be listed is reported, not skipped in silence, and so is a file named on its own whose
    suffix says it is neither Python nor a notebook (one without a suffix is read as a Python script)."""
    files: list[Path] = []
    problems: list[Finding] = []

    def unlistable(exc: OSError) -> None:
        problems.append(_problem(str(exc.filename), f"folder not read: {exc.strerror or exc}", fix=FIX_NOT_READ))

    for root in paths:
        if root.is_dir():
            for folder, dirnames, filenames in os.walk(root, onerror=unlistable):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info")
                                     and not _excluded(Path(folder) / d, settings))
                files.extend(Path(folder) / f for f in sorted(filenames)
                             if f.endswith((*PYTHON_SUFFIXES, NOTEBOOK_SUFFIX)))
        elif root.suffix and root.suffix.lower() not in (*PYTHON_SUFFIXES, NOTEBOOK_SUFFIX):
            problems.append(_problem(str(root), f"not checked: not a Python file or notebook ({root.suffix}); "
                                                "lint lints .py, .pyi and .ipynb", fix=FIX_NOT_PYTHON))
        elif root.exists() or root.is_symlink():
            files.append(root)  # a file, FIFO or device: opening it decides
        else:
            problems.append(_problem(str(root), "no such file or directory"))
    return [f for f in files if not _excluded(f, settings)], problems


def _excluded(path: Path, settings: LintSettings) -> bool:
    text = path.as_posix()
    return any(fnmatch.fnmatch(text, pattern) or fnmatch.fnmatch(path.name, pattern) for pattern in settings.exclude)


class _FileOutcome:
    __slots__ = ("asked", "findings", "foreign", "key", "path", "returns", "untold")

    def __init__(self, path: Path, findings: list[Finding], returns: dict[str, str], asked: set[str],
                 foreign: bool = False, untold: frozenset[tuple[str, str]] = frozenset()) -> None:
        self.path, self.findings = path, findings
        self.returns = returns  # what this file tells others (LocalFacts: what was computed)
        self.untold = untold  # what it may also tell, not computed yet (LocalFacts.untold): computed when asked
        self.asked = asked  # names this file asked the project about and did not get
        self.foreign = foreign  # a notebook in another language: reported when named, passed over in a walk
        self.key: str | None = None  # the text's digest when this first-pass outcome may be kept (result_cache.py)

    def data(self) -> dict:
        """What the result cache keeps of it."""
        return outcome_data(self.findings, self.returns, self.asked, self.untold)


def _restored(path: Path, data: dict) -> _FileOutcome | None:
    """A kept outcome read back, or None when the entry is not one the cache wrote."""
    fields = outcome_fields(data)
    return None if fields is None else _FileOutcome(path, fields[0], fields[1], fields[2], untold=fields[3])


Known = dict[str, tuple[str, dict]] | None  # kept outcomes: path as given -> (text digest, outcome data)


def _lint_file(path: Path, settings: LintSettings, roots: Roots, index: ProjectIndex | None = None,
               known: Known = None) -> _FileOutcome:
    """One file's outcome; a file too deep or too large for the checks is a finding, not the end of the run."""
    try:
        return _check_file(path, settings, roots, index, known)
    except (RecursionError, MemoryError) as exc:
        return _FileOutcome(path, [_too_complex(str(path), exc)], {}, set())


def _check_file(path: Path, settings: LintSettings, roots: Roots, index: ProjectIndex | None,
                known: Known) -> _FileOutcome:
    source, notebook, outcome = _read_module(path, roots)
    if outcome is not None:
        return outcome
    key = None
    if known is not None and notebook is None:  # read (and allowed) as always: only the parse and checks are saved
        key = text_key(source)
        kept = known.get(str(path))
        restored = _restored(path, kept[1]) if kept is not None and kept[0] == key else None
        if restored is not None:
            return restored
    ctx, outcome = _indexed(path, source, notebook, roots)
    if outcome is not None:
        return outcome
    local = LocalFacts(ctx)
    ctx.project = ProjectIndex(returns=index.returns if index else {}, local=local)
    try:
        findings = in_cells(_shown(check_module(ctx, active_rules(settings)), settings), notebook)
    finally:
        # the facts refer to the module: the cycle would keep every tree of the run alive (no collector runs)
        project, ctx.project = ctx.project, None
    outcome = _FileOutcome(path, findings, local.known, project.asked, untold=local.untold())
    if not ctx.read_beyond:
        outcome.key = key
    return outcome


def _parsed(path: Path, roots: Roots) -> tuple[ModuleContext | None, NotebookModule | None, _FileOutcome | None]:
    """One file read and indexed, with its notebook if it is one; else the outcome that says why not."""
    source, notebook, outcome = _read_module(path, roots)
    if outcome is not None:
        return None, None, outcome
    ctx, outcome = _indexed(path, source, notebook, roots)
    return ctx, notebook, outcome


def _read_module(path: Path, roots: Roots) -> tuple[str | None, NotebookModule | None, _FileOutcome | None]:
    """One file's text, with its notebook if it is one; else the outcome that says why not."""
    notebook = None
    if is_notebook(path):
        notebook, problem = read_notebook_module(path, roots)
        source = notebook.source if notebook is not None else None
        if notebook is not None and not notebook.is_python:
            return None, None, _FileOutcome(path, [_problem(str(path), f"not checked: a {notebook.language} "
                                                                       "notebook; lint checks Python notebooks",
                                                            fix=FIX_FOREIGN_NOTEBOOK)], {}, set(), foreign=True)
    else:
        source, problem = read_source(path, roots)
    if problem is not None:
        return None, None, _FileOutcome(path, in_cells([problem], notebook), {}, set())
    return source, notebook, None


def _indexed(path: Path, source: str, notebook: NotebookModule | None,
             roots: Roots) -> tuple[ModuleContext | None, _FileOutcome | None]:
    ctx, problem = parse_source(source, str(path), notebook is not None)
    if problem is not None:
        return None, _FileOutcome(path, in_cells([problem], notebook), {}, set())
    ctx.roots = roots  # a rule reading a project file beside the module (MLD053's torch pin) stays inside them
    return ctx, None


def _all_told(outcome: _FileOutcome, roots: Roots) -> dict[str, str]:
    """Every fact a file tells, its lazy families included: read and indexed again, as another file asked a key
    they may tell (rare: most keys are asked by the file that tells them, while it is checked)."""
    try:
        ctx, _, problem = _parsed(outcome.path, roots)
        return outcome.returns if problem is not None else ctx.local_returns()
    except (RecursionError, MemoryError):  # the first pass checked it, so only a changed file gets here
        return outcome.returns


def _lint_files(files: list[Path], settings: LintSettings, roots: Roots = None, known: Known = None) -> list[_FileOutcome]:
    return [_lint_file(path, settings, roots, known=known) for path in files]


def _with_project_facts(outcomes: list[_FileOutcome], settings: LintSettings, roots: Roots) -> list[Finding]:
    """Check again the few files that asked about a name another file of the run defines.

    Each file is first checked alone (its tree is freed right after, which keeps memory flat
    and one parse per file for almost every file); cross-file facts are applied afterwards.
    """
    told = RunFacts([o.returns for o in outcomes], [o.untold for o in outcomes],
                    lambda number: _all_told(outcomes[number], roots))
    index = ProjectIndex(returns=told)
    findings: list[Finding] = []
    for outcome in outcomes:
        if any(told.get(name) is not None for name in outcome.asked):
            outcome = _lint_file(outcome.path, settings, roots, index)
        findings.extend(outcome.findings)
    return findings


def lint_paths(paths: list[Path], settings: LintSettings | None = None, jobs: int = 1, roots: Roots = None,
               cache: bool = False) -> LintReport:
    """Lint files and folders; with `roots` every file read must really lie inside them (symlinks included).
    With `cache`, the outcomes of unchanged files are taken from the last runs (result_cache.py)."""
    settings = settings or LintSettings()
    # Trees and indexes hold no reference cycles, so reference counting frees them; the cyclic
    # collector would only rescan millions of live nodes (it more than doubles parse time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _lint_paths(paths, settings, jobs, roots, ResultCache(settings, paths) if cache else None)
    finally:
        if collecting:
            gc.enable()


def _lint_paths(paths: list[Path], settings: LintSettings, jobs: int, roots: Roots,
                cache: ResultCache | None) -> LintReport:
    files, problems = collect_files(paths, settings)
    named = {p for p in paths if not p.is_dir()}
    known = cache.known(files) if cache is not None else None
    jobs = max(1, min(jobs, len(files) or 1))
    if jobs == 1:
        outcomes = _lint_files(files, settings, roots, known)
    else:
        import multiprocessing  # only for --jobs > 1: it costs start-up time

        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        chunks = [files[i::jobs] for i in range(jobs)]
        with multiprocessing.get_context(method).Pool(jobs) as pool:
            checked = pool.starmap(_lint_files, [(c, settings, roots, _known_of(c, known)) for c in chunks])
        # back in the files' order, as with one job: where several files tell the same fact, the last one's counts
        outcomes = [None] * len(files)
        for number, chunk in enumerate(checked):
            outcomes[number::jobs] = chunk
    if cache is not None:  # the first pass's outcomes, before the second pass replaces some
        cache.store([(str(o.path), o.key, o.data()) for o in outcomes if o.key is not None])
    # an R or Julia notebook met in a folder walk is passed over like an .R file; named, it is answered
    outcomes = [o for o in outcomes if not o.foreign or o.path in named]
    findings = problems + _with_project_facts(outcomes, settings, roots)
    findings.sort(key=lambda f: (f.path, f.cell or 0, f.line, f.col, f.code))
    return report(findings, len(outcomes), settings.severity)


def _known_of(files: list[Path], known: Known) -> Known:
    """The kept outcomes of one worker's files: only those travel to it."""
    return None if known is None else {str(p): known[str(p)] for p in files if str(p) in known}
