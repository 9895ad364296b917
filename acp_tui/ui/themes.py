"""The shipped themes (top-level ``themes/*.toml``) as Textual themes, and
keeping the one picked in the palette in the config file.

Installed, the folder is the package ``acp_tui.themes``; in a source
checkout (an editable install) it is read from beside the package.
"""

from __future__ import annotations

import importlib.resources
import os
import tomllib
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

from textual.app import App
from textual.theme import Theme

from acp_tui.agents.config import config_path, display_path
from acp_tui.agents.config_text import save_theme

DEFAULT_THEME = "acp-dark"
_THEME_FIELDS = {f.name for f in fields(Theme)}


class ThemeError(ValueError):
    """A theme file that cannot be used (the message names the file)."""


def _theme_files() -> Iterator[tuple[str, str]]:
    try:
        folder = importlib.resources.files("acp_tui.themes")
        for item in folder.iterdir():
            if item.name.endswith(".toml"):
                yield item.name, item.read_text(encoding="utf-8")
        return
    except ModuleNotFoundError:
        pass
    source = Path(__file__).resolve().parents[2] / "themes"
    for path in sorted(source.glob("*.toml")):
        yield path.name, path.read_text(encoding="utf-8")


def parse_theme(name: str, text: str) -> Theme:
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"{name}: {exc}") from None
    unknown = sorted(set(data) - _THEME_FIELDS)
    if unknown:
        raise ThemeError(f"{name}: unknown keys {', '.join(unknown)}")
    if "name" not in data or "primary" not in data:
        raise ThemeError(f"{name}: a theme needs at least name and primary")
    try:
        return Theme(**data)
    except (TypeError, ValueError) as exc:
        raise ThemeError(f"{name}: {exc}") from None


def shipped_themes() -> list[Theme]:
    return sorted((parse_theme(name, text) for name, text in _theme_files()), key=lambda t: t.name)


def register_themes(app: App[Any]) -> list[str]:
    """Register every shipped theme on ``app``; returns their names."""
    names = []
    for theme in shipped_themes():
        app.register_theme(theme)
        names.append(theme.name)
    return names


def start_theme(app: App[Any], requested: str | None) -> str | None:
    """Before ``app`` runs: register the shipped themes and start on
    ``requested`` (else the default). Returns a warning for an unknown name.

    Set before the stylesheet is first parsed, the theme costs no second
    parse of all the CSS (setting ``app.theme`` later re-parses it), which is
    about a tenth of the time to the first frame."""
    names = register_themes(app)
    wanted = requested or DEFAULT_THEME
    warning = None
    if wanted not in app.available_themes:
        warning = f"Unknown theme {wanted!r}; themes: {', '.join(sorted(app.available_themes))}"
        wanted = DEFAULT_THEME if DEFAULT_THEME in names else "textual-dark"
    app.set_reactive(App.theme, wanted)
    # What App._watch_theme does for a theme set at run time, but the re-parse
    # (the first parse is yet to come, with these variables).
    app.stylesheet.set_variables(app.get_css_variables())
    theme = app.current_theme
    app.set_class(True, f"-theme-{theme.name}", update=False)
    app.set_class(theme.dark, "-dark-mode", update=False)
    app.set_class(not theme.dark, "-light-mode", update=False)
    app._refresh_truecolor_filter(app.ansi_theme)
    return warning


def keep_picked_themes(app: App[Any], current: str) -> None:
    """From now on, a theme picked in ``app`` (the command palette) is written
    to the config file; ``current``, the one it starts with, is not."""
    kept = [current]

    def picked(theme: Theme) -> None:
        if theme.name == kept[0]:
            return
        kept[0] = theme.name
        path = config_path(os.environ)
        try:
            save_theme(path, theme.name)
        except OSError as exc:
            app.notify(f"Theme not saved to {display_path(path)}: {exc}", severity="warning")

    app.theme_changed_signal.subscribe(app, picked)
