"""Agent text made fit to show: the one sanitizer every surface uses.

Anything an agent controls (a title, a plan item, a tool call's title and
locations, option names, commands, modes, config options, stderr, error
messages, the reply itself) may hold escape sequences or control
characters. Written to a terminal as they are, they move the cursor, clear
the screen or change the window title. Every string from an agent goes
through one of these before a renderer sees it:

* :func:`clean` — multi-line text: complete escape sequences (CSI, OSC,
  DCS, …) are dropped, CR LF and lone CR become LF, and every other control
  character is made *visible*: C0 as its Control Picture (BEL → ␇, ESC →
  ␛), DEL as ␡, C1 controls, bidi overrides and lone surrogates as U+FFFD.
* :func:`one_line` — the same on one line (any run of whitespace is a space).
* :func:`terminal_ansi` — terminal output, the one place ANSI is rendered on
  purpose: colours (SGR) are kept for Rich's ANSI parser, carriage returns
  overwrite as on a terminal, every other escape and control is dropped.
* :func:`terminal_text` — terminal output as plain text (no colours).

UI-free: the TUI's renderers and the Markdown export both use it.
"""

from __future__ import annotations

import re

__all__ = [
    "clean",
    "is_printable_name",
    "one_line",
    "terminal_ansi",
    "terminal_text",
    "visible_controls",
]

# Escape sequences a terminal would interpret: CSI; OSC and the string
# sequences (DCS, SOS, PM, APC) up to their terminator (an unterminated one
# is not a sequence: its ESC is shown); two-character escapes (ESC c, ESC 7…).
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]{0,4096}\x1b\\"
    r"|\x1b(?![\[\]PX^_])[ -/]*[0-~]"
)
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
# What :func:`clean` changes: controls except tab and LF, DEL, C1, the bidi
# embeddings/overrides/isolates, line/paragraph separators, lone surrogates.
_SHOWN = "\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_SPECIAL = re.compile(f"[{_SHOWN}\u2028\u2029]")
_VISIBLE = re.compile(f"[{_SHOWN}]")
# Terminal output: controls a terminal would not show (tab, LF and ESC kept).
_TERMINAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# An ESC that starts no colour sequence (left over from an incomplete one).
_LONE_ESC = re.compile(r"\x1b(?!\[[0-9;:]*m)")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟
    if code == 0x7F:
        return "\u2421"  # ␡
    return "\ufffd"


def clean(text: str) -> str:
    """``text`` safe to show on several lines (see the module docstring)."""
    if _SPECIAL.search(text) is None:
        return text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    text = text.replace("\u2028", "\n").replace("\u2029", "\n")
    return _VISIBLE.sub(_picture, text)


def one_line(text: str) -> str:
    """``text`` safe to show on one line: :func:`clean`, whitespace runs as one space."""
    return " ".join(clean(text).split())


def visible_controls(text: str) -> str:
    """``text`` with each control character shown as a symbol, one for one
    (no sequence dropped: positions in it stay valid, e.g. for highlighting)."""
    if _VISIBLE.search(text) is None:
        return text
    return _VISIBLE.sub(_picture, text)


def is_printable_name(name: str) -> bool:
    """Whether ``name`` (a command name the user may type) has no control characters."""
    return _SPECIAL.search(name) is None


def _overwrite(output: str) -> str:
    """Carriage returns applied: of a line redrawn in place, what was drawn last."""
    if "\r" not in output:
        return output
    lines = []
    for line in output.replace("\r\n", "\n").split("\n"):
        if "\r" in line:
            parts = [part for part in line.split("\r") if part]
            line = parts[-1] if parts else ""
        lines.append(line)
    return "\n".join(lines)


def _keep_sgr(match: re.Match[str]) -> str:
    sequence = match.group()
    return sequence if _SGR.fullmatch(sequence) else ""


def terminal_ansi(output: str) -> str:
    """Terminal output for an ANSI parser: only colour sequences (SGR) left."""
    text = _overwrite(output)
    if "\x1b" in text:
        text = _LONE_ESC.sub("", _ANSI.sub(_keep_sgr, text))
    text = _TERMINAL_CONTROL.sub("", text)
    return _SURROGATE.sub("\ufffd", text)


def terminal_text(output: str) -> str:
    """Terminal output as plain text: colours dropped too; no trailing newline."""
    return _SGR.sub("", terminal_ansi(output)).rstrip("\n")
