"""Reading NDJSON frames: lines across reads, too-long lines, the end."""

from __future__ import annotations

import asyncio

from acp_tui.core.transport.framing import FrameReader, FrameTooLarge


def feed(*pieces: bytes, eof: bool = True) -> asyncio.StreamReader:
    reader = asyncio.StreamReader(limit=16)
    for piece in pieces:
        reader.feed_data(piece)
    if eof:
        reader.feed_eof()
    return reader


async def frames(reader: asyncio.StreamReader, limit: int) -> list[bytes | FrameTooLarge | None]:
    out: list[bytes | FrameTooLarge | None] = []
    frame_reader = FrameReader(reader, limit)
    while True:
        frame = await frame_reader.next()
        out.append(frame)
        if frame is None:
            return out


async def test_lines_split_across_reads_and_the_last_line_without_newline() -> None:
    got = await frames(feed(b'{"a"', b":1}\n\n{", b'"b":2}\n{"c":3}'), 100)
    assert got == [b'{"a":1}', b"", b'{"b":2}', b'{"c":3}', None]


async def test_a_line_over_the_limit_is_reported_once_and_skipped() -> None:
    long_line = b"x" * 1000
    got = await frames(feed(b"ok\n", long_line[:300], long_line[300:], b"\nafter\n"), 100)
    assert got == [b"ok", FrameTooLarge(long_line[:300] + long_line[300:]), b"after", None]


async def test_a_too_long_last_line_at_eof() -> None:
    assert await frames(feed(b"y" * 500), 100) == [FrameTooLarge(b"y" * 500), None]


async def test_discarding_keeps_memory_small() -> None:
    reader = feed(eof=False)
    frame_reader = FrameReader(reader, 1000)
    pending = asyncio.ensure_future(frame_reader.next())
    for _ in range(200):
        reader.feed_data(b"z" * 10_000)
        await asyncio.sleep(0)
    assert len(frame_reader._buffer) < 100_000
    reader.feed_data(b"\nnext\n")
    too_large = await pending
    assert isinstance(too_large, FrameTooLarge)
    assert too_large.head == b"z" * len(too_large.head) and 1000 < len(too_large.head) <= 16 * 1024
    assert await frame_reader.next() == b"next"


async def test_a_discarded_line_keeps_its_head() -> None:
    """The head is where a request's id is: the server answers with it (issue 12, point 3)."""
    line = b'{"id":7,' + b"x" * 100_000
    got = await frames(feed(line[:5000], line[5000:], b"\nnext\n"), 1000)
    assert isinstance(got[0], FrameTooLarge)
    assert got[0].head == line[: len(got[0].head)] and got[0].head.startswith(b'{"id":7,')
    assert got[1:] == [b"next", None]
