"""A scripted, offline stand-in for the Anthropic Messages API (stdlib only).

Run inside a loopback-only network namespace (see conftest.py):

    unshare -n python mock_anthropic.py --loopback-up --port-file F --log FILE

It listens on 127.0.0.1 (port 0), writes the port to F once it listens, and
appends JSON lines to FILE: one per request on arrival (id, method, path,
body, the reply it chose), and for a Messages request one more when the
stream has ended (id, ``outcome``: ``completed`` or ``aborted`` when the
client went away mid-stream).

Endpoints: ``HEAD /`` (200), ``POST /v1/messages/count_tokens``
(``{"input_tokens": N}``), ``POST /v1/messages`` (streaming SSE).

The reply to a Messages request is decided from the request itself:

* no ``tools``: a side request of Claude Code (title, summary, ...) gets a
  short text;
* the last message is a user message whose own text has a directive line
  ``e2e:VERB ARGS`` (the last such line counts):

  ``e2e:say WORDS...``          stream WORDS, a few words per delta
  ``e2e:recall``                stream what the assistant said earlier in
                                this conversation (proves the history came)
  ``e2e:write REL CONTENT...``  tool_use Write {file_path: CWD/REL, content}
                                (CONTENT may be a JSON string, for newlines)
  ``e2e:bash COMMAND...``       tool_use Bash {command, timeout, description}
  ``e2e:read REL``              tool_use Read {file_path: CWD/REL}
  ``e2e:edit REL OLD NEW``      tool_use Edit {file_path, old_string, new_string}
                                (OLD and NEW: words or JSON strings)
  ``e2e:slow``                  stream for about a minute (for cancels)
  ``e2e:drip DELAY WORDS...``   stream WORDS one per delta, DELAY seconds apart
                                (a model slow to answer)

  CWD is taken from the system prompt's "Primary working directory: …" line
  (Claude Code 2.x; 0.16's bundled Claude Code says "Working directory: …").
  A tool is called ``mcp__acp__Write`` etc. when the request offers that
  name (0.16 routes its file and shell tools through the ACP client).
* no directive, and the last message carries a ``tool_result``: a text that
  quotes it, then ``end_turn``;
* anything else: a short text.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import itertools
import json
import os
import re
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Seconds between two streamed deltas.
DELTA_DELAY = 0.03
#: The slow stream: this many deltas, SLOW_DELAY apart (about a minute).
SLOW_DELTAS = 1200
SLOW_DELAY = 0.05
SIDE_TEXT = "E2E side reply."

#: 0.23 (Claude Code 2.1) says "Primary working directory:", 0.16 "Working directory:".
_CWD_LINE = re.compile(r"(?:Primary working|Working) directory: *(\S+)")
_ids = itertools.count(1)
_log_lock = threading.Lock()


def _text_of(content: Any) -> str:
    """Concatenated text of a message/tool_result ``content`` (str or blocks)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif block.get("type") == "tool_result":
                parts.append(_text_of(block.get("content", "")))
    return "\n".join(parts)


def _tool_results(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def request_cwd(body: dict[str, Any]) -> str | None:
    found = _CWD_LINE.search(_text_of(body.get("system", "")))
    return found.group(1) if found else None


def _own_text(message: dict[str, Any]) -> str:
    """A message's own text blocks (not what tool results quote)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        str(b.get("text", ""))
        for b in content or []
        if isinstance(b, dict) and b.get("type") == "text"
    )


def directive(message: dict[str, Any]) -> tuple[str, str] | None:
    """The last ``e2e:VERB ARGS`` line of a user message's own text.

    The last, not the first: after an interrupted turn Claude Code sends
    what was interrupted (a tool result, the old prompt) and the new prompt
    in one user message."""
    if message.get("role") != "user":
        return None
    lines = [line.strip() for line in _own_text(message).splitlines()]
    found = [line for line in lines if line.startswith("e2e:")]
    if not found:
        return None
    verb, _, args = found[-1][4:].partition(" ")
    return verb, args.strip()


def _assistant_texts(body: dict[str, Any]) -> list[str]:
    return [
        _text_of(m.get("content"))
        for m in body.get("messages", [])
        if m.get("role") == "assistant" and _text_of(m.get("content")).strip()
    ]


Reply = dict[str, Any]  # {"kind": "text", "text", "delay"} | {"kind": "tool", "name", "input"}


def choose_reply(body: dict[str, Any]) -> Reply:
    if not body.get("tools"):
        return {"kind": "text", "text": SIDE_TEXT, "delay": 0.0, "label": "side"}
    messages = body.get("messages", [])
    last: dict[str, Any] = messages[-1] if messages else {}
    found = directive(last)
    if found is None and _tool_results(last):
        result = _text_of(last["content"])
        text = f"The tool said: {result[:400]}"
        return {"kind": "text", "text": text, "delay": DELTA_DELAY, "label": "after-tool"}
    cwd = request_cwd(body) or "."
    if found is None:
        return {"kind": "text", "text": "No directive.", "delay": 0.0, "label": "none"}
    verb, args = found
    if verb == "say":
        return {"kind": "text", "text": args, "delay": DELTA_DELAY, "label": "say"}
    if verb == "recall":
        earlier = " | ".join(_assistant_texts(body)) or "nothing"
        return {
            "kind": "text",
            "text": f"Earlier I said: {earlier}",
            "delay": DELTA_DELAY,
            "label": "recall",
        }
    if verb == "slow":
        return {"kind": "slow", "label": "slow"}
    if verb == "drip":
        delay, _, words = args.partition(" ")
        return {"kind": "drip", "text": words, "delay": float(delay), "label": "drip"}
    if verb == "write":
        rel, _, content = args.partition(" ")
        if content.startswith('"'):
            content = json.loads(content)  # a JSON string: may hold newlines
        return {
            "kind": "tool",
            "name": tool_name(body, "Write"),
            "input": {"file_path": os.path.join(cwd, rel), "content": content},
            "label": "write",
        }
    if verb == "read":
        return {
            "kind": "tool",
            "name": tool_name(body, "Read"),
            "input": {"file_path": os.path.join(cwd, args)},
            "label": "read",
        }
    if verb == "edit":
        rel, old, new = (
            json.loads(part) if part.startswith('"') else part for part in _split3(args)
        )
        return {
            "kind": "tool",
            "name": tool_name(body, "Edit"),
            "input": {"file_path": os.path.join(cwd, rel), "old_string": old, "new_string": new},
            "label": "edit",
        }
    if verb == "bash":
        return {
            "kind": "tool",
            "name": tool_name(body, "Bash"),
            "input": {"command": args, "timeout": 30000, "description": "Run an e2e command"},
            "label": "bash",
        }
    return {"kind": "text", "text": f"Unknown directive {verb}.", "delay": 0.0, "label": "unknown"}


def _split3(args: str) -> list[str]:
    """``REL OLD NEW``: a path, then two words or JSON strings."""
    decoder = json.JSONDecoder()
    parts: list[str] = []
    rest = args.strip()
    while rest and len(parts) < 3:
        if rest.startswith('"'):
            _, end = decoder.raw_decode(rest)
            parts.append(rest[:end])
            rest = rest[end:].lstrip()
        else:
            word, _, rest = rest.partition(" ")
            parts.append(word)
            rest = rest.lstrip()
    return parts


def tool_name(body: dict[str, Any], base: str) -> str:
    """``base`` as the request offers it: 0.16 replaces Claude Code's own
    Read/Write/Edit/Bash with ``mcp__acp__*`` tools that go through the client."""
    names = {t.get("name") for t in body.get("tools", []) if isinstance(t, dict)}
    routed = f"mcp__acp__{base}"
    return routed if routed in names else base


def _chunks(text: str, words: int = 2) -> list[str]:
    pieces = re.findall(r"\S+\s*|\s+", text)
    return ["".join(pieces[i : i + words]) for i in range(0, len(pieces), words)] or [text]


class ClientGone(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: MockServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (quiet)
        pass

    def _record(self, entry: dict[str, Any]) -> None:
        entry["time"] = time.time()
        with _log_lock, open(self.server.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return {}
        return body if isinstance(body, dict) else {}

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self) -> None:
        self._record({"method": "HEAD", "path": self.path})
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._record({"method": "GET", "path": self.path})
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}})

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0]
        body = self._body()
        if path == "/v1/messages/count_tokens":
            self._record({"method": "POST", "path": self.path, "body": body})
            tokens = max(1, len(json.dumps(body.get("messages", []))) // 4)
            self._json(200, {"input_tokens": tokens})
            return
        if path != "/v1/messages":
            self._record({"method": "POST", "path": self.path, "body": body})
            self._json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}}
            )
            return
        reply = choose_reply(body)
        request_id = next(_ids)
        # Recorded on arrival (a test may look while the reply still streams),
        # then once more with how the stream ended.
        self._record(
            {
                "id": request_id,
                "method": "POST",
                "path": self.path,
                "body": body,
                "cwd": request_cwd(body),
                "reply": reply["label"],
            }
        )
        started = time.time()
        outcome = "completed"
        try:
            self._stream(body, reply)
        except (ClientGone, BrokenPipeError, ConnectionResetError):
            outcome = "aborted"
            self.close_connection = True
        self._record(
            {"id": request_id, "outcome": outcome, "seconds": round(time.time() - started, 3)}
        )

    # -- SSE ---------------------------------------------------------------------

    def _event(self, name: str, data: dict[str, Any]) -> None:
        payload = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
            self.wfile.flush()
        except OSError as exc:
            raise ClientGone from exc

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("request-id", f"req_e2e_{next(_ids)}")
        self.end_headers()
        model = body.get("model", "claude-e2e")
        self._event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": f"msg_e2e_{next(_ids)}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": 100,
                        "output_tokens": 1,
                        "cache_creation_input_tokens": 0,
                        "cache_read_input_tokens": 0,
                    },
                },
            },
        )
        stop_reason = "end_turn"
        if reply["kind"] == "tool":
            self._tool_block(reply["name"], reply["input"])
            stop_reason = "tool_use"
        elif reply["kind"] == "slow":
            pieces = [f"slow line {i}.\n" for i in range(SLOW_DELTAS)]
            self._text_block(pieces, SLOW_DELAY)
        elif reply["kind"] == "drip":
            self._text_block(_chunks(reply["text"], words=1), reply["delay"])
        else:
            self._text_block(_chunks(reply["text"]), reply["delay"])
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 20},
            },
        )
        self._event("message_stop", {"type": "message_stop"})
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError as exc:
            raise ClientGone from exc

    def _text_block(self, pieces: list[str], delay: float) -> None:
        self._event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        )
        for piece in pieces:
            if delay:
                time.sleep(delay)
            self._event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})

    def _tool_block(self, name: str, tool_input: dict[str, Any]) -> None:
        self._event(
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": f"toolu_e2e_{next(_ids)}",
                    "name": name,
                    "input": {},
                },
            },
        )
        encoded = json.dumps(tool_input)
        step = max(1, len(encoded) // 3)
        for start in range(0, len(encoded), step):
            time.sleep(DELTA_DELAY)
            self._event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {
                        "type": "input_json_delta",
                        "partial_json": encoded[start : start + step],
                    },
                },
            )
        self._event("content_block_stop", {"type": "content_block_stop", "index": 0})


def loopback_up() -> None:
    """``ip link set lo up`` without iproute2 (SIOCGIFFLAGS / SIOCSIFFLAGS)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    layout = "16sH22x"  # struct ifreq: the name, then ifr_flags in the union
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        current = fcntl.ioctl(sock, siocgifflags, struct.pack(layout, b"lo", 0))
        flags = struct.unpack(layout, current)[1]
        fcntl.ioctl(sock, siocsifflags, struct.pack(layout, b"lo", flags | iff_up))


class MockServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, log_path: str) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.log_path = log_path


def _exit_with_parent() -> None:
    """Stop when the process that started us is gone (a killed test run)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument(
        "--loopback-up",
        action="store_true",
        help="bring the interface lo up first (in a fresh network namespace)",
    )
    args = parser.parse_args(argv)
    if args.loopback_up:
        loopback_up()
    _exit_with_parent()
    server = MockServer(args.log)
    port = server.server_address[1]
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(port))
    os.replace(tmp, args.port_file)
    print(f"mock anthropic listening on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever(poll_interval=0.1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
