"""The many-runs example end to end: a thousand transcripts linted with Ray Data into Parquet,
and DuckDB's totals over it equal to what `sjlint check` and `sjlint stats` say of the same
folder. Prints both wall times (the example's, and `sjlint check DIR`'s) for the record; no
assertion is made on them. Marked many_runs: it needs ray, duckdb and pyarrow."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import REPO

pytestmark = pytest.mark.many_runs
EXAMPLES = REPO / "python" / "examples"
COUNT = int(os.environ.get("SJLINT_MANY_RUNS", "1000"))


def test_ray_duckdb_totals_equal_the_clis(cli, tmp_path):
    pytest.importorskip("ray")
    pytest.importorskip("duckdb")
    folder = tmp_path / "runs"
    subprocess.run([sys.executable, str(EXAMPLES / "make_transcripts.py"), str(folder),
                    "--count", str(COUNT)], check=True, capture_output=True)
    assert len(list(folder.iterdir())) == COUNT

    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    t0 = time.perf_counter()
    p = subprocess.run(
        [sys.executable, str(EXAMPLES / "ray_many_runs.py"), str(folder),
         "--out", str(tmp_path / "parquet"), "--json"],
        capture_output=True, env=env, timeout=900,
    )
    ray_wall = time.perf_counter() - t0
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-4000:]
    got = json.loads(p.stdout.decode().strip().splitlines()[-1])

    t0 = time.perf_counter()
    checked = cli.run("check", "--isolated", "--format", "json", str(folder))
    check_wall = time.perf_counter() - t0
    assert checked.returncode in (0, 1), checked.stderr.decode(errors="replace")
    findings = json.loads(checked.stdout)
    stats = cli.json("stats", "--isolated", "--format", "json", str(folder))

    # Findings per rule: the DuckDB rows against the command line's findings of the folder.
    per_rule = collections.Counter((f["rule"], f["severity"]) for f in findings)
    files_per_rule = collections.defaultdict(set)
    for f in findings:
        files_per_rule[(f["rule"], f["severity"])].add(os.path.basename(f["file"]))
    assert {(r["rule"], r["severity"]): r["findings"] for r in got["per_rule"]} == dict(per_rule)
    assert {(r["rule"], r["severity"]): r["files"] for r in got["per_rule"]} == {
        k: len(v) for k, v in files_per_rule.items()
    }

    # Tokens and cost per agent: the DuckDB rows against the command line's files.
    want = {}
    for f in stats["files"]:
        a = want.setdefault(f["agent"] or "", collections.Counter(files=0))
        a["files"] += 1
        a["records"] += f["records"]
        for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
            a[k] += f["usage"][k]
        a["errors"] += f["findings"]["error"]
        a["warnings"] += f["findings"]["warning"]
        if f["cost_usd"] is not None:
            a["cost_usd"] = a.get("cost_usd", 0.0) + f["cost_usd"]
    assert len(stats["files"]) == COUNT == got["files"]
    for row in got["per_agent"]:
        w = want.pop(row["agent"])
        cost = w.pop("cost_usd", None)
        assert {k: row[k] for k in w} == dict(w), row["agent"]
        assert row["cost_usd"] == (None if cost is None else pytest.approx(cost, rel=1e-9))
    assert not want, f"agents the example lost: {sorted(want)}"
    total = stats["total"]
    assert sum(r["input_tokens"] for r in got["per_agent"]) == total["usage"]["input_tokens"]
    assert sum(r["findings"] for r in got["per_rule"]) == len(findings)

    s = got["seconds"]
    print(
        f"\nmany runs, {COUNT} transcripts: Ray Data + DuckDB {ray_wall:.2f} s wall "
        f"(ray start {s['ray_init']} s, lint + Parquet {s['lint_and_write']} s, "
        f"DuckDB {s['duckdb']} s); `sjlint check DIR` {check_wall:.2f} s"
    )
