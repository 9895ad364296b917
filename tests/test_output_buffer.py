"""HeadBuffer: keeps the head of a terminal's output within a byte limit (AC-8)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_tui.core.capabilities.output_buffer import HeadBuffer

CJK = "日本\n語です\n".encode()  # 3-byte characters: "日本\n" is 7 bytes, the whole 17


def render(data: bytes, limit: int) -> tuple[str, bool]:
    buffer = HeadBuffer(limit)
    buffer.feed(data)
    return buffer.snapshot()


@pytest.mark.parametrize(
    ("data", "limit", "expected"),
    [
        pytest.param(b"hello\nworld\n", 100, ("hello\nworld\n", False), id="ascii-fits"),
        pytest.param(b"line1\nline2\nline3\n", 14, ("line1\nline2\n", True), id="ascii-cut"),
        pytest.param(b"ab\ncd\n", 6, ("ab\ncd\n", False), id="exactly-at-limit"),
        pytest.param(b"abcdef", 6, ("abcdef", False), id="at-limit-no-newline"),
        pytest.param(b"ab\ncd\ne", 6, ("ab\ncd\n", True), id="limit-plus-one"),
        pytest.param(b"ab\ncdef", 6, ("ab\n", True), id="limit-plus-one-mid-line"),
        pytest.param(CJK, 17, ("日本\n語です\n", False), id="cjk-fits"),
        pytest.param(CJK, 16, ("日本\n", True), id="cjk-cut"),
        pytest.param(CJK, 8, ("日本\n", True), id="cjk-cut-one-byte-into-char"),
        pytest.param(CJK, 5, ("", True), id="cjk-cut-inside-first-line"),
        pytest.param("ab\n日本".encode(), 5, ("ab\n", True), id="limit-inside-multibyte-char"),
        pytest.param(b"x" * 100, 10, ("", True), id="one-long-line"),
        pytest.param(b"a", 0, ("", True), id="zero-limit"),
        pytest.param(b"", 0, ("", False), id="zero-limit-no-output"),
        pytest.param(b"a\xff\n", 10, ("a\ufffd\n", False), id="invalid-byte-replaced"),
        pytest.param(b"\x1b[31mred\x1b[0m\n", 100, ("\x1b[31mred\x1b[0m\n", False), id="ansi"),
    ],
)
def test_rendering(data: bytes, limit: int, expected: tuple[str, bool]) -> None:
    assert render(data, limit) == expected


@pytest.mark.parametrize("limit", [0, 1, 5, 7, 8, 16, 17, 1000])
def test_many_small_feeds_equal_one_big_feed(limit: int) -> None:
    data = CJK * 3 + b"tail without newline"
    one = render(data, limit)
    small = HeadBuffer(limit)
    for index in range(len(data)):
        small.feed(data[index : index + 1])
    assert small.snapshot() == one
    assert small.total_bytes == len(data)
    assert small.kept_bytes == min(limit, len(data))


def test_memory_is_bounded_by_the_limit() -> None:
    buffer = HeadBuffer(1000)
    chunk = b"0123456789abcdef\n" * 4096
    for _ in range(200):
        buffer.feed(chunk)
    assert buffer.kept_bytes == 1000
    assert buffer.total_bytes == 200 * len(chunk)
    assert buffer.truncated


def test_feed_reports_changes() -> None:
    buffer = HeadBuffer(4)
    assert buffer.feed(b"") is False
    assert buffer.feed(b"ab") is True
    assert buffer.feed(b"cdef") is True  # fills the rest and becomes truncated
    assert buffer.feed(b"more") is False  # nothing visible changes any more


def test_incomplete_character_held_back_while_running() -> None:
    buffer = HeadBuffer(100)
    buffer.feed("ab日".encode()[:-1])
    assert buffer.snapshot(final=False) == ("ab", False)
    assert buffer.snapshot(final=True) == ("ab\ufffd", False)
    buffer.feed("日".encode()[-1:])
    assert buffer.snapshot(final=False) == ("ab日", False)


def test_negative_limit_is_rejected() -> None:
    with pytest.raises(ValueError):
        HeadBuffer(-1)


def _check_properties(data: bytes, limit: int, output: str, truncated: bool) -> None:
    full_text = data.decode("utf-8", errors="replace")
    assert full_text.startswith(output)
    assert truncated == (len(data) > limit)
    if not truncated:
        assert output == full_text
    elif output:
        assert output.endswith("\n")


@given(data=st.binary(max_size=300), limit=st.integers(min_value=0, max_value=320))
def test_property_random_bytes(data: bytes, limit: int) -> None:
    output, truncated = render(data, limit)
    _check_properties(data, limit, output, truncated)
    if truncated:  # built from at most `limit` raw bytes, ending at a newline
        cut = data[:limit].rfind(b"\n") + 1
        assert output == data[:cut].decode("utf-8", errors="replace")
    elif data.isascii():
        assert len(output.encode()) <= limit


@given(
    text=st.text(alphabet=st.sampled_from("ab \n日本é😀\x1b"), max_size=200),
    limit=st.integers(min_value=0, max_value=600),
    chunk_size=st.integers(min_value=1, max_value=50),
)
def test_property_random_text(text: str, limit: int, chunk_size: int) -> None:
    data = text.encode()
    output, truncated = render(data, limit)
    _check_properties(data, limit, output, truncated)
    assert len(output.encode()) <= limit
    chunked = HeadBuffer(limit)
    for start in range(0, len(data), chunk_size):
        chunked.feed(data[start : start + chunk_size])
    assert chunked.snapshot() == (output, truncated)
