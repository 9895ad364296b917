"""Pending permission requests in the TUI: one dialog at a time, in order.

The core owns each request (host.permissions); this only decides which one
the dialog shows. A decision goes through ``host.decide`` — the path the
headless server uses — and a request resolved elsewhere (the turn was
cancelled, the agent withdrew it) closes its dialog.
"""

from __future__ import annotations

import difflib
import json
import time
from functools import partial
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text
from textual import events

from acp_tui.core.content_text import clean, one_line
from acp_tui.core.entries import ToolCallEntry
from acp_tui.core.errors import HostError
from acp_tui.core.tool_paths import outside_paths
from acp_tui.ui.render import ThemePalette
from acp_tui.ui.render.tools import display_path

if TYPE_CHECKING:
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.screens.permission import PermissionScreen

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
    def __init__(self, app: AcpApp) -> None:
        self.app = app
        self.queue: list[str] = []
        self.showing: str | None = None
        self._screen: PermissionScreen | None = None

    def requested(self, request_id: str) -> None:
        self.queue.append(request_id)
        if self.showing is None:
            self._show_next()
        elif self._screen is not None:
            self._screen.update_total(1 + len(self.queue))

    def resolved(self, request_id: str) -> None:
        """The core resolved ``request_id`` (decided here or elsewhere)."""
        if request_id in self.queue:
            self.queue.remove(request_id)
        if self._screen is not None:
            self._screen.update_total(1 + len(self.queue))
        if request_id == self.showing and self._screen is not None:
            screen, self._screen = self._screen, None
            self.showing = None
            if screen.is_active or screen in self.app.screen_stack:
                screen.dismiss(None)
            self._show_next()

    def _show_next(self) -> None:
        # The dialog's module is loaded at the first request, not before the first frame.
        from acp_tui.ui.screens.permission import PermissionPrompt, PermissionScreen

        host = self.app.host
        while self.queue:
            request_id = self.queue.pop(0)
            pending = host.permissions.get(request_id)
            if pending is None:
                continue
            found = pending.owner.thread.tool_call(pending.tool_call_id)
            entry = found[1] if found is not None else None
            session = host.sessions.get(pending.owner.session_id)
            cwd = str(session.cwd) if session is not None else None
            outside = (
                outside_paths(entry, session.tools.fence)
                if entry is not None and session is not None
                else []
            )
            prompt = PermissionPrompt(
                request_id=request_id,
                title=one_line(entry.title if entry is not None else pending.tool_call_id),
                tool_kind=entry.tool_kind if entry is not None else "other",
                options=[_shown_option(option) for option in pending.options],
                preview=preview(entry, self._palette(), cwd) if entry else None,
                locations=_locations(entry, cwd),
                position=1,
                total=1 + len(self.queue),
                outside=[display_path(p, cwd) for p in outside],
                project=session.cwd.name or str(session.cwd) if session else "the project",
            )
            self.showing = request_id
            typing = time.monotonic() - self.app.last_typed < TYPING_WINDOW
            self._screen = PermissionScreen(
                prompt, arm_after=ARM_SECONDS if typing else 0.0, on_early_key=self._early_key
            )
            self.app.push_screen(self._screen, partial(self._answered, request_id))
            return

    def _early_key(self, event: events.Key) -> None:
        """A key typed while the dialog was not armed yet belongs to the draft."""
        if event.character:
            self.app.prompt.insert(event.character)

    def _palette(self) -> ThemePalette:
        return ThemePalette(self.app.theme_variables, self.app.current_theme.dark)

    def _answered(self, request_id: str, choice: str | None) -> None:
        self.app.prompt.mute_typing(KEY_REPEAT_GUARD)
        if self.showing == request_id:
            self.showing = None
            self._screen = None
        try:
            if choice is None:
                self.app.host.decide(request_id, cancelled=True)
            else:
                self.app.host.decide(request_id, choice)
        except HostError as exc:
            if exc.code not in ("already_decided", "not_found"):
                self.app.notify(exc.message, severity="error")
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
    lines = difflib.unified_diff(str(old or "").splitlines(), new.splitlines(), lineterm="", n=3)
    styles = {
        "+": palette.hex("text-success", "success"),
        "-": palette.hex("text-error", "error"),
        "@": palette.hex("text-secondary", "secondary"),
    }
    rows: list[tuple[str, str, str]] = []
    for count, line in enumerate(lines):
        if line.startswith(("---", "+++")) or (old is None and line.startswith("@@")):
            continue  # a new file needs no hunk header
        if count >= PREVIEW_LINES:
            rows.append(("", "… (diff continues)", ""))
            break
        marker = line[:1] if line[:1] in ("+", "-", " ") else ""
        body = clean(line[1:] if marker else line)
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
