"""A minimal ACP agent that floods pre-serialized text chunks (for benchmarks).

Speaks just enough ACP by hand (initialize, session/new, session/prompt) so
that the agent itself is never the bottleneck: each prompt "flood N" writes N
``agent_message_chunk`` notifications of CHUNK characters in large batches.
"""

from __future__ import annotations

import json
import os
import sys
import time

CHUNK = 20
BATCH = 2000


def send(message: dict[str, object]) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def flood(session_id: str, count: int) -> None:
    prefix = json.dumps(
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id}}
    )[:-2]
    out = sys.stdout.buffer
    batch: list[bytes] = []
    for n in range(count):
        text = f"{n:>{CHUNK - 1}}\n"
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
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
            result = {"sessionId": "flood-1"}
        elif method == "session/prompt":
            text = message["params"]["prompt"][0]["text"]
            flood(message["params"]["sessionId"], int(text.split()[1]))
            result = {"stopReason": "end_turn"}
        elif rpc_id is None:
            continue
        else:
            send({"jsonrpc": "2.0", "id": rpc_id, "error": {"code": -32601, "message": "no"}})
            continue
        send({"jsonrpc": "2.0", "id": rpc_id, "result": result})


if __name__ == "__main__":
    main()
