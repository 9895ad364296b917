"""The status line: agent, mode, config values, turn state and usage."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from acp_tui.core.content_text import one_line
from acp_tui.ui.render import ThemePalette


@dataclass(frozen=True)
class StatusInfo:
    agent: str = ""
    agent_version: str = ""
    title: str = ""
    mode: str = ""
    #: (option id, option name, current value's name) for the agent's config
    #: options (the model…); a click on one opens its picker.
    config: tuple[tuple[str, str, str], ...] = ()
    status: str = "starting"
    running_since: float | None = None
    stop_reason: str | None = None
    used_tokens: int | None = None
    context_size: int | None = None
    cost: str = ""
    queued: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)


def _click(action: str) -> Style:
    """A style that runs ``action`` when its text is clicked (Textual's @click)."""
    return Style.from_meta({"@click": action})


def now() -> float:
    """The clock for elapsed times (a seam tests replace to pin snapshots)."""
    return time.monotonic()


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1_000:
        return f"{count / 1_000:.1f}k"
    return str(count)


def _elapsed(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class StatusBar(Widget):
    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    info: reactive[StatusInfo] = reactive(StatusInfo)

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        if self.info.running_since is not None:
            self.refresh()

    def render(self) -> Text:
        info = self.info
        palette = ThemePalette(self.app.theme_variables, self.app.current_theme.dark)
        accent = palette.hex("text-accent", "accent")
        muted = palette.hex("foreground-muted", "foreground")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("● ", style=palette.hex("text-success", "success"))
        # Every field but the counts comes from the agent: one line, cleaned.
        text.append(one_line(info.agent) or "agent", style="bold")
        if info.agent_version:
            text.append(f" {one_line(info.agent_version)}", style=muted)
        if info.title:
            text.append(f"  {one_line(info.title)}", style="italic")
        if info.mode:
            text.append("  mode ", style=muted)
            text.append(
                one_line(info.mode), style=Style.parse(accent) + _click("app.choose_mode()")
            )
        for config_id, name, value in info.config:
            text.append(f"  {one_line(name)} ", style=muted)
            text.append(
                one_line(value),
                style=Style.parse(accent) + _click(f"app.choose_config({config_id!r})"),
            )
        text.append("  ")
        text.append_text(self._turn(info, palette))
        if info.queued:
            text.append(f"  ⏳ {info.queued} queued", style=palette.hex("text-warning", "warning"))
        if info.used_tokens is not None:
            text.append("  ")
            usage = _tokens(info.used_tokens)
            if info.context_size:
                share = 100 * info.used_tokens / info.context_size
                usage += f"/{_tokens(info.context_size)} ({share:.0f}%)"
            text.append(usage + " tokens", style=muted)
        if info.cost:
            text.append(f"  {one_line(info.cost)}", style=muted)
        return text

    @staticmethod
    def _turn(info: StatusInfo, palette: ThemePalette) -> Text:
        if info.status == "running" and info.running_since is not None:
            elapsed = _elapsed(now() - info.running_since)
            return Text(
                f"◐ running {elapsed} · Esc to cancel", style=palette.hex("text-warning", "warning")
            )
        if info.status == "error":
            return Text("✗ error", style=palette.hex("text-error", "error"))
        if info.status == "closed":
            return Text("✗ agent gone · send to restart", style=palette.hex("text-error", "error"))
        if info.status == "starting":
            return Text("… starting", style=palette.hex("foreground-muted", "foreground"))
        reason = info.stop_reason
        if reason and reason != "end_turn":
            return Text(
                f"○ idle ({one_line(reason.replace('_', ' '))})",
                style=palette.hex("foreground-muted", "foreground"),
            )
        return Text("○ ready", style=palette.hex("foreground-muted", "foreground"))
