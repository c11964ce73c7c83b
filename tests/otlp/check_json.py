"""Checks that OTLP/JSON written by `sjlint fmt --to otlp` is valid against the official
protobuf definitions (PyPI `opentelemetry-proto`).

Each argument is a file of OTLP/JSON lines (one `ExportTraceServiceRequest` a line). A line is
parsed with `google.protobuf.json_format.Parse(..., ignore_unknown_fields=False)` after the one
rule in which OTLP/JSON departs from protobuf's JSON mapping is applied: trace and span ids are
hex strings, not base64 (they are checked to be lowercase hex of the right length, then handed to
the parser as base64). Any other deviation (a misspelt key, a wrong type, an enum by name) fails
the parse. Prints one line per file, and exits 1 on the first invalid one.
"""

import base64
import json
import re
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)

HEX = re.compile(r"^[0-9a-f]*$")
ID_BYTES = {"traceId": 16, "spanId": 8, "parentSpanId": 8}


def hex_ids_to_base64(node, where):
    """Rewrites every id of `node` from OTLP/JSON's hex to protobuf JSON's base64, in place."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ID_BYTES and isinstance(value, str):
                if not HEX.match(value) or len(value) != 2 * ID_BYTES[key]:
                    raise ValueError(f"{where}: {key} {value!r} is not {ID_BYTES[key]} bytes of lowercase hex")
                node[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                hex_ids_to_base64(value, where)
    elif isinstance(node, list):
        for item in node:
            hex_ids_to_base64(item, where)


def check_line(line, where):
    doc = json.loads(line)
    hex_ids_to_base64(doc, where)
    req = ExportTraceServiceRequest()
    json_format.Parse(json.dumps(doc), req, ignore_unknown_fields=False)
    spans = [s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]
    ids = {s.span_id for s in spans}
    for s in spans:
        if len(s.trace_id) != 16 or len(s.span_id) != 8:
            raise ValueError(f"{where}: span {s.name!r} has ids of the wrong length")
        if s.end_time_unix_nano < s.start_time_unix_nano:
            raise ValueError(f"{where}: span {s.name!r} ends before it starts")
        if s.parent_span_id and s.parent_span_id not in ids:
            raise ValueError(f"{where}: span {s.name!r} has a parent not in the request")
        if not s.name:
            raise ValueError(f"{where}: a span has no name")
    return len(spans)


def main(paths):
    passed = 0
    for path in paths:
        with open(path, encoding="utf-8") as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        if not lines:
            print(f"{path}: no request")
            return 1
        try:
            n = sum(check_line(l, f"{path}:{i + 1}") for i, l in enumerate(lines))
        except (ValueError, json_format.ParseError) as e:
            print(f"{path}: INVALID: {e}")
            print(f"otlp-json: {passed} passed, 1 failed")
            return 1
        passed += 1
        print(f"{path}: valid, {len(lines)} request(s), {n} span(s)")
    print(f"otlp-json: {passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
