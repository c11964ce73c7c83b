"""The package's own promises: sources given as bytes, str or os.PathLike; Stream fed in
pieces of any size gives what one piece gives; an early finish; a check stopped at a number of
findings; bad options and unreadable paths as Python exceptions; Streams on several threads."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import sjlint
from conftest import REPO, transcript_ids

SAMPLE = REPO / "testdata" / "sample-with-problem.ndjson"
MANY = REPO / "testdata" / "many-findings.ndjson"
AGENT_FILES = sorted((REPO / "testdata" / "agents").rglob("*.ndjson")) + [
    REPO / "testdata" / "sample.ndjson",
    SAMPLE,
    MANY,
]


def dicts(items):
    return [(type(i).__name__, i.as_dict()) for i in items]


def streamed(data: bytes, sizes, **options):
    s = sjlint.Stream(**options)
    items = []
    at = 0
    for n in sizes:
        items += s.feed(data[at : at + n])
        at += n
    items += s.feed(data[at:])
    items += s.finish()
    return dicts(items), s


def test_sources_bytes_str_pathlike_agree():
    data = SAMPLE.read_bytes()
    by_str = sjlint.check(str(SAMPLE))
    by_path = sjlint.check(SAMPLE)
    by_bytes = sjlint.check(data)
    assert by_str and [f.rule for f in by_str] == ["unfinished-tool-call"]
    assert by_str == by_path
    assert {f.file for f in by_str} == {str(SAMPLE)}
    assert {f.file for f in by_bytes} == {"-"}
    strip = lambda fs: [{k: v for k, v in f.as_dict().items() if k != "file"} for f in fs]
    assert strip(by_bytes) == strip(by_str)
    assert sjlint.check(bytearray(data)) == by_bytes
    assert sjlint.check(memoryview(data)) == by_bytes
    assert sjlint.stats(data)["file"] == "-"
    assert sjlint.stats(SAMPLE)["file"] == str(SAMPLE)
    assert sjlint.to_common(data) == sjlint.to_common(SAMPLE)


def test_finding_attributes_are_its_json():
    (f,) = sjlint.check(SAMPLE)
    d = f.as_dict()
    assert list(d) == [
        "file", "line", "column", "end_column", "record", "byte", "rule", "group",
        "severity", "message", "related", "help",
    ]
    assert (f.file, f.line, f.column, f.rule, f.severity, f.message, f.help) == (
        d["file"], d["line"], d["column"], d["rule"], d["severity"], d["message"], d["help"],
    )
    assert (f.line, f.severity, f.rule) == (12, "error", "unfinished-tool-call")
    assert (f.group, f.end_column, f.record, f.byte, f.related) == (
        d["group"], d["end_column"], d["record"], d["byte"], d["related"],
    )
    d["rule"] = "changed"
    assert f.rule == "unfinished-tool-call", "as_dict() is a copy"
    assert "unfinished-tool-call" in repr(f)


def test_unreadable_paths_raise_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        sjlint.check(tmp_path / "absent.ndjson")
    with pytest.raises(FileNotFoundError):
        sjlint.stats(str(tmp_path / "absent.ndjson"))
    with pytest.raises(IsADirectoryError):
        sjlint.check(tmp_path)
    with pytest.raises(TypeError):
        sjlint.check(12)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call",
    [
        lambda: sjlint.check(b"", agent="no-such-agent"),
        lambda: sjlint.Stream(agent="no-such-agent"),
        lambda: sjlint.to_common(b"", agent="no-such-agent"),
        lambda: sjlint.stats(b"", agent="no-such-agent"),
    ],
    ids=["check", "Stream", "to_common", "stats"],
)
def test_bad_agent_is_an_error(call):
    with pytest.raises(sjlint.Error) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert "no-such-agent" in str(e.value)


def test_bad_rule_and_level_are_errors():
    with pytest.raises(sjlint.Error, match="no-such-rule"):
        sjlint.check(b"", select=["no-such-rule"])
    with pytest.raises(sjlint.Error, match="no-such-rule"):
        sjlint.check(b"", ignore="no-such-rule")
    with pytest.raises(sjlint.Error, match="loud"):
        sjlint.check(b"", severity={"unfinished-tool-call": "loud"})


def test_bad_agent_message_names_the_clis_agents(cli):
    # The command line's own message is its argument parser's; the library's names the same
    # agents (the list of `[possible values: ...]`).
    out = cli.run("check", "--isolated", "--agent", "no-such-agent", "-")
    assert out.returncode == 2
    listed = out.stderr.decode().split("[possible values:", 1)[1].split("]", 1)[0]
    agents = [a.strip() for a in listed.split(",")]
    assert "claude" in agents and "codex" in agents
    with pytest.raises(sjlint.Error) as e:
        sjlint.check(b"", agent="no-such-agent")
    for a in agents:
        assert a in str(e.value)


def test_limit_stops_the_check():
    every = sjlint.check(MANY)
    assert len(every) > 3
    assert sjlint.check(MANY, limit=3) == every[:3]
    assert sjlint.check(MANY, limit=0) == []
    assert sjlint.check(MANY, limit=len(every) + 5) == every


@pytest.mark.parametrize("path", AGENT_FILES, ids=transcript_ids)
def test_stream_in_pieces_equals_one_piece(path):
    data = path.read_bytes()
    whole, s = streamed(data, [])
    assert s.finished and s.bytes == len(data)
    rng = random.Random(str(path.name))
    for _ in range(5):
        sizes = [rng.choice([1, 2, 3, 7, 64, 500, 4096]) for _ in range(len(data) // 50 + 1)]
        assert streamed(data, sizes)[0] == whole
    # The stream's findings are check's, its events to_common's, in the transcript's order.
    assert [d for k, d in whole if k == "Finding"] == [f.as_dict() for f in sjlint.check(data)]
    assert [d for k, d in whole if k == "Event"] == sjlint.to_common(data)


def test_stream_items_come_as_records_complete():
    data = (REPO / "testdata" / "agents" / "claude-session.ndjson").read_bytes()
    lines = data.splitlines(keepends=True)
    s = sjlint.Stream()
    got = s.feed(b"".join(lines[:2]))
    # The assistant line's usage is said as it comes, before its tool call.
    assert [(i.type, i.line) for i in got] == [("session_start", 1), ("usage", 2), ("tool_start", 2)]
    # The third record is known when its newline comes, not before.
    assert s.feed(lines[2][:-1]) == []
    assert [(i.type, i.line) for i in s.feed(lines[2][-1:])] == [("tool_end", 3)]


def test_early_finish_is_a_check_of_what_was_fed():
    data = SAMPLE.read_bytes()
    cut = len(data) // 2
    s = sjlint.Stream()
    items = s.feed(data[:cut]) + s.finish()
    assert [d for k, d in dicts(items) if k == "Finding"] == [
        f.as_dict() for f in sjlint.check(data[:cut])
    ]
    assert any(i.rule == "truncated-record" for i in items if isinstance(i, sjlint.Finding))
    with pytest.raises(ValueError):
        s.feed(b"{}\n")
    with pytest.raises(ValueError):
        s.finish()
    assert s.finished


def test_stream_options():
    data = SAMPLE.read_bytes()
    s = sjlint.Stream(ignore=["unfinished-tool-call"])
    items = s.feed(data) + s.finish()
    assert not any(isinstance(i, sjlint.Finding) for i in items)
    s = sjlint.Stream(severity={"unfinished-tool-call": "warning"})
    items = s.feed(data) + s.finish()
    assert [i.severity for i in items if isinstance(i, sjlint.Finding)] == ["warning"]


def test_stream_without_events_gives_the_findings():
    data = MANY.read_bytes()
    s = sjlint.Stream(events=False)
    items = []
    for i in range(0, len(data), 333):
        items += s.feed(data[i : i + 333])
    items += s.finish()
    assert items == sjlint.check(data)
    assert all(isinstance(i, sjlint.Finding) for i in items)


def test_two_threads_feed_two_streams():
    a = (REPO / "testdata" / "agents" / "claude-session.ndjson").read_bytes() * 200
    b = MANY.read_bytes() * 20
    want = {id_: streamed(d, [])[0] for id_, d in (("a", a), ("b", b))}

    def run(d):
        return streamed(d, [997] * (len(d) // 997))[0]

    with ThreadPoolExecutor(2) as pool:
        for _ in range(3):
            fa, fb = pool.submit(run, a), pool.submit(run, b)
            assert fa.result() == want["a"]
            assert fb.result() == want["b"]


def test_asyncio_to_thread():
    paths = AGENT_FILES[:6]

    async def main():
        return await asyncio.gather(*(asyncio.to_thread(sjlint.check, p) for p in paths))

    assert asyncio.run(main()) == [sjlint.check(p) for p in paths]


def test_rules_are_listed():
    names = [r["name"] for r in sjlint.rules()]
    assert "unfinished-tool-call" in names and "invalid-json" in names
    assert len(names) == len(set(names))
    assert all(r["severity"] in ("error", "warning", "info") for r in sjlint.rules())


def test_every_session_says_how_it_ended():
    """The outcome of each Claude Code session, as its `terminal_reason` says, in `to_common`,
    `stats` and the events of a `Stream`; a cut run ends `no_result`."""
    path = REPO / "testdata" / "agents" / "claude" / "terminal-reasons.ndjson"
    import json

    reasons = [
        json.loads(line)["terminal_reason"]
        for line in path.read_text().splitlines()
        if json.loads(line)["type"] == "result"
    ]
    healthy = {"completed": "completed", "max_turns": "max_turns", "hook_stopped": "hook_stopped"}
    ends = [e for e in sjlint.to_common(path) if e["type"] == "end"]
    assert len(ends) == len(reasons)
    for end, reason in zip(ends, reasons):
        if reason in healthy:
            assert end["outcome"] == healthy[reason]
        elif reason not in ("budget_exhausted", "aborted_streaming", "aborted_tools"):
            assert (end["outcome"], end["reason"]) == ("failed", reason)
    outcomes = sjlint.stats(path)["outcomes"]
    assert outcomes["completed"] == 1 and outcomes["max_turns"] == 1

    cut = b"\n".join(
        line for line in path.read_bytes().splitlines()[:3]
    ) + b"\n"
    s = sjlint.Stream(events=True)
    items = s.feed(cut) + s.finish()
    last = [i for i in items if isinstance(i, sjlint.Event)][-1]
    assert (last.type, last["outcome"]) == ("end", "no_result")
