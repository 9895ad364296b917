"""JSON lines as they cross a pipe: decoded safely, encoded so that writing never fails.

Shared by the agent transport (jsonrpc.py), the headless server and the
history writer. Text from outside is made safe once, here, where it enters:

* bytes that are not UTF-8 become U+FFFD (a Latin-1 byte in an agent's chunk
  costs one character, not the whole message);
* a lone surrogate (``"\\ud800"``: a Node agent that splits an emoji between
  two chunks sends exactly this) becomes U+FFFD — Python's ``json`` accepts
  it, but no UTF-8 writer can write it back out;
* nesting deeper than :data:`MAX_DEPTH` is a :class:`BadFrame` for that one
  line. Python's ``json`` raises ``RecursionError`` (not ``ValueError``) past
  ~1,000 levels, and below that a deep value would hit the same limit later,
  in a validator or an encoder;
* ``NaN``/``Infinity`` (not JSON) are refused, and numbers too big for a
  float or past Python's 4,300-digit integer limit are read as the largest
  float, so that they are valid JSON again when written out.

Writers (:func:`encode_frame`, :func:`to_utf8`) survive what slips through:
a lone surrogate is written as U+FFFD and a non-finite float as ``null``.

:func:`top_level_fields` reads the top-level members of a line that could
not be decoded (too long, too deep), so that a request's id can still be
answered.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any

#: Containers nested deeper than this make a line a protocol error. ACP's
#: messages nest about 6 deep; tool inputs (``rawInput``) add a few more.
MAX_DEPTH = 64
#: What :func:`top_level_fields` looks at, at most (bytes).
SCAN_LIMIT = 8 * 1024 * 1024

_LARGEST = sys.float_info.max
_SURROGATE = re.compile("[\ud800-\udfff]")
# A \uD800-\uDFFF escape in JSON text (it may be part of a valid pair).
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class BadFrame(ValueError):
    """A line that is not a usable JSON value; ``reason`` says why (for the peer)."""

    def __init__(self, reason: str, *, deep: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        #: Too deep (its top-level members may still be readable).
        self.deep = deep


def _number(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        return math.copysign(_LARGEST, value)
    return value


def _integer(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:  # past the interpreter's digit limit
        return _number(text)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_float=_number, parse_int=_integer, parse_constant=_not_json)


def replace_surrogates(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


def fix_surrogates(value: Any) -> Any:
    """``value`` (parsed JSON) with lone surrogates replaced in every string and key."""
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, list):
        return [fix_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {replace_surrogates(k): fix_surrogates(v) for k, v in value.items()}
    return value


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether containers in ``value`` nest deeper than ``limit`` (iterative)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def decode_frame(frame: bytes) -> Any:
    """One line of JSON, made safe (see the module docstring); raises :class:`BadFrame`."""
    text = frame.decode("utf-8", errors="replace")
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise BadFrame(f"nested more than {MAX_DEPTH} deep", deep=True) from None
    except ValueError:
        raise BadFrame("not valid JSON") from None
    # Cheap tests first: a line with few brackets cannot be deep, and one
    # without a \uD8xx escape cannot hold a lone surrogate.
    if frame.count(b"[") + frame.count(b"{") > MAX_DEPTH and depth_exceeds(value):
        raise BadFrame(f"nested more than {MAX_DEPTH} deep", deep=True)
    if _SURROGATE_ESCAPE.search(frame) is not None:
        value = fix_surrogates(value)
    return value


# -- writing -----------------------------------------------------------------------


def to_utf8(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate that slipped through becomes U+FFFD."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode("utf-8")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def _unknown(value: Any) -> str:
    return f"<{type(value).__name__}>"


def dumps(value: Any, *, compact: bool = True) -> str:
    """``value`` as JSON text; non-finite floats become ``null``, objects JSON
    cannot hold become ``"<type>"``. Raises ``ValueError`` only for a value
    nested too deep to write."""
    separators = (",", ":") if compact else (", ", ": ")
    try:
        return json.dumps(value, ensure_ascii=False, separators=separators, allow_nan=False)
    except (ValueError, TypeError):
        pass
    except RecursionError:
        raise ValueError("nested too deeply to write") from None
    try:
        return json.dumps(
            _finite(value),
            ensure_ascii=False,
            separators=separators,
            allow_nan=False,
            default=_unknown,
        )
    except RecursionError:
        raise ValueError("nested too deeply to write") from None


def encode_frame(message: Any) -> bytes:
    """One line of compact JSON, UTF-8, ending in ``\\n`` (see :func:`dumps`)."""
    return to_utf8(dumps(message)) + b"\n"


# -- reading what could not be decoded ------------------------------------------------

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_NUMBER = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_TOKEN = re.compile(
    rb"[ \t\r\n]*(?:(" + _STRING + rb")|(" + _NUMBER + rb")|(true|false|null)|([{}\[\]:,]))",
    re.S,
)
# Inside a nested value: runs of openers, of closers, strings, anything else.
_SKIP = re.compile(rb"([\[{]+)|([\]}]+)|" + _STRING + rb"|[^\[\]{}\"]+", re.S)


def _scalar(string: bytes | None, number: bytes | None, word: bytes | None) -> Any:
    if string is not None:
        try:
            return replace_surrogates(json.loads(string.decode("utf-8", errors="replace")))
        except ValueError:
            return None
    if number is not None:
        text = number.decode()
        return _integer(text) if text.lstrip("-").isdigit() else _number(text)
    return {b"true": True, b"false": False, b"null": None}[word or b"null"]


def _skip_nested(data: bytes, pos: int, limit: int) -> int | None:
    """Past the container that starts at ``pos``; None if it does not end in ``data``."""
    depth = 0
    while pos < limit:
        match = _SKIP.match(data, pos, limit)
        if match is None:
            return None
        pos = match.end()
        if match.group(1):
            depth += len(match.group(1))
        elif match.group(2):
            depth -= len(match.group(2))
            if depth <= 0:
                return pos + depth  # a closer run may close more than this value
    return None


def top_level_fields(data: bytes) -> dict[str, Any]:
    """The scalar members of the JSON object ``data`` starts with, as far as
    they can be read (a later duplicate wins, as in ``json``). Members whose
    value is an object or array are present with the value ``...``. Reading
    stops at the first thing that is not JSON (a line cut short)."""
    limit = min(len(data), SCAN_LIMIT)
    fields: dict[str, Any] = {}
    match = _TOKEN.match(data, 0, limit)
    if match is None or match.group(4) != b"{":
        return fields
    pos = match.end()
    while True:
        key_match = _TOKEN.match(data, pos, limit)
        if key_match is None or key_match.group(1) is None:
            return fields
        key = _scalar(key_match.group(1), None, None)
        colon = _TOKEN.match(data, key_match.end(), limit)
        if colon is None or colon.group(4) != b":":
            return fields
        value = _TOKEN.match(data, colon.end(), limit)
        if value is None:
            return fields
        if value.group(4) in (b"{", b"["):
            end = _skip_nested(data, value.end() - 1, limit)
            if end is None:
                fields[str(key)] = ...
                return fields
            fields[str(key)] = ...
            pos = end
        elif value.group(4) is not None:
            return fields
        else:
            fields[str(key)] = _scalar(value.group(1), value.group(2), value.group(3))
            pos = value.end()
        separator = _TOKEN.match(data, pos, limit)
        if separator is None or separator.group(4) != b",":
            return fields
        pos = separator.end()
