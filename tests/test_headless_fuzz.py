"""Issue 12: a fuzz test of the headless protocol against one real host.

Hypothesis writes lines to a real ``acp-tui --headless --stdio`` with an
open connection to an agent that only echoes (tests/agents/
echo_blocks_agent.py): requests with every JSON type in every field (and the
real session and connection ids among them), duplicate ids and duplicate
``id`` keys, lone surrogates, invalid UTF-8 and NUL inside strings, numbers
too big for a double or for Python's integer parsing, nesting thousands
deep; and garbage: raw bytes, NUL bytes, lines cut short, JSON that is not
an object.

The invariant: the host never exits, every line it writes is JSON (no NaN,
no lone surrogate), and every request with a usable id (an integer, u32) is
answered exactly once; nothing else is answered. The example count is
bounded for CI (``ACP_TUI_FUZZ_EXAMPLES``, default 200).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO
from tests.fake_agents import ECHO_AGENT, agent_params

EXAMPLES = int(os.environ.get("ACP_TUI_FUZZ_EXAMPLES", "200"))
MAX_ID = 2**32 - 1
#: Ids the examples use are this far apart per example (so a late or extra
#: answer is told apart from the next example's).
ID_BLOCK = 1000

METHODS = [
    "connection.open",
    "connection.authenticate",
    "connection.close",
    "session.create",
    "session.load",
    "session.list",
    "session.prompt",
    "session.cancel",
    "session.setMode",
    "session.setConfigOption",
    "session.snapshot",
    "permission.decide",
]
PARAM_NAMES = [
    "connectionId",
    "sessionId",
    "agent",
    "cwd",
    "traceFrames",
    "text",
    "prompt",
    "modeId",
    "configId",
    "value",
    "requestId",
    "optionId",
    "cancelled",
    "allowRoots",
    "mcpServers",
    "methodId",
]


# -- JSON text, written by hand (duplicate keys, raw tokens, bad bytes) -----------------


@dataclass(frozen=True)
class Raw:
    """A token written as it is (a number JSON allows but Python reads badly)."""

    text: str


@dataclass(frozen=True)
class BadString:
    """A string with bytes that are not UTF-8 inside it."""

    before: str
    junk: bytes
    after: str


@dataclass(frozen=True)
class Slot:
    """One of an example's own usable ids (its base is added when written)."""

    number: int


@dataclass(frozen=True)
class Members:
    """An object as a list of members (a key may repeat)."""

    items: list[tuple[str, Any]] = field(default_factory=list)


def write(value: Any, base: int = 0) -> bytes:
    if isinstance(value, Slot):
        return str(base + value.number).encode()
    if isinstance(value, Raw):
        return value.text.encode()
    if isinstance(value, BadString):
        return write(value.before)[:-1] + value.junk + write(value.after)[1:]
    if isinstance(value, Members):
        inner = b",".join(write(k) + b":" + write(v, base) for k, v in value.items)
        return b"{" + inner + b"}"
    if isinstance(value, dict):
        return write(Members(list(value.items())), base)
    if isinstance(value, list):
        return b"[" + b",".join(write(v, base) for v in value) + b"]"
    # ensure_ascii: a lone surrogate is written as its \\udXXX escape.
    return json.dumps(value, ensure_ascii=True).encode()


def nested(depth: int) -> Raw:
    """A value nested ``depth`` deep (written as text: no recursion here)."""
    half = depth // 2
    return Raw('{"a":[' * half + "1" + "]}" * half)


texts = st.text(max_size=20) | st.sampled_from(
    ["", "\ud800", "a\udc00b", "\x00", "nul\x00in", "\ud83d\ude00", "\x1b[31m", "\udfff\ud800"]
)
#: Bytes that are not UTF-8 (0x80-0xFF) to put inside a string.
junk = st.binary(min_size=1, max_size=4).map(lambda b: bytes(0x80 | c for c in b))
numbers = st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False)
huge = st.sampled_from(["1e400", "-1e400", "9" * 5000, "-" + "9" * 5000, "1" * 400 + ".5e-3"])
scalars = st.none() | st.booleans() | numbers | texts | huge.map(Raw)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(texts, inner, max_size=4)
        | st.builds(BadString, texts, junk, texts)
    ),
    max_leaves=12,
)
any_value = json_values | st.integers(100, 5000).map(nested)


@dataclass
class Host:
    proc: subprocess.Popen[bytes]
    frames: list[dict[str, Any]] = field(default_factory=list)
    bad_lines: list[bytes] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)
    next_id: int = 10**6
    connection_id: str = ""
    session_id: str = ""
    sent: Counter[int] = field(default_factory=Counter)
    lines_sent: int = 0
    examples: int = 0

    def read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                frame = json.loads(line, parse_constant=_not_json)
            except ValueError:
                self.bad_lines.append(line)
                continue
            with self.changed:
                self.frames.append(frame)
                self.changed.notify_all()

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()
        self.lines_sent += 1

    def answers(self) -> Counter[int]:
        with self.changed:
            return Counter(f["id"] for f in self.frames if "id" in f)

    def wait_until(self, done: Any, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not done():
                left = deadline - time.monotonic()
                assert left > 0, "the host did not answer in time"
                self.changed.wait(left)

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        rpc_id = self.next_id
        self.next_id += 1
        message = {"version": 1, "id": rpc_id, "method": method, "params": params}
        self.send(json.dumps(message).encode())
        self.sent[rpc_id] += 1
        self.wait_until(lambda: any(f.get("id") == rpc_id for f in self.frames))
        return next(f for f in self.frames if f.get("id") == rpc_id)


def _not_json(name: str) -> Any:
    raise ValueError(name)


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    cwd = tmp_path_factory.mktemp("fuzz")
    proc = subprocess.Popen(
        [sys.executable, "-m", "acp_tui", "--headless", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=str(REPO),
        env={**os.environ, "ACP_TUI_LOG_LEVEL": "CRITICAL"},
    )
    running = Host(proc)
    threading.Thread(target=running.read, daemon=True).start()
    agent = agent_params(ECHO_AGENT)
    opened = running.call("connection.open", {"agent": agent, "cwd": str(cwd)})
    running.connection_id = opened["result"]["connectionId"]
    created = running.call("session.create", {"connectionId": running.connection_id})
    running.session_id = created["result"]["sessionId"]
    try:
        yield running
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# -- lines ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    data: bytes
    #: The usable id it must be answered with (None: no answer).
    expects: int | None


@dataclass(frozen=True)
class Request:
    """A request line before its example's ids are known."""

    members: Members

    def line(self, base: int) -> Line:
        last_id = [value for key, value in self.members.items if key == "id"][-1]
        if isinstance(last_id, Slot):
            last_id = base + last_id.number
        expects = last_id if type(last_id) is int and 0 <= last_id <= MAX_ID else None
        return Line(write(self.members, base), expects)


@st.composite
def request_lines(draw: st.DrawFn, connection_id: str, session_id: str) -> Request:
    usable = Slot(draw(st.integers(0, 5)))  # a few ids: duplicates happen
    rpc_id = draw(st.just(usable) | st.just(usable) | any_value | st.integers(-5, 2**40))
    method = draw(st.sampled_from(METHODS) | texts.filter(lambda m: m != "shutdown"))
    params: Any
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from(PARAM_NAMES), max_size=5))
        params = {}
        for name in names:
            params[name] = draw(
                any_value
                | st.just(session_id if name == "sessionId" else connection_id)
                | st.just("text")
            )
        if method == "connection.close" and params.get("connectionId") == connection_id:
            params["connectionId"] = "conn-fuzz"  # keep the fuzzed host's connection
        if method == "connection.open" and "agent" in params:
            # Never start a program the fuzzer made up.
            params["agent"] = draw(
                st.just({"command": "/nonexistent/agent"})
                | json_values.filter(lambda v: not isinstance(v, dict))
            )
    else:
        params = draw(any_value)
    version = draw(st.just(1) | st.just(1) | any_value)
    members: list[tuple[str, Any]] = [
        ("version", version),
        ("id", rpc_id),
        ("method", method),
        ("params", params),
    ]
    members = draw(st.permutations(members))
    if draw(st.integers(0, 9)) == 0:  # a duplicate "id" key: the last one counts
        duplicate = draw(any_value | st.just(usable))
        members.insert(draw(st.integers(0, len(members))), ("id", duplicate))
    return Request(Members(members))


garbage = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b" ")),
    st.binary(max_size=20).map(lambda b: b'{"version":1,"id":' + b.replace(b"\n", b"")),
    json_values.filter(lambda v: not isinstance(v, dict | Members)).map(write),
    st.just(b"\x00\x00\x00"),
    st.just(b'{"version":1,"id":7,"method":"x","params":"\x00"}'),  # a raw NUL: not JSON
)


def garbage_line(data: bytes) -> Line:
    """Garbage is answered only if it happens to be a request after all."""
    try:
        value = json.loads(data.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return Line(data, None)
    rpc_id = value.get("id") if isinstance(value, dict) else None
    usable = type(rpc_id) is int and 0 <= rpc_id <= MAX_ID and value.get("method") != "shutdown"
    return Line(data, rpc_id if usable else None)


@st.composite
def example(draw: st.DrawFn, connection_id: str, session_id: str) -> list[Request | Line]:
    lines: list[Request | Line] = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 3)):
            lines.append(draw(request_lines(connection_id, session_id)))
        else:
            lines.append(garbage_line(draw(garbage)))
    return lines


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_host_survives_anything_and_answers_every_request_once(
    host: Host, data: st.DataObject
) -> None:
    host.examples += 1
    base = host.examples * ID_BLOCK
    drawn = data.draw(example(host.connection_id, host.session_id))
    for item in drawn:
        line = item.line(base) if isinstance(item, Request) else item
        host.send(line.data)
        if line.expects is not None:
            host.sent[line.expects] += 1
    expected = {
        rpc_id: count for rpc_id, count in host.sent.items() if base <= rpc_id < base + ID_BLOCK
    }
    host.wait_until(
        lambda: all(host.answers()[rpc_id] >= count for rpc_id, count in expected.items())
    )
    assert host.proc.poll() is None, "the host exited"
    assert not host.bad_lines, host.bad_lines[:3]


def test_after_the_fuzzing_every_request_was_answered_exactly_once(host: Host) -> None:
    # (Runs after the fuzz test, on the same host.)
    snapshot = host.call("session.snapshot", {"sessionId": host.session_id})
    assert "result" in snapshot
    time.sleep(1.0)  # a late duplicate would have arrived by now
    answers = host.answers()
    assert {i: n for i, n in answers.items() if answers[i] != host.sent.get(i)} == {}
    assert host.proc.poll() is None and not host.bad_lines
    print(
        f"fuzz: {host.examples} examples, {host.lines_sent} lines in"
        f" ({sum(host.sent.values())} requests with a usable id), {len(host.frames)} frames out"
    )
