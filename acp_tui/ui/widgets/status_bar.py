"""The status line: agent, mode, config values, turn state and usage."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from acp_tui.core import one_line
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


#: How many ways of shortening the line :meth:`StatusBar.render` tries, in
#: order: drop the version; the title; shorten config values (the model) to 12
#: cells; drop the key hints; the usage share and "tokens"; shorten the agent's
#: name; drop the labels; shorten the mode; the queue count; drop the mode;
#: the config values.
FIT_LEVELS = 12


def _short(name: str, limit: int) -> str:
    """``name`` cut to ``limit`` cells with an ellipsis (0: whole). A model
    name loses its parenthesis first: "Default (recommended)" → "Default"."""
    if not limit or len(name) <= limit:
        return name
    base = name.split(" (", 1)[0].strip()
    if 0 < len(base) <= limit:
        return base
    return name[: limit - 1].rstrip() + "…"


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
        """The line at the widget's width: what does not fit goes first (the
        version, the title, the key hint), then names are abbreviated (the
        model's, the mode's, the agent's); the state, usage and cost stay."""
        palette = ThemePalette(self.app.theme_variables, self.app.current_theme.dark)
        width = self.content_region.width or 1000
        for level in range(FIT_LEVELS):
            text = self._line(self.info, palette, level)
            if text.cell_len <= width:
                return text
        return text

    def _line(self, info: StatusInfo, palette: ThemePalette, level: int) -> Text:
        """The line shortened ``level`` steps (see :data:`FIT_LEVELS`)."""
        accent = palette.hex("text-accent", "accent")
        muted = palette.hex("foreground-muted", "foreground")
        labels = level < 7
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("● ", style=palette.hex("text-success", "success"))
        # Every field but the counts comes from the agent: one line, cleaned.
        agent = one_line(info.agent) or "agent"
        text.append(_short(agent, 8 if level >= 6 else 0), style="bold")
        if info.agent_version and level < 1:
            text.append(f" {one_line(info.agent_version)}", style=muted)
        if info.title and level < 2:
            text.append(f"  {one_line(info.title)}", style="italic")
        if info.mode and level < 10:
            text.append("  mode " if labels else "  ", style=muted)
            mode = _short(one_line(info.mode), 10 if level >= 8 else 0)
            text.append(mode, style=Style.parse(accent) + _click("app.choose_mode()"))
        if level < 11:
            for config_id, name, value in info.config:
                text.append(f"  {one_line(name)} " if labels else "  ", style=muted)
                shown = _short(one_line(value), 12 if level >= 3 else 0)
                click = _click(f"app.choose_config({config_id!r})")
                text.append(shown, style=Style.parse(accent) + click)
        text.append("  ")
        text.append_text(self._turn(info, palette, hint=level < 4))
        if info.queued:
            queued = f"  ⏳ {info.queued} queued" if level < 9 else f"  ⏳{info.queued}"
            text.append(queued, style=palette.hex("text-warning", "warning"))
        if info.used_tokens is not None:
            text.append("  ")
            usage = _tokens(info.used_tokens)
            if info.context_size:
                usage += f"/{_tokens(info.context_size)}"
                if level < 5:
                    usage += f" ({100 * info.used_tokens / info.context_size:.0f}%)"
            text.append(usage + (" tokens" if level < 5 else ""), style=muted)
        if info.cost:
            text.append(f"  {one_line(info.cost)}", style=muted)
        return text

    @staticmethod
    def _turn(info: StatusInfo, palette: ThemePalette, *, hint: bool = True) -> Text:
        if info.status == "running":
            # (A turn another window started, on a background host: no start time here.)
            since = info.running_since
            elapsed = f" {_elapsed(now() - since)}" if since is not None else ""
            return Text(
                f"◐ running{elapsed}" + (" · Esc to cancel" if hint else ""),
                style=palette.hex("text-warning", "warning"),
            )
        if info.status == "error":
            return Text("✗ error", style=palette.hex("text-error", "error"))
        if info.status == "closed":
            return Text(
                "✗ agent gone" + (" · send to restart" if hint else ""),
                style=palette.hex("text-error", "error"),
            )
        if info.status == "failed":
            return Text(
                "✗ not started" + (" · send to retry" if hint else ""),
                style=palette.hex("text-error", "error"),
            )
        if info.status == "starting":
            return Text("… starting", style=palette.hex("foreground-muted", "foreground"))
        reason = info.stop_reason
        if reason and reason != "end_turn":
            return Text(
                f"○ idle ({one_line(reason.replace('_', ' '))})",
                style=palette.hex("foreground-muted", "foreground"),
            )
        return Text("○ ready", style=palette.hex("foreground-muted", "foreground"))
