"""Claude Code's internal markup in user messages, read for people.

A session replayed by claude-agent-acp (``session/load``) and its session
titles carry what Claude Code stored for local commands: ``<command-name>``,
``<command-message>``, ``<command-args>``, ``<local-command-stdout>``,
``<local-command-stderr>`` and ``<local-command-caveat>`` (plus
``<system-reminder>``, and "[Request interrupted by user]" after a cancel).
:func:`read_markup` turns a message into the text a person wrote and compact
notes ("/model opus", "⎿ Set model to opus"); the caveat and reminders are
dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HIDDEN = ("local-command-caveat", "system-reminder")
_BLOCK = re.compile(
    r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|"
    r"local-command-caveat|system-reminder)>(.*?)</\1>",
    re.DOTALL,
)
NOTE_CHARS = 120
#: What Claude Code appends to a prompt it was interrupted in.
_INTERRUPTED = re.compile(r"\[Request interrupted by user[^\]]*\]")


@dataclass
class ReadMarkup:
    #: What the person wrote, the markup taken out.
    text: str
    #: One compact note per command or command output found.
    notes: list[str] = field(default_factory=list)


def has_markup(text: str) -> bool:
    return (
        "<command-" in text
        or "<local-command-" in text
        or "<system-reminder>" in text
        or "[Request interrupted by user" in text
    )


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= NOTE_CHARS else line[: NOTE_CHARS - 1] + "…"


def read_markup(text: str) -> ReadMarkup:
    """``text`` without Claude Code's markup, and notes for what it held."""
    if not has_markup(text):
        return ReadMarkup(text)
    notes: list[str] = []
    command: dict[str, str] = {}

    def flush_command() -> None:
        if command:
            name = command.get("command-name") or "/" + command.get("command-message", "")
            args = command.get("command-args", "").strip()
            notes.append(_short(f"{name} {args}".strip()))
            command.clear()

    for match in _BLOCK.finditer(text):
        tag, body = match.group(1), match.group(2).strip()
        if tag in _HIDDEN:
            continue
        if tag.startswith("command-"):
            if tag in command:
                flush_command()
            command[tag] = body
            continue
        flush_command()
        if body:
            notes.append("⎿ " + _short(body))
    flush_command()
    rest = _BLOCK.sub("", text)
    if _INTERRUPTED.search(rest):
        rest = _INTERRUPTED.sub("", rest)
        notes.append("⎿ interrupted")
    return ReadMarkup(rest.strip(), notes)


def readable_title(title: str) -> str:
    """A session title as a person would read it ("" when only markup)."""
    read = read_markup(title)
    if read.text:
        return read.text
    return read.notes[0] if read.notes else ""
