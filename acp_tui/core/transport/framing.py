"""Reading newline-delimited frames with a size limit and a small read-ahead.

Shared by the agent transport (agent stdout) and the headless server (its
stdin). asyncio's ``StreamReader.readuntil`` ties two things together: the
longest line it accepts and how far it reads ahead (the transport is paused
only past twice that limit). Accepting 64 MiB lines that way would let 128
MiB of an agent's output pile up in memory while the host is not reading it.
So the reader here is created with a small limit (little read-ahead) and
lines are assembled in our own buffer, up to ``max_frame`` bytes; a longer
line is reported once as :class:`FrameTooLarge` (with its first
:data:`HEAD_BYTES`, where a request's id usually is) and the rest of it is
discarded, so the next line is read normally.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

#: What the underlying StreamReader may buffer ahead (it pauses past twice this).
READ_AHEAD = 256 * 1024
_READ_SIZE = 64 * 1024
#: How much of a discarded line is kept (to answer the request it carried).
HEAD_BYTES = 16 * 1024


@dataclass(frozen=True, slots=True)
class FrameTooLarge:
    """A line longer than the limit was discarded; ``head`` is how it began."""

    head: bytes = b""


class FrameReader:
    def __init__(self, reader: asyncio.StreamReader, max_frame: int) -> None:
        self._reader = reader
        self._max_frame = max_frame
        self._buffer = bytearray()
        self._start = 0  # where the unread part of _buffer begins
        self._eof = False

    async def next(self) -> bytes | FrameTooLarge | None:
        """The next line (without its ``\\n``), FrameTooLarge, or None at the end."""
        head: bytes | None = None  # set while discarding a line too long
        while True:
            buffer = self._buffer
            end = buffer.find(b"\n", self._start)
            if end >= 0:
                line = bytes(buffer[self._start : end])
                self._start = end + 1
                if self._start > _READ_SIZE:
                    del buffer[: self._start]
                    self._start = 0
                if head is not None:
                    return FrameTooLarge(head)
                if len(line) > self._max_frame:
                    return FrameTooLarge(line[:HEAD_BYTES])
                return line
            if len(buffer) - self._start > self._max_frame:
                # Too long already: keep only its head, wait for its end.
                if head is None:
                    head = bytes(buffer[self._start : self._start + HEAD_BYTES])
                del buffer[:]
                self._start = 0
            if self._eof:
                rest = bytes(buffer[self._start :])
                del buffer[:]
                self._start = 0
                if head is not None:
                    return FrameTooLarge(head)
                if len(rest) > self._max_frame:
                    return FrameTooLarge(rest[:HEAD_BYTES])
                return rest if rest else None
            data = await self._reader.read(_READ_SIZE)
            if not data:
                self._eof = True
            else:
                buffer += data
