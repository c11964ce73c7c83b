"""Shared fixtures of the Python package's tests: the command line to compare with, and the
transcripts to compare on (the project's testdata and, beside the clone, ../shared/corpus).

The command line is found as $SJLINT_BIN, else the debug or release build under
$CARGO_TARGET_DIR or the repository's target/. Without it (or without the corpus) the tests
that need it are skipped with a message, except under CI=true, where they fail.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"
IN_CI = os.environ.get("CI") == "true"
TRANSCRIPT_SUFFIXES = {".ndjson", ".jsonl", ".json", ".log"}


def _find_cli() -> Optional[Path]:
    env = os.environ.get("SJLINT_BIN")
    if env:
        return Path(env)
    targets = []
    if os.environ.get("CARGO_TARGET_DIR"):
        targets.append(Path(os.environ["CARGO_TARGET_DIR"]))
    targets.append(REPO / "target")
    for t in targets:
        for profile in ("debug", "release"):
            p = t / profile / "sjlint"
            if p.is_file():
                return p
    return None


CLI = _find_cli()


def transcripts_of_testdata() -> List[Path]:
    return sorted((REPO / "testdata").rglob("*.ndjson"))


def corpus_files() -> List[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(
        p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in TRANSCRIPT_SUFFIXES
    )


def transcript_ids(p: Path) -> str:
    try:
        return str(p.relative_to(REPO))
    except ValueError:
        return "corpus/" + str(p.relative_to(CORPUS))


class Cli:
    """The sjlint command line, run as a user would (no configuration file: --isolated)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def run(self, *args: str, stdin: Optional[bytes] = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.path), *args],
            input=stdin if stdin is not None else b"",
            capture_output=True,
            cwd=REPO,
            timeout=300,
        )

    def json(self, *args: str, stdin: Optional[bytes] = None):
        p = self.run(*args, stdin=stdin)
        assert p.returncode in (0, 1, 4), (args, p.returncode, p.stderr.decode(errors="replace"))
        return json.loads(p.stdout)

    def lines(self, *args: str, stdin: Optional[bytes] = None):
        p = self.run(*args, stdin=stdin)
        assert p.returncode in (0, 1, 4), (args, p.returncode, p.stderr.decode(errors="replace"))
        return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


@pytest.fixture(scope="session")
def cli() -> Cli:
    if CLI is None or not CLI.is_file():
        msg = "no sjlint binary: build it (cargo build) or set SJLINT_BIN"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    return Cli(CLI)


def require_corpus() -> None:
    if not CORPUS.is_dir():
        msg = f"{CORPUS} is absent: the corpus comparisons did not run"
        if IN_CI:
            pytest.fail(msg + " (required when CI=true)")
        pytest.skip(msg)

