"""The headless front end: acp-host-jsonl-v1 over stdin/stdout.

The same host core the TUI embeds, driven by newline-delimited JSON
requests. Every request runs in its own task (a long ``session.prompt``
never blocks a ``session.cancel``), every request gets exactly one
response, and a response is written only after every event committed
before it was written (a channel barrier): the ``session.prompt`` answer
follows the last event of its turn. stdout carries frames only.

No line can take the host down: lines are decoded by core/json_frames.py
(lone surrogates replaced, nesting bounded), a line that is too long or too
deep but names a usable ``id`` near its start gets an error *response* with
that id, and writing a frame never fails on what the frame holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from acp_tui.core import (
    BadFrame,
    ChannelClosed,
    EventChannel,
    FrameReader,
    FrameTooLarge,
    Host,
    HostError,
    decode_frame,
    encode_frame,
    top_level_fields,
)
from acp_tui.server.methods import Method, Methods
from acp_tui.server.stdio import LineSink

log = logging.getLogger(__name__)

MAX_FRAME = 8 * 1024 * 1024
MAX_ID = 2**32 - 1


def usable_id(value: Any) -> int | None:
    """``value`` when it is a request id of this protocol (an integer, u32)."""
    if type(value) is int and 0 <= value <= MAX_ID:
        return value
    return None


def encode(message: dict[str, Any]) -> bytes:
    """``message`` as one line; one that cannot be written becomes an ``internal`` error."""
    try:
        return encode_frame(message)
    except ValueError as exc:
        log.error("a frame could not be written: %s", exc)
        error = {"code": "internal", "message": f"a frame could not be written ({exc})"}
        if "id" in message:
            return encode_frame({"version": 1, "id": message["id"], "error": error})
        return encode_frame({"version": 1, "event": {"type": "error", **error}})


class HeadlessServer:
    def __init__(
        self,
        host: Host,
        methods: Methods,
        reader: asyncio.StreamReader,
        sink: LineSink,
        channel: EventChannel | None = None,
    ):
        self.host = host
        self.methods = methods
        self._reader = reader
        self._sink = sink
        self._channel: EventChannel = host.attach() if channel is None else channel
        self._requests: dict[asyncio.Task[None], int] = {}
        self._stopping = asyncio.Event()
        self._sink_broken = False

    # -- output --------------------------------------------------------------

    async def _write(self, message: dict[str, Any]) -> None:
        if self._sink_broken:
            return
        try:
            await self._sink.write(encode(message))
        except (ConnectionError, OSError, RuntimeError):
            # Whoever reads our stdout is gone: nobody left to serve.
            self._sink_broken = True
            self._stopping.set()

    async def _pump_events(self) -> None:
        while True:
            try:
                event = await self._channel.get()
            except ChannelClosed:
                return
            try:
                wire = event.to_wire()
            except Exception:  # never let one event stop the writer for good
                log.exception("an event could not be written")
                wire = {"type": "error", "code": "internal", "message": "an event was lost"}
            await self._write({"version": 1, "event": wire})

    async def _respond(self, rpc_id: int, result: dict[str, Any]) -> None:
        await self._channel.barrier()
        await self._write({"version": 1, "id": rpc_id, "result": result})

    async def _respond_error(self, rpc_id: int, error: HostError) -> None:
        await self._channel.barrier()
        await self._write({"version": 1, "id": rpc_id, "error": error.to_wire()})

    def _error_event(self, code: str, message: str) -> None:
        # Not tied to a session: reported through the host like every front
        # end's (a flood of bad lines is coalesced: "… and N more like this").
        self.host.report_error(code, message)

    def _answer_error(self, rpc_id: int, error: HostError) -> None:
        """Answer request ``rpc_id`` with ``error`` (in turn, like any response)."""
        task = asyncio.ensure_future(self._respond_error(rpc_id, error))
        self._requests[task] = rpc_id
        task.add_done_callback(self._requests.pop)

    # -- input ---------------------------------------------------------------

    async def serve(self) -> None:
        """Serve until EOF on stdin, a ``shutdown`` request or :meth:`stop`."""
        pump = asyncio.ensure_future(self._pump_events())
        reading = asyncio.ensure_future(self._read_requests())
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            reading.cancel()
            stopping.cancel()
            await self._finish()
            self._release_channel()
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(pump, 5)

    def stop(self) -> None:
        self._stopping.set()

    def _release_channel(self) -> None:
        self._channel.close()

    async def _read_requests(self) -> None:
        frames = FrameReader(self._reader, MAX_FRAME)
        while True:
            frame = await frames.next()
            if frame is None:
                return
            if isinstance(frame, FrameTooLarge):
                # A program waiting for its request's answer must get one.
                text = f"a line over {MAX_FRAME} bytes was dropped"
                rpc_id = usable_id(top_level_fields(frame.head).get("id"))
                if rpc_id is None:
                    self._error_event("frame_too_large", text)
                else:
                    self._answer_error(rpc_id, HostError("frame_too_large", text))
                continue
            self._handle_line(frame)

    def _handle_line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = decode_frame(line)
        except BadFrame as exc:
            rpc_id = usable_id(top_level_fields(line).get("id")) if exc.deep else None
            if rpc_id is None:
                self._error_event("protocol_error", f"a line is {exc.reason}")
            else:
                error = HostError("protocol_error", f"the request is {exc.reason}")
                self._answer_error(rpc_id, error)
            return
        if not isinstance(message, dict):
            self._error_event("protocol_error", "a line is not a JSON object")
            return
        rpc_id = usable_id(message.get("id"))
        if rpc_id is None:
            self._error_event("protocol_error", "a request has no usable id (an integer, u32)")
            return
        task = asyncio.ensure_future(self._run_request(rpc_id, message))
        self._requests[task] = rpc_id
        task.add_done_callback(self._requests.pop)

    async def _run_request(self, rpc_id: int, message: dict[str, Any]) -> None:
        try:
            version = message.get("version")
            if type(version) is not int or version != 1:  # true == 1 in Python
                raise HostError("protocol_error", "version must be 1")
            method = message.get("method")
            if method == "shutdown":
                await self._shutdown(rpc_id)
                return
            handler = self.handler(method) if isinstance(method, str) else None
            if handler is None:
                raise HostError("method_not_found", f"unknown method {method!r}")
            params = message.get("params", {})
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise HostError("invalid_params", "params must be an object")
            result = await handler(params)
        except HostError as exc:
            if self.host.shutting_down and exc.code in ("agent_exited", "not_found"):
                exc = HostError("shutting_down", "the host is shutting down")
            await self._respond_error(rpc_id, exc)
        except Exception as exc:
            log.exception("request %s failed", rpc_id)
            await self._respond_error(rpc_id, HostError("internal", type(exc).__name__))
        else:
            await self._respond(rpc_id, result)

    def handler(self, method: str) -> Method | None:
        """The handler of ``method`` (None: no such method)."""
        return self.methods.table.get(method)

    async def _shutdown(self, rpc_id: int) -> None:
        await self.host.shutdown()
        await self._respond(rpc_id, {})
        self._stopping.set()

    async def _finish(self) -> None:
        """Reap every agent and answer every request still open."""
        await self.host.shutdown()
        pending = [task for task in self._requests if not task.done()]
        if pending:
            # Requests that end on their own (the agent was reaped) answer now.
            await asyncio.wait(pending, timeout=2)
        for task, rpc_id in list(self._requests.items()):
            if not task.done():
                task.cancel()
                await self._write({"version": 1, "id": rpc_id, "error": _shutting_down().to_wire()})


def _shutting_down() -> HostError:
    return HostError("shutting_down", "the host is shutting down")
