"""The one sanitizer for agent text (core/content_text.py)."""

from __future__ import annotations

import pytest

from acp_tui.core.model.content_text import (
    clean,
    is_printable_name,
    one_line,
    terminal_ansi,
    terminal_text,
    visible_controls,
)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text\nline two\ttab", "plain text\nline two\ttab"),
        ("\x1b[1;31mred\x1b[0m", "red"),  # complete sequences are dropped, not left as "[31m"
        ("\x1b]0;title\x07after", "after"),  # OSC to BEL
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC to ST
        ("\x1bP+q\x1b\\x", "x"),  # DCS
        ("\x1bcreset", "reset"),  # ESC c
        ("bell\x07 bs\x08 nul\x00 esc\x1b", "bell␇ bs␈ nul␀ esc␛"),
        ("\x1b]0;never ends", "␛]0;never ends"),  # unterminated: not a sequence
        ("del\x7f c1\x9b2J", "del␡ c1\ufffd2J"),
        ("a\r\nb\rc", "a\nb\nc"),
        ("bidi\u202eevil\u2066", "bidi\ufffdevil\ufffd"),
        ("lone \ud800 surrogate", "lone \ufffd surrogate"),
        ("sep\u2028par\u2029", "sep\npar\n"),
    ],
)
def test_clean(raw: str, shown: str) -> None:
    assert clean(raw) == shown


def test_clean_leaves_ordinary_text_alone() -> None:
    text = "Ünïcödé — 漢字 🎉 `code` **bold**"
    assert clean(text) is text


def test_one_line() -> None:
    assert one_line("  a\n\tb \x1b[31mc\x1b[0m\x07 ") == "a b c␇"


def test_terminal_ansi_keeps_colours_only() -> None:
    raw = "\x1b[32mok\x1b[0m \x1b[2J\x1b[10;10Hmoved\x1b]0;t\x07 bell\x07\x00 half\x1b[1"
    assert terminal_ansi(raw) == "\x1b[32mok\x1b[0m moved bell half[1"
    assert terminal_ansi("10%\r50%\r100%\nnext\r\n") == "100%\nnext\n"
    assert terminal_text("\x1b[31merror\x1b[0m: x\r\n") == "error: x"


def test_visible_controls_keeps_positions() -> None:
    name = "a\x1b[31mb\x07.py"
    assert visible_controls(name) == "a␛[31mb␇.py"
    assert len(visible_controls(name)) == len(name)


def test_names_with_control_characters_are_not_printable() -> None:
    assert is_printable_name("review")
    assert not is_printable_name("\x1b[31mevil")
    assert not is_printable_name("tab\x07")
