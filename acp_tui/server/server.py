"""The headless front end: acp-host-jsonl-v1 over stdin/stdout.

The same host core the TUI embeds, driven by newline-delimited JSON
requests. Every request runs in its own task (a long ``session.prompt``
never blocks a ``session.cancel``), every request gets exactly one
response, and a response is written only after every event committed
before it was written (a channel barrier): the ``session.prompt`` answer
follows the last event of its turn. stdout carries frames only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any

from acp_tui.core.channel import ChannelClosed, EventChannel
from acp_tui.core.errors import HostError
from acp_tui.core.events import Event
from acp_tui.core.framing import FrameReader, FrameTooLarge
from acp_tui.core.host import Host
from acp_tui.server.methods import Methods
from acp_tui.server.stdio import LineSink

log = logging.getLogger(__name__)

MAX_FRAME = 8 * 1024 * 1024
MAX_ID = 2**32 - 1


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


class HeadlessServer:
    def __init__(self, host: Host, methods: Methods, reader: asyncio.StreamReader, sink: LineSink):
        self.host = host
        self.methods = methods
        self._reader = reader
        self._sink = sink
        self._channel: EventChannel = host.attach()
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
            await self._write({"version": 1, "event": event.to_wire()})

    async def _respond(self, rpc_id: int, result: dict[str, Any]) -> None:
        await self._channel.barrier()
        await self._write({"version": 1, "id": rpc_id, "result": result})

    async def _respond_error(self, rpc_id: int, error: HostError) -> None:
        await self._channel.barrier()
        await self._write({"version": 1, "id": rpc_id, "error": error.to_wire()})

    def _error_event(self, code: str, message: str) -> None:
        # Not tied to a session: goes through the hub like every other event.
        self.host.hub.publish(Event("error", {"code": code, "message": message}))

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
            self._channel.close()
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(pump, 5)

    def stop(self) -> None:
        self._stopping.set()

    async def _read_requests(self) -> None:
        frames = FrameReader(self._reader, MAX_FRAME)
        while True:
            frame = await frames.next()
            if frame is None:
                return
            if isinstance(frame, FrameTooLarge):
                self._error_event("frame_too_large", f"a line over {MAX_FRAME} bytes was dropped")
                continue
            self._handle_line(frame)

    def _handle_line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except ValueError:
            self._error_event("protocol_error", "a line is not valid JSON")
            return
        if not isinstance(message, dict):
            self._error_event("protocol_error", "a line is not a JSON object")
            return
        rpc_id = message.get("id")
        if isinstance(rpc_id, bool) or not isinstance(rpc_id, int) or not 0 <= rpc_id <= MAX_ID:
            self._error_event("protocol_error", "a request has no usable id (an integer, u32)")
            return
        task = asyncio.ensure_future(self._run_request(rpc_id, message))
        self._requests[task] = rpc_id
        task.add_done_callback(self._requests.pop)

    async def _run_request(self, rpc_id: int, message: dict[str, Any]) -> None:
        try:
            if message.get("version") != 1:
                raise HostError("protocol_error", "version must be 1")
            method = message.get("method")
            if method == "shutdown":
                await self._shutdown(rpc_id)
                return
            handler = self.methods.table.get(method) if isinstance(method, str) else None
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
