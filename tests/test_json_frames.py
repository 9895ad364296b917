"""Decoding and encoding JSON lines (core/json_frames.py), and reading the
top-level members of a line that could not be decoded."""

from __future__ import annotations

import json
import math
import sys

import pytest

from acp_tui.core.transport.json_frames import (
    MAX_DEPTH,
    BadFrame,
    decode_frame,
    depth_exceeds,
    encode_frame,
    top_level_fields,
)


def test_decoding_makes_outside_text_safe() -> None:
    assert decode_frame(b'{"a":"\\ud800","\\udfff":1}') == {"a": "\ufffd", "\ufffd": 1}
    assert decode_frame(b'{"a":"\\ud83d\\ude00"}') == {"a": "\U0001f600"}  # a pair is kept
    assert decode_frame(b'{"a":"caf\xe9"}') == {"a": "caf\ufffd"}  # not UTF-8
    assert decode_frame(b'{"a":"\xed\xa0\x80"}') == {"a": "\ufffd" * 3}  # an encoded surrogate
    largest = sys.float_info.max
    assert decode_frame(b'{"n":1e400,"m":-1e400}') == {"n": largest, "m": -largest}
    assert decode_frame(b'{"i":' + b"9" * 5000 + b"}") == {"i": largest}
    assert decode_frame(b'{"nul":"a\\u0000b"}') == {"nul": "a\x00b"}


@pytest.mark.parametrize(
    ("line", "deep"),
    [
        (b"not json", False),
        (b'{"a": NaN}', False),
        (b'{"a": Infinity}', False),
        (b"[" * 1000 + b"]" * 1000, True),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), True),
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, True),
    ],
)
def test_what_is_not_a_usable_frame(line: bytes, deep: bool) -> None:
    with pytest.raises(BadFrame) as raised:
        decode_frame(line)
    assert raised.value.deep is deep


def test_nesting_up_to_the_limit_is_fine() -> None:
    line = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert not depth_exceeds(decode_frame(line))
    # Many brackets, little depth: not deep.
    wide = b"[" + b",".join([b"[[1]]"] * 1000) + b"]"
    assert len(decode_frame(wide)) == 1000


def test_what_slips_through_is_still_written() -> None:
    """Writers replace a lone surrogate and never write NaN (which is not JSON)."""
    line = encode_frame({"text": "a\ud800b", "cost": math.nan, "big": math.inf, "obj": object()})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"text": "a\ufffdb", "cost": None, "big": None, "obj": "<object>"}


def test_a_value_too_deep_to_write_is_an_error_not_a_crash() -> None:
    value: list[object] = []
    for _ in range(5000):
        value = [value]
    with pytest.raises(ValueError):
        encode_frame(value)


@pytest.mark.parametrize(
    ("head", "fields"),
    [
        (
            b'{"version":1,"id":7,"method":"x","params":{"text":"aaa',
            {"version": 1, "id": 7, "method": "x", "params": ...},
        ),
        (
            b' { "id" : 12 , "id":13, "params": [1, "]}", {"a": [2]}], "m": "y"}',
            {"id": 13, "params": ..., "m": "y"},
        ),
        (
            b'{"params":{"deep":' + b"[" * 5000 + b"]" * 5000 + b'},"id":4}',
            {"params": ..., "id": 4},
        ),
        (
            b'{"i\\u0064":5, "s":"\\ud800", "t":true, "n":null, "f":-1.5e3}',
            {"id": 5, "s": "\ufffd", "t": True, "n": None, "f": -1500.0},
        ),
        (b'{"id":' + b"9" * 5000 + b"}", {"id": sys.float_info.max}),
        (b"[1, 2]", {}),
        (b'{"id" 5}', {}),
        (b"", {}),
    ],
)
def test_top_level_fields_of_a_line_that_could_not_be_decoded(
    head: bytes, fields: dict[str, object]
) -> None:
    assert top_level_fields(head) == fields
