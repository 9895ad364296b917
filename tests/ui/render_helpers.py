"""Entries to render and ways to read what the renderers made (the render tests' builders)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.strip import Strip

from acp_tui.core.model.entries import (
    AssistantEntry,
    Chunk,
    Entry,
    NoticeEntry,
    ToolCallEntry,
    UserEntry,
)
from acp_tui.ui.render import (
    EntryRenderer,
    RenderOptions,
    RenderStyles,
)

STYLES = RenderStyles.default()
WIDTHS = (20, 60, 120)


def plain(strips: Iterable[Strip]) -> list[str]:
    return ["".join(segment.text for segment in strip).rstrip() for strip in strips]


def render(
    entry: Entry, width: int = 80, renderer: EntryRenderer | None = None, **kw: Any
) -> list[Strip]:
    renderer = renderer or EntryRenderer()
    return renderer.render(entry, RenderOptions(width=width, styles=kw.pop("styles", STYLES), **kw))


def text_of(entry: Entry, width: int = 80, **kw: Any) -> str:
    return "\n".join(plain(render(entry, width, **kw)))


def segments(strips: Iterable[Strip]) -> list[Segment]:
    return [segment for strip in strips for segment in strip]


def segments_with(strips: Iterable[Strip], needle: str) -> list[Segment]:
    return [segment for segment in segments(strips) if needle in segment.text]


def user(text: str, *extra: dict[str, Any]) -> UserEntry:
    return UserEntry(content=[{"type": "text", "text": text}, *extra])


def assistant(*chunks: tuple[str, str]) -> AssistantEntry:
    return AssistantEntry(chunks=[Chunk(kind, text, "m1") for kind, text in chunks])  # type: ignore[arg-type]


def tool(**kw: Any) -> ToolCallEntry:
    kw.setdefault("tool_call_id", "call-1")
    return ToolCallEntry(**kw)


def terminal(output: str | None = None, **kw: Any) -> ToolCallEntry:
    item: dict[str, Any] = {"type": "terminal", "terminalId": "term-1", **kw}
    if output is not None:
        item["output"] = output
    return tool(title="Run", tool_kind="execute", status="in_progress", content=[item])


def diff_entry(old: str | None, new: str, path: str = "/repo/src/app.py") -> ToolCallEntry:
    item = {"type": "diff", "path": path, "oldText": old, "newText": new}
    return tool(title="Edit app.py", tool_kind="edit", status="completed", content=[item])


MARKDOWN = (
    "# Big title\n\nSome *text*.\n\n- first item\n- second item\n\n"
    "```python\ndef hello():\n    return 42\n```\n"
)

ALL_ENTRIES: list[Entry] = [
    user("Hello there, please fix the failing tests in the project and explain what went wrong."),
    user("", {"type": "image", "data": "", "mimeType": "image/png"}),
    UserEntry(content=[]),
    assistant(("thought", "Let me think\nabout it"), ("message", MARKDOWN * 2)),
    AssistantEntry(),
    tool(
        title="Run the whole test suite with coverage and a very long title",
        tool_kind="execute",
        status="in_progress",
        locations=[{"path": "/very/long/path/" * 8 + "file.py", "line": 12}],
        content=[
            {"type": "content", "content": {"type": "text", "text": "Result: **ok**"}},
            {"type": "content", "content": {"type": "image", "data": "", "mimeType": "image/png"}},
            {
                "type": "terminal",
                "terminalId": "t",
                "output": "\x1b[31mred\x1b[0m " * 40 + "\nok\n",
            },
            {"type": "diff", "path": "/a/b.py", "oldText": "x = 1\n", "newText": "x = 2\n" * 3},
        ],
        raw_input={"command": "pytest -q --cov", "cwd": "/repo"},
        raw_output="passed",
        permission={"options": []},
    ),
    tool(title="", tool_kind="nonsense", status="pending"),
    NoticeEntry("info", "Agent started"),
    NoticeEntry("warning", "Slow"),
    NoticeEntry("error", "Agent exited with code 1\nTraceback (most recent call last):\n  boom"),
]
