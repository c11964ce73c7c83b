#!/usr/bin/env python3
"""Build a folder of many transcripts for the many-runs example: copies, under distinct names,
of the project's agent transcripts (testdata/agents/*/*.ndjson, testdata/agents/*.ndjson) and
of testdata/*.ndjson, taken in turn until the folder holds COUNT files.

    python python/examples/make_transcripts.py [DIR] [--count 1000]

Without DIR, a new temporary folder is made; its path is the one line printed. The copies are
byte for byte: nothing is generated, so every finding is one the fixtures already have.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[2]


def sources(repo: Path = REPO) -> List[Path]:
    testdata = repo / "testdata"
    found = (
        sorted(testdata.glob("agents/*/*.ndjson"))
        + sorted(testdata.glob("agents/*.ndjson"))
        + sorted(testdata.glob("*.ndjson"))
    )
    if not found:
        raise SystemExit(f"no transcript under {testdata}")
    return found


def build(folder: Path, count: int) -> List[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    src = sources()
    made = []
    for i in range(count):
        s = src[i % len(src)]
        # The agent's folder (or "testdata") and the fixture's name keep the copy recognisable.
        kind = s.parent.name if s.parent.parent.name == "agents" else "testdata"
        dest = folder / f"{i:05d}-{kind}-{s.name}"
        shutil.copyfile(s, dest)
        made.append(dest)
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", type=Path, help="folder to fill (default: a new temporary one)")
    ap.add_argument("--count", type=int, default=1000)
    a = ap.parse_args()
    folder = a.dir or Path(tempfile.mkdtemp(prefix="sjlint-runs-"))
    build(folder, a.count)
    print(folder)


if __name__ == "__main__":
    main()
