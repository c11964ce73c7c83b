#!/usr/bin/env python3
"""Many runs at once: lint a folder of agent transcripts with Ray Data, keep the results as
Parquet, and ask DuckDB what they hold.

    python python/examples/ray_many_runs.py DIR [--out OUT] [--address ADDR] [--json]

Each transcript is read by ``ray.data.read_binary_files`` and linted by ``sjlint.check`` and
``sjlint.stats`` in one ``map``; the files' rows and their findings' rows are written as two
Parquet datasets under OUT (``files/`` and ``findings/``), then two DuckDB queries read them:
the findings per rule, and the tokens and cost per agent. ``--json`` prints those results as
one JSON object (what the tests compare with ``sjlint check`` and ``sjlint stats``).

Without ``--address`` (and without RAY_ADDRESS in the environment), Ray starts on this
machine; with either, the same code runs on that cluster, whose workers need the sjlint wheel
installed (see "On a cluster" in docs/python.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Iterator

import duckdb
import ray

import sjlint


def lint_file(row: Dict[str, Any]) -> Dict[str, Any]:
    """One transcript's row: what `sjlint stats` counts, and its findings as JSON text (a
    string column keeps the Parquet schema the same whether a file has findings or none)."""
    data: bytes = row["bytes"]
    path: str = row["path"]
    st = sjlint.stats(data)
    usage = st["usage"]
    findings = [f.as_dict() for f in sjlint.check(data)]
    return {
        "path": path,
        "agent": st["agent"] or "",
        "records": st["records"],
        "bytes": st["bytes"],
        "sessions": st["sessions"],
        # 0 and cost_known false when the transcript states no cost (stats' null).
        "cost_usd": float(st["cost_usd"] or 0.0),
        "cost_known": st["cost_usd"] is not None,
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
        "cache_read_tokens": usage["cache_read_tokens"],
        "cache_write_tokens": usage["cache_write_tokens"],
        "errors": st["findings"]["error"],
        "warnings": st["findings"]["warning"],
        "infos": st["findings"]["info"],
        "findings_json": json.dumps(findings),
    }


def findings_of(row: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
    """One row per finding of a file (every column always set: no all-null column)."""
    for f in json.loads(row["findings_json"]):
        yield {
            "path": row["path"],
            "agent": row["agent"],
            "line": f["line"],
            "rule": f["rule"],
            "group": f["group"],
            "severity": f["severity"],
            "message": f["message"],
        }


PER_RULE = """
    SELECT rule, severity, count(*) AS findings, count(DISTINCT path) AS files
    FROM read_parquet(?) GROUP BY rule, severity ORDER BY findings DESC, rule
"""
PER_AGENT = """
    SELECT agent, count(*) AS files, sum(records) AS records,
           sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
           sum(cache_read_tokens) AS cache_read_tokens,
           sum(cache_write_tokens) AS cache_write_tokens,
           sum(cost_usd) FILTER (WHERE cost_known) AS cost_usd,
           sum(errors) AS errors, sum(warnings) AS warnings
    FROM read_parquet(?) GROUP BY agent ORDER BY agent
"""


def run(folder: Path, out: Path, address: str | None) -> Dict[str, Any]:
    t0 = time.perf_counter()
    # No address and no RAY_ADDRESS: a local Ray on this machine's cores.
    ray.init(address=address, include_dashboard=False, log_to_driver=False,
             configure_logging=False, ignore_reinit_error=True)
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    t_init = time.perf_counter()

    ds = ray.data.read_binary_files(str(folder), include_paths=True)
    linted = ds.map(lint_file).materialize()
    linted.drop_columns(["findings_json"]).write_parquet(str(out / "files"))
    linted.flat_map(findings_of).write_parquet(str(out / "findings"))
    t_ray = time.perf_counter()

    con = duckdb.connect()
    files_glob = str(out / "files" / "*.parquet")
    findings_glob = str(out / "findings" / "*.parquet")
    cols = lambda cur: [d[0] for d in cur.description]
    cur = con.execute(PER_RULE, [findings_glob])
    per_rule = [dict(zip(cols(cur), r)) for r in cur.fetchall()]
    cur = con.execute(PER_AGENT, [files_glob])
    per_agent = [dict(zip(cols(cur), r)) for r in cur.fetchall()]
    t_end = time.perf_counter()
    ray.shutdown()
    return {
        "files": sum(a["files"] for a in per_agent),
        "per_rule": per_rule,
        "per_agent": per_agent,
        "seconds": {
            "ray_init": round(t_init - t0, 3),
            "lint_and_write": round(t_ray - t_init, 3),
            "duckdb": round(t_end - t_ray, 3),
            "total": round(t_end - t0, 3),
        },
    }


def show(result: Dict[str, Any]) -> None:
    print(f"{result['files']} transcripts")
    print("\nfindings per rule")
    for r in result["per_rule"]:
        print(f"  {r['findings']:>6}  {r['severity']:<8} {r['rule']}  ({r['files']} files)")
    print("\ntokens and cost per agent")
    for a in result["per_agent"]:
        cost = "-" if a["cost_usd"] is None else f"${a['cost_usd']:.4f}"
        print(f"  {a['agent'] or '(none)':<10} {a['files']:>5} files  in {a['input_tokens']:>8}"
              f"  out {a['output_tokens']:>8}  cost {cost}")
    s = result["seconds"]
    print(f"\nseconds: ray start {s['ray_init']}, lint + Parquet {s['lint_and_write']}, "
          f"DuckDB {s['duckdb']}, total {s['total']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, help="folder of transcripts")
    ap.add_argument("--out", type=Path, help="Parquet output folder (default: a new temporary one)")
    ap.add_argument("--address", default=None,
                    help="Ray cluster to run on (default: $RAY_ADDRESS, else a local Ray)")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON object")
    a = ap.parse_args()
    out = a.out or Path(tempfile.mkdtemp(prefix="sjlint-parquet-"))
    result = run(a.dir.resolve(), out, a.address)
    if a.json:
        json.dump(result, sys.stdout, default=str)
        print()
    else:
        show(result)
        print(f"Parquet: {out}")


if __name__ == "__main__":
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    main()
