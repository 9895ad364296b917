"""A minimal ACP agent that floods pre-serialized text chunks (for benchmarks).

Speaks just enough ACP by hand (initialize, session/new, session/prompt) so
that the agent itself is never the bottleneck. Prompts:

    flood N              N ``agent_message_chunk`` notifications of CHUNK
                         characters, one number a line, in large batches
    stream N SIZE        N chunks of SIZE characters of prose, a paragraph
                         (blank line) every PARAGRAPH chunks; the last chunk
                         ends in ``end-of-stream.``
    entries N            N tool calls, each followed by a line of text: 2N
                         entries in the session's log

Each ``session/new`` gets a session id of its own (several tabs on one agent).

With FLOOD_STAMP_FILE set, the wall-clock time the last chunk was written is
written to that file.
"""

from __future__ import annotations

import json
import os
import sys
import time

CHUNK = 20
BATCH = 2000
PARAGRAPH = 10


def send(message: dict[str, object]) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def numbers(count: int) -> list[str]:
    return [f"{n:>{CHUNK - 1}}\n" for n in range(count)]


def prose(count: int, size: int) -> list[str]:
    """Chunks of ``size`` characters: words, a paragraph break every PARAGRAPH."""
    texts = []
    for n in range(count):
        end = "\n\n" if n % PARAGRAPH == PARAGRAPH - 1 else " "
        word = f"w{n}"
        texts.append(word + "x" * max(size - len(word) - len(end) - 1, 0) + "," + end)
    texts[-1] = texts[-1].rstrip() + " end-of-stream."
    return texts


def updates(count: int) -> list[dict[str, object]]:
    """``entries N``: a finished tool call, then a line of text, N times."""
    out: list[dict[str, object]] = []
    for n in range(count):
        out.append(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": f"call-{n}",
                "title": f"Read file {n}.py",
                "kind": "read",
                "status": "completed",
            }
        )
        text = {"type": "text", "text": f"Step {n}: read it, moving on.\n"}
        out.append({"sessionUpdate": "agent_message_chunk", "content": text})
    return out


def flood(session_id: str, texts: list[str]) -> None:
    chunks = [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": t}}
        for t in texts
    ]
    send_updates(session_id, chunks)


def send_updates(session_id: str, items: list[dict[str, object]]) -> None:
    prefix = json.dumps(
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id}}
    )[:-2]
    out = sys.stdout.buffer
    batch: list[bytes] = []
    for update in items:
        batch.append(f'{prefix}, "update": {json.dumps(update)}}}}}\n'.encode())
        if len(batch) >= BATCH:
            out.write(b"".join(batch))
            batch.clear()
    out.write(b"".join(batch))
    out.flush()
    stamp = os.environ.get("FLOOD_STAMP_FILE")
    if stamp:
        with open(stamp, "w") as f:
            f.write(repr(time.time()))


def main() -> None:
    sessions = 0
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method = message.get("method")
        rpc_id = message.get("id")
        if method == "initialize":
            result: object = {
                "protocolVersion": 1,
                "agentCapabilities": {},
                "agentInfo": {"name": "flood", "version": "1"},
                "authMethods": [],
            }
        elif method == "session/new":
            sessions += 1
            result = {"sessionId": f"flood-{sessions}"}
        elif method == "session/prompt":
            words = message["params"]["prompt"][0]["text"].split()
            session_id = message["params"]["sessionId"]
            if words[0] == "stream":
                flood(session_id, prose(int(words[1]), int(words[2]) if len(words) > 2 else CHUNK))
            elif words[0] == "entries":
                send_updates(session_id, updates(int(words[1])))
            else:
                flood(session_id, numbers(int(words[1])))
            result = {"stopReason": "end_turn"}
        elif rpc_id is None:
            continue
        else:
            send({"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32601, "message": "no"}})
            continue
        send({"jsonrpc": "2.0", "id": rpc_id, "result": result})


if __name__ == "__main__":
    main()
