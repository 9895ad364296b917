"""Pending permission requests in the TUI: one dialog at a time, in order.

The requests come from the event stream: each session's view holds its
pending ones and the tool-call entry each is about; this only decides which
one the dialog shows. A decision goes through the host link's ``decide``
(the path the headless server uses), and a request resolved elsewhere (the
turn was cancelled, the agent withdrew it) closes its dialog.
"""

from __future__ import annotations

import json
import time
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text
from textual import events

from acp_tui.core import HostError, SessionView, ToolCallEntry, clean, diff_lines, one_line
from acp_tui.ui.host_link import HostLink
from acp_tui.ui.render import ThemePalette
from acp_tui.ui.render.tools import display_path

if TYPE_CHECKING:
    from acp_tui.ui.screens.permission import PermissionScreen
    from acp_tui.ui.surface import Surface

PREVIEW_LINES = 400
#: Characters of a tool call's text (or command, or raw input) the preview shows.
PREVIEW_CHARS = 20_000
#: After a dialog closes, typed characters are ignored this long (a doubled
#: "yy" must not put a "y" in the draft).
KEY_REPEAT_GUARD = 0.3
#: A dialog that opens while the user is typing (a key in the last
#: TYPING_WINDOW seconds) answers no key until they pause for ARM_SECONDS.
TYPING_WINDOW = 1.0
ARM_SECONDS = 0.6


class PermissionFlow:
    def __init__(self, surface: Surface, link: HostLink) -> None:
        self.surface = surface
        self.link = link
        #: (session's view, request id), in the order they were asked.
        self.queue: list[tuple[SessionView, str]] = []
        self.showing: str | None = None
        self._screen: PermissionScreen | None = None

    def requested(self, view: SessionView, request_id: str) -> None:
        self.queue.append((view, request_id))
        if self.showing is None:
            self._show_next()
        elif self._screen is not None:
            self._screen.update_total(1 + len(self.queue))

    def resolved(self, request_id: str) -> None:
        """``request_id`` was resolved (decided here or elsewhere)."""
        self.queue = [(view, r) for view, r in self.queue if r != request_id]
        if self._screen is not None:
            self._screen.update_total(1 + len(self.queue))
        if request_id == self.showing and self._screen is not None:
            screen, self._screen = self._screen, None
            self.showing = None
            self.surface.close_dialog(screen)
            self._show_next()

    def _show_next(self) -> None:
        # The dialog's module is loaded at the first request, not before the first frame.
        from acp_tui.ui.screens.permission import PermissionPrompt, PermissionScreen

        while self.queue:
            view, request_id = self.queue.pop(0)
            pending = view.permissions.get(request_id)
            if pending is None:
                continue  # resolved meanwhile
            tool_call_id = str(pending.get("toolCallId"))
            found = view.tool_call(tool_call_id)
            entry = found[1] if found is not None else None
            cwd = str(view.cwd) if view.cwd is not None else None
            outside = self.link.outside_paths(view.session_id, entry) if entry else []
            project = (view.cwd.name or str(view.cwd)) if view.cwd is not None else "the project"
            prompt = PermissionPrompt(
                request_id=request_id,
                title=one_line(entry.title if entry is not None else tool_call_id),
                tool_kind=entry.tool_kind if entry is not None else "other",
                options=[_shown_option(option) for option in pending.get("options") or []],
                preview=preview(entry, self.surface.palette, cwd) if entry else None,
                locations=_locations(entry, cwd),
                position=1,
                total=1 + len(self.queue),
                outside=[one_line(display_path(p, cwd)) for p in outside],
                project=one_line(project),
            )
            self.showing = request_id
            typing = time.monotonic() - self.surface.typed_at < TYPING_WINDOW
            self._screen = PermissionScreen(
                prompt, arm_after=ARM_SECONDS if typing else 0.0, on_early_key=self._early_key
            )
            self.surface.open_dialog(self._screen, partial(self._answered, request_id))
            return

    def _early_key(self, event: events.Key) -> None:
        """A key typed while the dialog was not armed yet belongs to the draft."""
        if event.character:
            self.surface.prompt.insert(event.character)

    def _answered(self, request_id: str, choice: str | None) -> None:
        self.surface.prompt.mute_typing(KEY_REPEAT_GUARD)
        if self.showing == request_id:
            self.showing = None
            self._screen = None
        try:
            if choice is None:
                self.link.decide(request_id, cancelled=True)
            else:
                self.link.decide(request_id, choice)
        except HostError as exc:
            if exc.code not in ("already_decided", "not_found"):
                self.surface.toast(exc.message, severity="error")
        if self.showing is None:
            self._show_next()


def _shown_option(option: dict[str, Any]) -> dict[str, str]:
    """An option as the dialog shows it: its name cleaned (the id is kept
    exactly: it is what the agent is answered with)."""
    shown = {k: str(v) for k, v in option.items() if k in ("optionId", "name", "kind")}
    shown["name"] = one_line(shown.get("name") or shown.get("optionId", ""))
    return shown


def _locations(entry: ToolCallEntry | None, cwd: str | None = None) -> list[str]:
    """The locations worth a line: a file the diff below names is not repeated."""
    if entry is None:
        return []
    diffs = {item.get("path") for item in entry.content if item.get("type") == "diff"}
    shown = []
    for location in entry.locations:
        path = str(location.get("path", ""))
        line = location.get("line")
        if path in diffs and not line:
            continue
        path = display_path(path, cwd)
        shown.append(one_line(f"{path}:{line}" if line else path))
    return shown


def preview(
    entry: ToolCallEntry, palette: ThemePalette, cwd: str | None = None
) -> RenderableType | None:
    """What the user is asked to allow: the diff, the command, or the raw input."""
    parts: list[RenderableType] = []
    for item in entry.content:
        if item.get("type") == "diff":
            parts.append(_diff(item, palette, cwd))
        elif item.get("type") == "content":
            block = item.get("content") or {}
            if block.get("type") == "text" and block.get("text"):
                parts.append(Text(clean(str(block["text"])[:PREVIEW_CHARS])))
    if not parts and isinstance(entry.raw_input, dict):
        command = entry.raw_input.get("command")
        if isinstance(command, str | list):
            shown = command if isinstance(command, str) else " ".join(map(str, command))
            parts.append(Text("$ " + clean(shown[:PREVIEW_CHARS]), style="bold"))
        else:
            raw = json.dumps(entry.raw_input, indent=2, ensure_ascii=False, default=str)
            parts.append(Text(clean(raw[:PREVIEW_CHARS])))
    if not parts:
        return None
    return Group(*parts)


def _diff(item: dict[str, Any], palette: ThemePalette, cwd: str | None = None) -> DiffPreview:
    old = item.get("oldText")
    new = str(item.get("newText") or "")
    path = one_line(display_path(str(item.get("path", "")), cwd))
    heading = Text(f"{path}{'  (new file)' if old is None else ''}", style="bold")
    lines = diff_lines(old if isinstance(old, str) else None, new)
    styles = {
        "+": palette.hex("text-success", "success"),
        "-": palette.hex("text-error", "error"),
        "@": palette.hex("text-secondary", "secondary"),
    }
    rows: list[tuple[str, str, str]] = []
    for line in (line.removesuffix("\n") for line in lines):
        if line.startswith("\\") or (old is None and line.startswith("@@")):
            continue  # a new file needs no hunk header; nor the dialog git's "no newline"
        if len(rows) >= PREVIEW_LINES:
            rows.append(("", "… (diff continues)", ""))
            break
        marker = line[:1] if line[:1] in ("+", "-", " ") else ""
        body = line[1:] if marker else line
        rows.append((marker, body, styles.get(line[:1], "")))
    return DiffPreview(heading, rows)


class DiffPreview:
    """A diff for the dialog: every wrapped row of a line keeps its +/- marker."""

    def __init__(self, heading: Text, rows: list[tuple[str, str, str]]) -> None:
        self.heading = heading
        #: (marker, text, style) per diff line.
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.heading
        width = max(options.max_width - 2, 1)
        for marker, body, style in self.rows:
            if not marker:
                yield Text(body, style=style)
                continue
            wrapped = Text(body, style=style).wrap(console, width) or [Text("")]
            for piece in wrapped:
                row = Text(f"{marker} ", style=style)
                row.append_text(piece)
                yield row
