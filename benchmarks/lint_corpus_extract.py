"""Extract the lint corpus's files from the repositories they come from.

The corpora (benchmarks/lint_corpus/ and the blind splits lint_corpus_blind/, lint_corpus_blind2/) commit only their manifests: one
YAML per case naming the public repository, the commit and the paths. The files themselves are other
projects' code and stay out of this repository; this script writes each case's paths at its commit into
`files/<id>/` of the corpus (ignored by git), which is where the scorer (benchmarks/lint_corpus.py) reads
them.

    python benchmarks/lint_corpus_extract.py --mirrors DIR [--corpus DIR]   # from local bare clones
    python benchmarks/lint_corpus_extract.py --clone DIR [--corpus DIR]     # clone what is missing into DIR

A mirror of owner/name is looked for as DIR/owner+name/repo, DIR/owner+name, DIR/owner/name.git or
DIR/owner/name (bare or not). --clone makes blob-less bare clones from GitHub (network needed) and
reads the same way. Existing files are rewritten; a case whose repository or commit is missing is
listed, and the exit status is 1 when any is.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent
CORPORA = (ROOT / "lint_corpus", ROOT / "lint_corpus_blind", ROOT / "lint_corpus_blind2")


def mirror_of(repo: str, mirrors: Path) -> Path | None:
    owner, name = repo.split("/", 1)
    for candidate in (mirrors / f"{owner}+{name}" / "repo", mirrors / f"{owner}+{name}",
                      mirrors / owner / f"{name}.git", mirrors / owner / name):
        if candidate.is_dir() and _git(candidate, "rev-parse", "--git-dir").returncode == 0:
            return candidate
    return None


def clone(repo: str, into: Path) -> Path | None:
    owner, name = repo.split("/", 1)
    target = into / f"{owner}+{name}"
    if not target.exists():
        done = subprocess.run(["git", "clone", "--quiet", "--bare", "--filter=blob:none",
                               f"https://github.com/{repo}.git", str(target)], capture_output=True)
        if done.returncode != 0:
            return None
    return target


def _git(where: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(where), *args], capture_output=True)


def extract(case: dict, corpus: Path, git_dir: Path) -> str | None:
    """Write the case's files; the problem when one cannot be read at the case's commit."""
    folder = corpus / "files" / case["id"]
    for path in case["paths"]:
        shown = _git(git_dir, "show", f"{case['commit']}:{path}")
        if shown.returncode != 0:
            return f"{path} at {case['commit'][:10]}: {shown.stderr.decode(errors='replace').strip()[:200]}"
        target = folder / path
        if folder.resolve() not in target.resolve().parents:
            return f"{path}: leaves the case folder"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shown.stdout)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--mirrors", type=Path, help="folder of local clones (bare or not)")
    source.add_argument("--clone", type=Path, help="clone missing repositories from GitHub into this folder")
    parser.add_argument("--corpus", type=Path, action="append", help="corpus folder (default: both corpora)")
    args = parser.parse_args()
    problems, written = [], 0
    for corpus in args.corpus or CORPORA:
        for manifest in sorted((corpus / "cases").glob("*.yaml")):
            case = yaml.safe_load(manifest.read_text(encoding="utf-8"))
            git_dir = mirror_of(case["repo"], args.mirrors) if args.mirrors else clone(case["repo"], args.clone)
            problem = "repository not found" if git_dir is None else extract(case, corpus, git_dir)
            if problem:
                problems.append(f"{corpus.name}/{case['id']} ({case['repo']}): {problem}")
            else:
                written += 1
    print(f"extracted {written} cases" + (f"; {len(problems)} not:" if problems else ""))
    for line in problems:
        print(f"  {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
