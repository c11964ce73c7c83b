"""Every call of the package against the command line, on every transcript of testdata/ and of
../shared/corpus: the same findings (as `check --format json`), the same common-form lines (as
`fmt --to common`), the same statistics (as one file of `stats --format json`) and the same
rule table (as `sjlint rules`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import sjlint
from conftest import CORPUS, corpus_files, require_corpus, transcripts_of_testdata, transcript_ids

FILES = transcripts_of_testdata() + corpus_files()


def rel(p: Path) -> str:
    # The path as a user would type it from the repository's root, the command line's cwd.
    return os.path.relpath(p, Path(__file__).resolve().parents[2])


def test_corpus_is_compared():
    require_corpus()
    assert corpus_files(), f"{CORPUS} holds no transcript"


@pytest.mark.parametrize("path", FILES, ids=transcript_ids)
def test_check_matches_cli(cli, path, monkeypatch):
    monkeypatch.chdir(cli_cwd())
    want = cli.json("check", "--isolated", "--format", "json", rel(path))
    got = [f.as_dict() for f in sjlint.check(rel(path))]
    assert got == want
    # Bytes name their file "-", as the command line names its standard input.
    from_stdin = cli.json("check", "--isolated", "--format", "json", "-", stdin=path.read_bytes())
    assert [f.as_dict() for f in sjlint.check(path.read_bytes())] == from_stdin


@pytest.mark.parametrize("path", FILES, ids=transcript_ids)
def test_to_common_matches_cli(cli, path):
    p = cli.run("fmt", "--isolated", "--to", "common", str(path))
    if p.returncode == 2 and b"no agent sjlint knows wrote this stream" in p.stderr:
        # The command line says there is no common form; the library gives no event.
        assert p.stdout == b""
        want = []
    else:
        want = cli.lines("fmt", "--isolated", "--to", "common", str(path))
    got = sjlint.to_common(path)
    assert got == want


@pytest.mark.parametrize("path", FILES, ids=transcript_ids)
def test_stats_matches_cli(cli, path, monkeypatch):
    monkeypatch.chdir(cli_cwd())
    want = cli.json("stats", "--isolated", "--format", "json", rel(path))["files"]
    assert len(want) == 1
    got = sjlint.stats(rel(path))
    assert got == want[0]


def test_rules_match_cli(cli):
    out = cli.run("rules")
    assert out.returncode == 0
    want = []
    for line in out.stdout.decode().splitlines():
        name, group, severity, summary = line.split(None, 3)
        want.append({"name": name, "group": group, "severity": severity, "summary": summary})
    assert sjlint.rules() == want
    assert len(want) > 20


@pytest.mark.parametrize(
    "options,flags",
    [
        ({"agent": "claude"}, ["--agent", "claude"]),
        ({"select": ["framing"]}, ["--select", "framing"]),
        ({"ignore": ["unfinished-tool-call"]}, ["--ignore", "unfinished-tool-call"]),
        (
            {"severity": {"unfinished-tool-call": "warning"}},
            ["--severity", "unfinished-tool-call=warning"],
        ),
    ],
    ids=["agent", "select", "ignore", "severity"],
)
def test_options_match_cli(cli, options, flags, monkeypatch):
    monkeypatch.chdir(cli_cwd())
    for path in ["testdata/sample-with-problem.ndjson", "testdata/many-findings.ndjson"]:
        want = cli.json("check", "--isolated", "--format", "json", *flags, path)
        assert [f.as_dict() for f in sjlint.check(path, **options)] == want


def cli_cwd() -> Path:
    return Path(__file__).resolve().parents[2]
