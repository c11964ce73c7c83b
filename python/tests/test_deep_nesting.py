"""Nothing the command line reads is lost in Python: tool-call arguments nested far deeper than
Python's recursion limit give every call of the package the command line's findings, common
events and statistics, never a RecursionError.

The expected values are the command line's output on the same files. Events are compared as
text: each value the package gives is written back as compact JSON by ``dumps`` below, which
walks it without recursion, and set against the line ``fmt --to common`` wrote; the transcripts
hold only ASCII strings and integers, which both write alike."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List

import pytest

import sjlint

# Far past the interpreter's recursion limit, whatever it is set to (1,000 by default).
DEPTH = max(3_000, 3 * sys.getrecursionlimit())


def nested_object(n: int) -> str:
    return '{"a":' * n + "1" + "}" * n


def nested_array(n: int) -> str:
    return "[" * n + "]" * n


def claude(n: int) -> bytes:
    """A Claude Code session: one call whose `input` is nested `n` deep and completes, one
    whose input holds an array nested `n` deep and never completes (a finding), no result."""
    lines = [
        {"type": "system", "subtype": "init", "cwd": "/work", "session_id": "s1",
         "tools": ["Bash"], "mcp_servers": [], "model": "claude-sonnet-4-5",
         "permissionMode": "default", "apiKeySource": "none", "uuid": "u1"},
        {"type": "assistant", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": "@OBJ"}],
            "usage": {"input_tokens": 12, "output_tokens": 5}},
         "parent_tool_use_id": None, "session_id": "s1"},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
         "parent_tool_use_id": None, "session_id": "s1"},
        {"type": "assistant", "message": {
            "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "tool_use", "id": "toolu_2", "name": "Bash",
                         "input": {"command": "ls", "deep": "@ARR"}}],
            "usage": {"input_tokens": 20, "output_tokens": 4}},
         "parent_tool_use_id": None, "session_id": "s1"},
    ]
    return _lines(lines, n)


def cursor(n: int) -> bytes:
    """A cursor-agent run: a read call whose `args` are nested `n` deep, started and
    completed, and a second one whose args hold a deep array and never completes."""
    sid = "1e2b8f3f-4472-579f-9de0-5bc55ec51b42"

    def call(cid: str, subtype: str, args: Any) -> dict:
        body: dict = {"args": args}
        if subtype == "completed":
            body["result"] = {"success": {"content": "x = 1\n", "isEmpty": False,
                                          "exceededLimit": False, "totalLines": 1,
                                          "fileSize": 6, "path": "a.py"}}
        return {"type": "tool_call", "subtype": subtype, "call_id": cid,
                "tool_call": {"readToolCall": body}, "session_id": sid,
                "timestamp_ms": 1781006400223}

    lines = [
        {"type": "system", "subtype": "init", "apiKeySource": "login", "cwd": "/work",
         "session_id": sid, "model": "gpt-5", "permissionMode": "default"},
        call("call_1", "started", "@OBJ"),
        call("call_1", "completed", "@OBJ"),
        call("call_2", "started", {"path": "a.py", "deep": "@ARR"}),
    ]
    return _lines(lines, n)


def _lines(records: List[dict], n: int) -> bytes:
    text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
    text = text.replace('"@OBJ"', nested_object(n)).replace('"@ARR"', nested_array(n))
    return text.encode()


def dumps(value: Any) -> str:
    """`value` as compact JSON, of any depth: containers are opened and closed from a list of
    what is left to write, not by recursion."""
    out: List[str] = []
    todo: List[Any] = [("value", value)]
    while todo:
        kind, v = todo.pop()
        if kind == "text":
            out.append(v)
        elif type(v) is dict:
            todo.append(("text", "}"))
            for i, (k, item) in reversed(list(enumerate(v.items()))):
                todo.append(("value", item))
                todo.append(("text", ("," if i else "") + json.dumps(k) + ":"))
            out.append("{")
        elif type(v) is list:
            todo.append(("text", "]"))
            for i, item in reversed(list(enumerate(v))):
                todo.append(("value", item))
                if i:
                    todo.append(("text", ","))
            out.append("[")
        else:
            assert v is None or type(v) in (str, int, bool), f"unexpected {type(v)}"
            out.append(json.dumps(v))
    return "".join(out)


def depth(value: Any) -> int:
    """How many containers deep `value` goes (a scalar 0, `[]` 1), without recursion."""
    most = 0
    todo = [(value, 0)]
    while todo:
        v, d = todo.pop()
        if type(v) in (dict, list):
            most = max(most, d + 1)
            todo.extend((x, d + 1) for x in (v.values() if type(v) is dict else v))
    return most


def cli_common(cli, path: Path) -> List[str]:
    out = cli.run("fmt", "--isolated", "--to", "common", str(path))
    assert out.returncode in (0, 1), out.stderr.decode(errors="replace")
    return out.stdout.decode().splitlines()


@pytest.fixture(params=["claude", "cursor"])
def deep_file(request, tmp_path) -> Path:
    path = tmp_path / f"deep-{request.param}.ndjson"
    path.write_bytes({"claude": claude, "cursor": cursor}[request.param](DEPTH))
    return path


def test_deep_to_common_is_the_clis(cli, deep_file):
    want = cli_common(cli, deep_file)
    got = sjlint.to_common(deep_file)
    assert [dumps(e) for e in got] == want
    # The arguments are there, whole: as deep as written (one more level for the `deep` key
    # of the second call).
    starts = [e for e in got if e["type"] == "tool_start"]
    assert [depth(e["args"]) for e in starts] == [DEPTH, DEPTH + 1]
    # Python's own == would stop at its recursion limit on these values: compare as text.
    assert [dumps(e) for e in sjlint.to_common(deep_file.read_bytes())] == want


def test_deep_check_and_stats_are_the_clis(cli, deep_file):
    want = cli.json("check", "--isolated", "--format", "json", str(deep_file))
    assert want, "the transcripts are made to have findings"
    assert [f.as_dict() for f in sjlint.check(deep_file)] == want
    (stats,) = cli.json("stats", "--isolated", "--format", "json", str(deep_file))["files"]
    assert sjlint.stats(deep_file) == stats


@pytest.mark.parametrize("piece", [1 << 20, 4096, 97])
def test_deep_stream_loses_nothing(cli, deep_file, piece):
    data = deep_file.read_bytes()
    s = sjlint.Stream()
    items = []
    for at in range(0, len(data), piece):
        items += s.feed(data[at : at + piece])
    items += s.finish()
    findings = [i.as_dict() for i in items if isinstance(i, sjlint.Finding)]
    events = [i for i in items if isinstance(i, sjlint.Event)]
    assert findings == cli.json("check", "--isolated", "--format", "json", "-", stdin=data)
    want = cli_common(cli, deep_file)
    assert [dumps(e.as_dict()) for e in events] == want
    # An event's own operations go as deep as its values.
    again = sjlint.Stream()
    same = [i for i in again.feed(data) + again.finish() if isinstance(i, sjlint.Event)]
    assert same == events
    deep = next(e for e in events if e.type == "tool_start")
    copy = deep.as_dict()
    copy["args"] = {}
    assert deep != sjlint.Event(copy)
    assert depth(deep["args"]) == DEPTH


def test_deep_as_the_cli_reads_it_and_no_further(cli, tmp_path):
    # Ten times deeper: the command line still reads it (its limit is a record's length, not
    # a depth), so the package does too.
    path = tmp_path / "deeper.ndjson"
    path.write_bytes(claude(DEPTH * 10))
    assert [dumps(e) for e in sjlint.to_common(path)] == cli_common(cli, path)
    assert [f.as_dict() for f in sjlint.check(path)] == cli.json(
        "check", "--isolated", "--format", "json", str(path)
    )


def test_scalars_are_read_as_json_loads_reads_them(cli, tmp_path):
    # The objects are made in Rust now: every kind of scalar an argument can hold, read back
    # from the command line's line by json.loads (shallow here), must come out the same.
    args = (
        '{"big":123456789012345678901234567890,"neg":-5,"zero":-0,"f":1.5e300,"tiny":5e-324,'
        '"frac":0.1,"exp":2E3,"s":"\\u00e9\u00e9\\ud83d\\ude00\\n\\"\\\\\\/\\t\\u0001",'
        '"lone":"\\ud800","lone2":"a\\udc00b","nul":null,"t":true,"no":false,"arr":[1,[],{}],'
        '"":"","dup":1,"dup":2}'
    )
    data = claude(1).replace(b'{"a":1}', args.encode())
    assert args.encode() in data
    path = tmp_path / "scalars.ndjson"
    path.write_bytes(data)
    want = cli.lines("fmt", "--isolated", "--to", "common", str(path))
    got = sjlint.to_common(path)
    assert got == want
    start = next(e for e in got if e["type"] == "tool_start")
    assert start["args"]["lone"] == "\ud800" and start["args"]["dup"] == 2
    s = sjlint.Stream()
    events = [i.as_dict() for i in s.feed(data) + s.finish() if isinstance(i, sjlint.Event)]
    assert events == want
