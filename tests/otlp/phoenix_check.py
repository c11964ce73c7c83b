"""Reads the spans Phoenix stored for the two runs of phoenix.sh and checks them: the span
names of each trace, the kinds Phoenix gives them (TOOL, LLM, AGENT), and that the calls of the
Claude Code subagent have the Task call as their parent. Prints the spans of each trace, one
line each, and exits 1 when a check fails. Phoenix writes what it receives in the background:
the spans are read again for a few seconds until both traces are complete."""

import json
import sys
import time
import urllib.request


def spans(base):
    out, cursor = [], None
    while True:
        url = f"{base}/v1/projects/default/spans?limit=1000"
        if cursor:
            url += f"&cursor={cursor}"
        with urllib.request.urlopen(url, timeout=10) as r:
            page = json.load(r)
        out.extend(page.get("data", []))
        cursor = page.get("next_cursor")
        if not cursor:
            return out


def flat(attrs, prefix=""):
    """Phoenix may give attributes nested by their dotted names: flattened back."""
    out = {}
    for k, v in attrs.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def by_trace(all_spans):
    traces = {}
    for s in all_spans:
        traces.setdefault(s["context"]["trace_id"], []).append(s)
    return traces


def agent_of(trace):
    root = [s for s in trace if not s.get("parent_id")]
    return root[0]["name"] if root else "?"


def show(trace):
    ids = {s["context"]["span_id"]: s["name"] for s in trace}
    for s in sorted(trace, key=lambda s: (s.get("start_time") or "", s["name"])):
        parent = ids.get(s.get("parent_id"), "-")
        print(f"  {s['span_kind']:<6} {s['name']:<32} parent={parent}  status={s.get('status_code')}")


def check(base):
    deadline = time.time() + 30
    while True:
        traces = by_trace(spans(base))
        cursor = [t for t in traces.values() if agent_of(t) == "invoke_agent cursor"]
        claude = [t for t in traces.values() if agent_of(t) == "invoke_agent claude"]
        if cursor and claude and len(cursor[0]) >= 6 and len(claude[0]) >= 8:
            break
        if time.time() > deadline:
            print(f"Phoenix holds {sum(len(t) for t in traces.values())} span(s), not both runs:")
            for t in traces.values():
                show(t)
            print("phoenix: 0 passed, 1 failed")
            return 1
        time.sleep(0.5)
    failures, passed = [], [0]

    def expect(ok, message):
        if ok:
            passed[0] += 1
        else:
            failures.append(message)

    cursor, claude = cursor[0], claude[0]
    for name, trace in (("cursor-agent, parallel calls", cursor), ("Claude Code, subagent", claude)):
        print(f"{name}: trace of {len(trace)} spans")
        show(trace)

    tools = [s for s in cursor if s["name"] == "execute_tool shellToolCall"]
    expect(
        len(tools) == 3 and all(s["span_kind"] == "TOOL" for s in tools),
        f"cursor: 3 TOOL spans of shellToolCall expected, got {[(s['name'], s['span_kind']) for s in tools]}",
    )
    root = [s for s in cursor if not s.get("parent_id")][0]
    expect(root["span_kind"] == "AGENT", f"cursor: the root is {root['span_kind']}, not AGENT")
    expect(
        all(s["parent_id"] == root["context"]["span_id"] for s in tools),
        "cursor: the parallel calls are not children of the root",
    )
    expect(any(s["span_kind"] == "LLM" for s in cursor), "cursor: no LLM (chat) span")

    task = [s for s in claude if s["name"] == "execute_tool Task"]
    inner = [s for s in claude if s["name"] in ("execute_tool Read", "execute_tool Bash")]
    expect(
        len(task) == 1 and len(inner) == 2,
        f"claude: one Task and two subagent calls expected, got {len(task)} and {len(inner)}",
    )
    task_id = task[0]["context"]["span_id"] if task else None
    expect(
        bool(inner) and all(s["parent_id"] == task_id for s in inner),
        "claude: the subagent's calls are not children of the Task call",
    )
    bash = [s for s in inner if s["name"] == "execute_tool Bash"]
    expect(
        bool(bash) and bash[0].get("status_code") == "ERROR",
        "claude: the failed Bash call is not ERROR",
    )
    root = [s for s in claude if not s.get("parent_id")][0]
    attrs = flat(root.get("attributes", {}))
    expect(
        attrs.get("gen_ai.usage.input_tokens") == 175 and attrs.get("gen_ai.usage.output_tokens") == 36,
        f"claude: tokens of the root are not 175 in, 36 out: {attrs.get('gen_ai.usage.input_tokens')}, {attrs.get('gen_ai.usage.output_tokens')}",
    )
    expect(
        attrs.get("gen_ai.conversation.id") == "9c1e4b7a-sub-agent-run",
        "claude: the root has not the session id as gen_ai.conversation.id",
    )
    for f in failures:
        print(f"FAILED: {f}")
    print(f"phoenix: {passed[0]} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1]))
