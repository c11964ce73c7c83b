"""sjlint from Python: check, normalize and measure the JSON event streams of AI coding-agent CLIs.

This module owns the Python face of the library: what a source is (bytes, or the path of one
file), the ``Finding`` and ``Event`` objects, and the exceptions. The checking itself is the
compiled ``sjlint._native`` (the same code as the ``sjlint`` command line, which this package
does not run); it lets go of the interpreter while it works, so threads and
``asyncio.to_thread`` check several inputs at once. This module must not re-implement a rule,
or change a value the command line would write: every ``as_dict()`` is the command line's JSON.

Values come as deep as the command line reads them (a tool call's arguments nested thousands
of levels): ``_native`` makes the dicts and lists without recursion, and this module copies and
compares them without recursion too, so no call of the package stops at Python's recursion
limit. (Python's own recursive operations on such a value, ``==`` between two dicts, ``repr``,
``json.dumps`` or ``copy.deepcopy``, still do; ``Event``'s ``==`` and ``as_dict()`` do not.)

>>> import sjlint
>>> for f in sjlint.check("run.ndjson"):                       # doctest: +SKIP
...     print(f.line, f.severity, f.rule, f.message)
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._native import Error

__all__ = [
    "Error",
    "Event",
    "Finding",
    "Stream",
    "check",
    "rules",
    "stats",
    "to_common",
]

__version__ = _native.SJLINT_VERSION

Source = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]", "os.PathLike[bytes]"]

# The name `file` takes for bytes given directly, as the command line names its stdin.
STDIN = "-"


def _read(source: Source) -> Tuple[bytes, str]:
    """The bytes of a source and its name in findings: bytes as they are ("-"), a path read
    whole (its name as given, as the command line writes it: a name that is not UTF-8, given
    as bytes or as a str of ``os.fsdecode``, has U+FFFD for each broken sequence). An
    unreadable path raises OSError (FileNotFoundError, ...)."""
    if isinstance(source, bytes):
        return source, STDIN
    if isinstance(source, (bytearray, memoryview)):
        return bytes(source), STDIN
    if isinstance(source, str) or hasattr(source, "__fspath__"):
        path = os.fspath(source)
        with open(path, "rb") as f:
            data = f.read()
        return data, _native.file_name(os.fsencode(path))
    raise TypeError(
        "source must be bytes (the stream itself) or a str or os.PathLike (the path of a file), "
        f"not {type(source).__name__}"
    )


def _names(value: Union[None, str, Iterable[str]], what: str) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    names = list(value)
    for n in names:
        if not isinstance(n, str):
            raise TypeError(f"{what} takes rule or group names (str), not {type(n).__name__}")
    return names


def _levels(severity: Optional[Mapping[str, str]]) -> Optional[List[Tuple[str, str]]]:
    if severity is None:
        return None
    if not isinstance(severity, Mapping):
        raise TypeError("severity takes a dict of rule name -> level, e.g. {'thinking-empty': 'error'}")
    return [(str(rule), str(level)) for rule, level in severity.items()]


class Finding:
    """One finding, as one element of ``sjlint check --format json``.

    ``rule``, ``group``, ``severity`` ("error", "warning" or "info"), ``line`` (1-based),
    ``column`` and ``end_column`` (1-based, or None), ``record`` (1-based, or None when the
    finding is about no record), ``byte`` (offset in the input, or None), ``message``,
    ``related`` (list of dicts), ``help`` (or None), and
    ``file``: the path given (as the command line writes it: U+FFFD for bytes of the name that
    are not UTF-8), or "-" for bytes.
    """

    __slots__ = ("_d",)

    def __init__(self, d: Dict[str, Any]) -> None:
        self._d = d

    @property
    def file(self) -> str:
        return self._d["file"]

    @property
    def rule(self) -> str:
        return self._d["rule"]

    @property
    def group(self) -> str:
        return self._d["group"]

    @property
    def severity(self) -> str:
        return self._d["severity"]

    @property
    def line(self) -> int:
        return self._d["line"]

    @property
    def column(self) -> Optional[int]:
        return self._d.get("column")

    @property
    def end_column(self) -> Optional[int]:
        return self._d.get("end_column")

    @property
    def record(self) -> Optional[int]:
        return self._d.get("record")

    @property
    def byte(self) -> Optional[int]:
        return self._d.get("byte")

    @property
    def message(self) -> str:
        return self._d["message"]

    @property
    def related(self) -> List[Dict[str, Any]]:
        return self._d.get("related", [])

    @property
    def help(self) -> Optional[str]:
        return self._d.get("help")

    def as_dict(self) -> Dict[str, Any]:
        """The finding as ``sjlint check --format json`` writes it (a new dict each call)."""
        return _copy(self._d)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Finding):
            return NotImplemented
        return _equal(self._d, other._d)

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.column, self.rule, self.message))

    def __repr__(self) -> str:
        return (
            f"Finding(file={self.file!r}, line={self.line}, column={self.column}, "
            f"rule={self.rule!r}, severity={self.severity!r}, message={self.message!r})"
        )


class Event:
    """One event in the common form: its line of ``sjlint fmt --to common``.

    ``type`` ("session_start", "tool_start", ...), ``line`` (the line of the transcript it
    comes from) and ``as_dict()``, the whole line; ``event["field"]`` reads one field.
    Values are nested as deep as in the transcript (see the module's documentation).
    """

    __slots__ = ("_d",)

    def __init__(self, d: Dict[str, Any]) -> None:
        self._d = d

    @property
    def type(self) -> str:
        return self._d["type"]

    @property
    def line(self) -> int:
        return self._d["line"]

    def __getitem__(self, key: str) -> Any:
        return self._d[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._d.get(key, default)

    def as_dict(self) -> Dict[str, Any]:
        """The event as its ``fmt --to common`` line (a new dict each call)."""
        return _copy(self._d)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return _equal(self._d, other._d)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Event(type={self.type!r}, line={self.line})"


def _copy(d: Dict[str, Any]) -> Dict[str, Any]:
    """A copy of a JSON value's dicts and lists (their scalars are immutable), of any depth:
    the containers still to fill wait on a list, not on Python's stack."""
    top: Dict[str, Any] = {}
    todo: List[Tuple[Any, Any]] = [(d, top)]
    while todo:
        src, dst = todo.pop()
        pairs = src.items() if type(src) is dict else enumerate(src)
        for k, v in pairs:
            if type(v) is dict:
                new: Any = {}
            elif type(v) is list:
                new = []
            else:
                new = v
            if type(dst) is dict:
                dst[k] = new
            else:
                dst.append(new)
            if new is not v:
                todo.append((v, new))
    return top


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` for JSON values (dicts, lists, scalars), of any depth."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if x is y:
            continue  # as Python's own == of containers: a value is its own equal
        if type(x) is dict and type(y) is dict:
            if x.keys() != y.keys():
                return False
            todo.extend((v, y[k]) for k, v in x.items())
        elif type(x) is list and type(y) is list:
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y))
        elif type(x) in (dict, list) or type(y) in (dict, list):
            return False
        elif x != y:
            return False
    return True


def _findings(found: List[Dict[str, Any]], file: str) -> List[Finding]:
    return [Finding({"file": file, **d}) for d in found]


def _items(kinds: str, found: List[Dict[str, Any]]) -> List[Union[Finding, Event]]:
    out: List[Union[Finding, Event]] = []
    for kind, d in zip(kinds, found):
        out.append(Finding({"file": STDIN, **d}) if kind == "f" else Event(d))
    return out


def check(
    source: Source,
    *,
    agent: Optional[str] = None,
    select: Union[None, str, Sequence[str]] = None,
    ignore: Union[None, str, Sequence[str]] = None,
    severity: Optional[Mapping[str, str]] = None,
    limit: Optional[int] = None,
) -> List[Finding]:
    """The findings of one transcript, in the order ``sjlint check`` reports them.

    ``source`` is the stream's bytes, or the path (str or os.PathLike) of one file.
    ``agent``, ``select``, ``ignore`` and ``severity`` (a dict rule -> level) are the command
    line's ``--agent``, ``--select``, ``--ignore`` and ``--severity RULE=LEVEL``; no
    configuration file is read (as ``--isolated``). ``limit`` stops the check at that many
    findings. Raises ``sjlint.Error`` (a ValueError) for bad options, OSError for a path that
    cannot be read.
    """
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise ValueError("limit is a number of findings, 0 or more")
    data, file = _read(source)
    found, _records, _bytes, _agent = _native.check(
        data, agent, _names(select, "select"), _names(ignore, "ignore"), _levels(severity), limit
    )
    return _findings(found, file)


def to_common(source: Source, *, agent: Optional[str] = None) -> List[Dict[str, Any]]:
    """The transcript in the common form: one dict per line of ``sjlint fmt --to common``,
    nested as deep as the transcript's values."""
    data, _file = _read(source)
    return _native.to_common(data, agent)


def stats(source: Source, *, agent: Optional[str] = None) -> Dict[str, Any]:
    """What one transcript holds: one element of ``sjlint stats --format json``'s "files"
    (records, sessions, events, tool calls, tokens, cost, findings, ...)."""
    data, file = _read(source)
    return _native.stats(data, file, agent)


def rules() -> List[Dict[str, str]]:
    """Every rule as ``sjlint rules`` lists it: name, group, default severity, summary."""
    return [
        {"name": n, "group": g, "severity": s, "summary": m} for n, g, s, m in _native.rules()
    ]


class Stream:
    """A transcript checked as it arrives, in pieces of any size.

    ``feed(data)`` returns the items known so far: each a ``Finding`` (file "-") or an
    ``Event`` in the common form, in the order of the transcript. ``finish()`` returns the last
    ones (the end of the input may complete or break the last record, and end open calls);
    after it, ``feed`` and ``finish`` raise ValueError. ``records``, ``bytes`` and ``agent``
    hold the totals once finished. ``events=False`` gives the findings only: making the
    events is most of a stream's work, so it is then as fast as ``check``. One Stream belongs to one thread at a time; separate
    Streams run side by side on separate threads (the work is done without the GIL).
    """

    def __init__(
        self,
        agent: Optional[str] = None,
        *,
        select: Union[None, str, Sequence[str]] = None,
        ignore: Union[None, str, Sequence[str]] = None,
        severity: Optional[Mapping[str, str]] = None,
        events: bool = True,
    ) -> None:
        self._inner = _native.Stream(
            agent, _names(select, "select"), _names(ignore, "ignore"), _levels(severity),
            bool(events),
        )
        self.records: Optional[int] = None
        self.bytes: Optional[int] = None
        self.agent: Optional[str] = None

    def feed(self, data: Union[bytes, bytearray, memoryview]) -> List[Union[Finding, Event]]:
        if not isinstance(data, bytes):
            if isinstance(data, (bytearray, memoryview)):
                data = bytes(data)
            else:
                raise TypeError(f"feed takes bytes, not {type(data).__name__}")
        return _items(*self._inner.feed(data))

    def finish(self) -> List[Union[Finding, Event]]:
        kinds, found, self.records, self.bytes, self.agent = self._inner.finish()
        return _items(kinds, found)

    @property
    def finished(self) -> bool:
        return bool(self._inner.finished)
