"""TOML text as the user wrote it: where a key is, how to name one, one line changed.

The config file is read with :mod:`tomllib`, which forgets lines and layout;
these helpers work on the text itself, so a problem names its line and a
setting acp-tui saves (the theme) keeps the rest of the file as written. A
problem names a wrong value's kind as TOML calls it (:func:`value_kind`).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def dotted_key(parts: tuple[str, ...]) -> str:
    """``parts`` as a TOML dotted key, each part quoted where it must be."""
    return ".".join(p if _BARE_KEY.fullmatch(p) else json.dumps(p) for p in parts)


def value_kind(value: Any) -> str:
    """What a value ``tomllib`` read is, for a message: "a string", "a table"..."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return "a date/time"


def decode_error(exc: tomllib.TOMLDecodeError, text: str) -> tuple[int, str]:
    """The line (1-based) and the reason of a TOML syntax error."""
    message = str(exc)
    lineno = getattr(exc, "lineno", None)  # Python 3.14+
    at = re.search(r"\s*\(at (?:line (\d+), column \d+|end of document)\)\s*$", message)
    if at is not None:
        message = message[: at.start()]
        if lineno is None and at.group(1):
            lineno = int(at.group(1))
    if not isinstance(lineno, int):
        lineno = max(1, len(text.splitlines()))
    return lineno, message or "syntax error"


# -- finding the line of a key ------------------------------------------------------------------

_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_KEY_PATH = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER = re.compile(rf"^\s*\[\[?\s*({_KEY_PATH})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_KEY_PATH})\s*=")
_PART = re.compile(_KEY)


def _parts(key_path: str) -> tuple[str, ...]:
    parts = []
    for token in _PART.findall(key_path):
        if token.startswith('"'):
            try:
                token = json.loads(token)
            except ValueError:
                token = token[1:-1]
        elif token.startswith("'"):
            token = token[1:-1]
        parts.append(token)
    return tuple(parts)


def find_line(text: str, key: tuple[str, ...]) -> int | None:
    """The 1-based line that defines dotted ``key`` in TOML ``text``, best effort.

    A line defining exactly ``key`` wins (``[agents.foo]``, ``args = ...``
    under it, ``agents.foo.args = ...``); else the first line defining
    something inside it; else the line of the closest table around it (an
    inline table ``foo = { args = 3 }``).
    """
    table: tuple[str, ...] = ()
    inside: int | None = None
    around: tuple[int, int] | None = None  # (depth, line)
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header is not None:
            table = _parts(header.group(1))
            full = table
        else:
            assign = _ASSIGN.match(line)
            if assign is None:
                continue
            full = table + _parts(assign.group(1))
        if full == key:
            return number
        if full[: len(key)] == key and inside is None:
            inside = number
        elif key[: len(full)] == full and (around is None or len(full) > around[0]):
            around = (len(full), number)
    if inside is not None:
        return inside
    return around[1] if around is not None else None


def value_line(text: str, start: int, value: str) -> int:
    """The first line from ``start`` on that holds ``value`` as a string literal."""
    quoted = (json.dumps(value), f"'{value}'")
    for number, line in enumerate(text.splitlines()[start - 1 :], start):
        if any(q in line for q in quoted):
            return number
    return start


_THEME_LINE = re.compile(r"^\s*theme\s*=.*$")
_TABLE_LINE = re.compile(r"^\s*\[")


def save_theme(path: Path, theme: str) -> None:
    """Set the top-level ``theme`` in the config file, keeping the rest of it
    as written (an existing ``theme =`` line is replaced, else one is added
    before the first table). Raises OSError."""
    line = f"theme = {json.dumps(theme)}"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    first_table = next((i for i, text in enumerate(lines) if _TABLE_LINE.match(text)), len(lines))
    for index in range(first_table):
        if _THEME_LINE.match(lines[index]):
            lines[index] = line
            break
    else:
        lines.insert(first_table, line)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)
