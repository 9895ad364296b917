"""Reading newline-delimited frames with a size limit.

Shared by the agent transport (agent stdout) and the headless server (its
stdin). A line over the limit is reported once and the rest of it is
discarded, so the next line is read normally.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FrameTooLarge:
    """A line longer than the limit was discarded."""


async def read_frame(reader: asyncio.StreamReader, limit: int) -> bytes | FrameTooLarge | None:
    """The next line (with its ``\\n``), :class:`FrameTooLarge`, or None at end of input.

    ``reader`` must have been created with a buffer limit of at least
    ``limit``; a line longer than the reader's limit counts as too large.
    A last line without a newline is returned as it is.
    """
    try:
        line = await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        return FrameTooLarge() if len(exc.partial) > limit else exc.partial
    except asyncio.LimitOverrunError as exc:
        await _discard_line(reader, exc.consumed)
        return FrameTooLarge()
    if len(line) > limit + 1:
        return FrameTooLarge()
    return line


async def _discard_line(reader: asyncio.StreamReader, consumed: int) -> None:
    while True:
        if consumed:
            await reader.readexactly(consumed)
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.IncompleteReadError:
            return
        except asyncio.LimitOverrunError as exc:
            consumed = exc.consumed
