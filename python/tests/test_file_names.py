"""A file whose name is not UTF-8 is named in ``check`` and ``stats`` as the command line names
it in ``check --format json`` and ``stats --format json`` (U+FFFD for each broken sequence),
whether its path comes as a str of ``os.fsdecode`` or as bytes through ``os.PathLike``: never a
UnicodeEncodeError, and a name that encodes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import sjlint
from conftest import REPO

# Names that are not UTF-8, each as os.fsencode gives it: a stray byte, a sequence cut short, a
# surrogate's encoding, a four-byte sequence missing its last byte; and one that is UTF-8.
NAMES = [b"x\xff.ndjson", b"cut\xe2\x82.ndjson", b"sur\xed\xa0\x80.ndjson",
         b"four\xf0\x9f\x98.ndjson", b"caf\xc3\xa9.ndjson"]


@pytest.mark.parametrize("name", NAMES, ids=lambda n: n.decode("ascii", "backslashreplace"))
def test_names_not_utf8_as_the_cli_writes_them(cli, tmp_path, name):
    folder = os.fsencode(tmp_path)
    path = os.path.join(folder, name)
    try:
        with open(path, "wb") as f:
            f.write((REPO / "testdata" / "sample-with-problem.ndjson").read_bytes())
    except OSError as e:  # a file system that only takes UTF-8 names
        pytest.skip(f"cannot make a file named {name!r}: {e}")
    (want_stats,) = cli.json("stats", "--isolated", "--format", "json", path)["files"]
    want_check = cli.json("check", "--isolated", "--format", "json", path)
    assert want_check, "the transcript is chosen to have findings"
    # The path as os.fsdecode gives it (a str with surrogate escapes), and as bytes through
    # os.PathLike (what os.scandir of a bytes folder yields).
    (entry,) = [e for e in os.scandir(folder) if e.name == name]
    for given in (os.fsdecode(path), entry):
        assert sjlint.stats(given) == want_stats
        assert [f.as_dict() for f in sjlint.check(given)] == want_check
        assert {f.file for f in sjlint.check(given)} == {want_stats["file"]}
        assert sjlint.to_common(given) == sjlint.to_common(Path(os.fsdecode(path)).read_bytes())
    # Whatever the name, it is a str that encodes (to write it to a file, a table, a page).
    want_stats["file"].encode("utf-8")
