"""Asyncio streams over the process's own stdin and stdout.

Pipes, sockets and terminals go through the event loop's pipe transports
(real flow control: a stalled reader of our stdout makes ``drain`` wait).
A regular file (``acp-tui --headless --stdio < requests.jsonl > out``) cannot
be used with those, so it gets a thread that feeds the reader, and plain
blocking writes, which a regular file never holds up for long.
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from typing import BinaryIO, Protocol


class LineSink(Protocol):
    async def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class _PipeSink:
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    def close(self) -> None:
        self._writer.close()


class _FileSink:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        pass


def _is_regular_file(stream: BinaryIO) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError):
        return False


async def open_reader(stream: BinaryIO, limit: int) -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit)
    if not _is_regular_file(stream):
        try:
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream)
            return reader
        except (ValueError, OSError):
            pass

    def feed() -> None:
        try:
            while True:
                data = os.read(stream.fileno(), 1 << 16)
                if not data:
                    break
                loop.call_soon_threadsafe(reader.feed_data, data)
        except OSError:
            pass
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=feed, name="stdin-feeder", daemon=True).start()
    return reader


async def open_sink(stream: BinaryIO) -> LineSink:
    loop = asyncio.get_running_loop()
    if not _is_regular_file(stream):
        try:
            transport, protocol = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin, stream
            )
            return _PipeSink(asyncio.StreamWriter(transport, protocol, None, loop))
        except (ValueError, OSError):
            pass
    return _FileSink(stream.fileno())
