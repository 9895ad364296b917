"""A thin JSON-RPC 2.0 peer over newline-delimited JSON (ACP's stdio framing).

We own this transport instead of using the SDK's ``Connection`` because of
three things measured in SDK 0.12.1 (../shared/notes/acp-sdk.md): it runs
every incoming message as its own task (updates can be applied out of
order), it has no back-pressure (unbounded incoming tasks and outgoing
queue) and it ignores ``$/cancel_request``. The SDK's schema models are
still what validates and builds every message (see connection.py).

Here:

* Notifications are handled synchronously, in arrival order, inside the
  read loop. After each message the loop waits until the front ends have
  room (``wait_ready``): while they are behind, the agent is not read.
  Reading lines already buffered never suspends, so after
  :data:`READ_SLICE` seconds of it the loop gives the event loop a turn
  (a front end on the same loop takes its input meanwhile).
* Incoming requests start synchronously too: ``on_request`` is a plain
  function that does its bookkeeping at once (a permission is registered on
  its entry before the next message is read) and returns an awaitable that
  finishes in its own task;
  at most ``max_incoming`` run at once, then the read loop waits.
* Outgoing messages go through a bounded :class:`~acp_tui.core.transport.outbox.Outbox`:
  sending never waits for the agent to read (an agent that stops reading
  delays only what is addressed to it, and is reported); past the bound a
  send raises :class:`~acp_tui.core.transport.outbox.OutboxFull`.
* ``$/cancel_request`` ends the matching incoming request (error -32800),
  unless ``on_cancel_request`` handles it (a permission answers cancelled).
* A frame that cannot be used (over ``max_frame``, nested too deep, not
  JSON) is a protocol error for that one frame (json_frames.py), never the
  end of the connection. When it was an answer to one of our requests (its
  id is readable near its start), that request fails with
  :class:`UnreadableAnswer` instead of waiting for ever; when it was a
  request, the agent gets an "invalid request" error for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from acp import RequestError

from acp_tui.core.transport.acp_protocol import INTERNAL_ERROR, INVALID_REQUEST
from acp_tui.core.transport.framing import FrameReader, FrameTooLarge
from acp_tui.core.transport.json_frames import (
    BadFrame,
    decode_frame,
    encode_frame,
    top_level_fields,
)
from acp_tui.core.transport.outbox import DEFAULT_LIMIT, DEFAULT_STUCK_AFTER, Outbox, OutboxFull

log = logging.getLogger(__name__)

RpcId = int | str
RequestHandler = Callable[[str, Any, "RpcId"], Awaitable[Any]]
NotificationHandler = Callable[[str, Any], None]
FrameObserver = Callable[[str, dict[str, Any]], None]

REQUEST_CANCELLED = -32800
DEFAULT_MAX_FRAME = 64 * 1024 * 1024
#: Ids of requests we gave up waiting for, kept so a late answer is not an error.
ABANDONED_IDS = 256
#: Seconds of reading buffered messages before the event loop gets a turn.
READ_SLICE = 0.004


class PeerClosed(Exception):
    """The other side went away; outstanding requests fail with this."""


class UnreadableAnswer(Exception):
    """The answer to a request arrived but could not be read (too large, too deep)."""


class JsonRpcPeer:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        on_request: RequestHandler,
        on_notification: NotificationHandler,
        on_cancel_request: Callable[[RpcId], bool] | None = None,
        on_protocol_error: Callable[[str], None] | None = None,
        has_room: Callable[[], bool] | None = None,
        wait_ready: Callable[[], Awaitable[None]] | None = None,
        max_incoming: int = 64,
        max_frame: int = DEFAULT_MAX_FRAME,
        write_limit: int = DEFAULT_LIMIT,
        stuck_after: float = DEFAULT_STUCK_AFTER,
        on_stuck: Callable[[int, float], None] | None = None,
    ) -> None:
        self._reader = reader
        self._outbox = Outbox(
            writer,
            limit=write_limit,
            stuck_after=stuck_after,
            on_stuck=on_stuck,
        )
        self._abandoned: dict[int, None] = {}
        self._on_request = on_request
        self._on_notification = on_notification
        self._on_cancel_request = on_cancel_request
        self._on_protocol_error = on_protocol_error
        self._has_room = has_room
        self._wait_ready = wait_ready
        self._max_incoming = max_incoming
        self._max_frame = max_frame
        self._next_id = 0
        self._outgoing: dict[int, asyncio.Future[Any]] = {}
        self._incoming: dict[RpcId, asyncio.Task[None]] = {}
        self._incoming_slot = asyncio.Event()
        self._closed: BaseException | None = None
        #: Called with ("out" | "in", message) for every frame, when set.
        self.observer: FrameObserver | None = None

    @property
    def closed(self) -> bool:
        return self._closed is not None

    # -- sending -------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for the agent (never waits for it to read)."""
        data = encode_frame(message)
        try:
            self._outbox.put(data)
        except (OutboxFull, PeerClosed):
            raise
        except Exception as exc:  # the pipe broke
            raise PeerClosed(str(exc)) from exc
        if self.observer is not None:
            self.observer("out", message)

    async def request(self, method: str, params: Any = None) -> Any:
        """Send a request and return its result; raises ``RequestError`` for a
        JSON-RPC error answer and :class:`PeerClosed` when the peer goes away."""
        if self._closed is not None:
            raise self._closed
        rpc_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._outgoing[rpc_id] = future
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
        if params is not None:
            message["params"] = params
        try:
            self._send(message)
            return await future
        except asyncio.CancelledError:
            # Given up on (a timeout): its late answer is not a protocol error.
            self._abandoned[rpc_id] = None
            while len(self._abandoned) > ABANDONED_IDS:
                del self._abandoned[next(iter(self._abandoned))]
            raise
        finally:
            self._outgoing.pop(rpc_id, None)

    async def notify(self, method: str, params: Any = None) -> None:
        if self._closed is not None:
            raise self._closed
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    # -- receiving -----------------------------------------------------------

    async def run(self) -> None:
        """Read and dispatch messages until end of input.

        The owner then calls :meth:`close` with the reason it determines (the
        agent's exit code, say): outstanding requests fail only then."""
        frames = FrameReader(self._reader, self._max_frame)
        clock = time.perf_counter
        slice_end = clock() + READ_SLICE
        while self._closed is None:
            if clock() >= slice_end:
                await asyncio.sleep(0)
                slice_end = clock() + READ_SLICE
            frame = await frames.next()
            if frame is None:
                break
            if isinstance(frame, FrameTooLarge):
                self._unusable(frame.head, f"over {self._max_frame} bytes")
                continue
            try:
                self._dispatch_frame(frame)
            except Exception:  # one bad frame must never end the connection
                log.exception("an agent frame could not be handled")
                self._protocol_error("could not handle a message")
            if self._has_room is not None and not self._has_room():
                assert self._wait_ready is not None
                await self._wait_ready()
            while len(self._incoming) >= self._max_incoming:
                self._incoming_slot.clear()
                await self._incoming_slot.wait()

    def _protocol_error(self, text: str) -> None:
        log.warning("agent protocol error: %s", text)
        if self._on_protocol_error is not None:
            self._on_protocol_error(text)

    def _unusable(self, head: bytes, reason: str) -> None:
        """A frame we dropped: fail or refuse the request it carried, if any."""
        fields = top_level_fields(head)
        rpc_id = fields.get("id")
        method = fields.get("method")
        self._protocol_error(
            f"dropped a message {reason}" + (f" ({method})" if isinstance(method, str) else "")
        )
        if isinstance(method, str):
            if isinstance(rpc_id, int | str) and not isinstance(rpc_id, bool):
                error = {"code": INVALID_REQUEST, "message": f"Invalid request: {reason}"}
                with contextlib.suppress(PeerClosed, OutboxFull):
                    self._send({"jsonrpc": "2.0", "id": rpc_id, "error": error})
            return
        future = self._outgoing.get(rpc_id) if type(rpc_id) is int else None
        if future is not None and not future.done():
            future.set_exception(UnreadableAnswer(f"the answer was {reason}"))

    def _dispatch_frame(self, frame: bytes) -> None:
        if not frame.strip():
            return
        try:
            message = decode_frame(frame)
        except BadFrame as exc:
            if exc.deep:
                self._unusable(frame, exc.reason)
            else:
                self._protocol_error(f"{exc.reason}: {frame[:120]!r}")
            return
        if not isinstance(message, dict):
            self._protocol_error(f"not a JSON object: {frame[:120]!r}")
            return
        if self.observer is not None:
            self.observer("in", message)
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                self._start_request(message["id"], method, message.get("params"))
            elif method == "$/cancel_request":
                self._cancel_incoming(message.get("params"))
            else:
                try:
                    self._on_notification(method, message.get("params"))
                except Exception:
                    log.exception("notification %s failed", method)
                    self._protocol_error(f"could not apply {method}")
            return
        rpc_id = message.get("id")
        future = self._outgoing.get(rpc_id) if isinstance(rpc_id, int) else None
        if future is None and isinstance(rpc_id, int) and rpc_id in self._abandoned:
            del self._abandoned[rpc_id]
            return
        if future is None:
            self._protocol_error(f"response to an unknown request id {rpc_id!r}")
            return
        if future.done():
            return
        if "error" in message:
            error = message["error"] if isinstance(message["error"], dict) else {}
            code = error.get("code")
            future.set_exception(
                RequestError(
                    code if type(code) is int else INTERNAL_ERROR,
                    str(error.get("message", "error")),
                    error.get("data"),
                )
            )
        else:
            future.set_result(message.get("result"))

    def _start_request(self, rpc_id: Any, method: str, params: Any) -> None:
        if not isinstance(rpc_id, int | str):
            self._protocol_error(f"request {method} has an unusable id {rpc_id!r}")
            return
        try:
            awaitable = self._on_request(method, params, rpc_id)
        except Exception as exc:
            awaitable = _failed(exc)
        task = asyncio.ensure_future(self._answer(rpc_id, awaitable))
        self._incoming[rpc_id] = task
        task.add_done_callback(lambda _t: self._finish_incoming(rpc_id))

    def _finish_incoming(self, rpc_id: RpcId) -> None:
        self._incoming.pop(rpc_id, None)
        self._incoming_slot.set()

    async def _answer(self, rpc_id: RpcId, awaitable: Awaitable[Any]) -> None:
        response: dict[str, Any] = {"jsonrpc": "2.0", "id": rpc_id}
        try:
            response["result"] = await awaitable
        except asyncio.CancelledError:
            if self._closed is not None:
                raise
            response["error"] = {"code": REQUEST_CANCELLED, "message": "Request cancelled"}
        except RequestError as exc:
            response["error"] = {"code": exc.code, "message": str(exc)}
            if exc.data is not None:
                response["error"]["data"] = exc.data
        except Exception as exc:
            log.exception("handling an agent request failed")
            response["error"] = {
                "code": INTERNAL_ERROR,
                "message": f"internal error ({type(exc).__name__})",
            }
        with contextlib.suppress(PeerClosed, OutboxFull):
            self._send(response)

    def _cancel_incoming(self, params: Any) -> None:
        rpc_id = params.get("requestId") if isinstance(params, dict) else None
        task = self._incoming.get(rpc_id) if isinstance(rpc_id, int | str) else None
        if task is None or rpc_id is None:
            return
        if self._on_cancel_request is not None and self._on_cancel_request(rpc_id):
            return
        task.cancel()

    def close(self, reason: BaseException) -> None:
        """Fail every outstanding request with ``reason`` and stop answering."""
        if self._closed is not None:
            return
        self._closed = reason
        self._outbox.close(reason)
        for future in self._outgoing.values():
            if not future.done():
                future.set_exception(reason)
        for task in list(self._incoming.values()):
            task.cancel()
        self._incoming_slot.set()

    def incoming_method_ids(self) -> list[RpcId]:
        return list(self._incoming)


async def _failed(exc: Exception) -> Any:
    raise exc
