"""Thread entries to Textual Strips: the renderers behind the virtualized entry log.

``EntryRenderer.render(entry, RenderOptions(width=..., styles=...))`` gives the
lines of one entry, each exactly ``width`` cells wide, the last one a blank
separator. Styles come from the Textual theme (``RenderStyles``).
"""

from acp_tui.core import KIND_ICONS
from acp_tui.ui.render.entries import EntryRenderer
from acp_tui.ui.render.options import RenderOptions
from acp_tui.ui.render.styles import RenderStyles, ThemePalette
from acp_tui.ui.render.tools import SPINNER_FRAMES

__all__ = [
    "KIND_ICONS",
    "SPINNER_FRAMES",
    "EntryRenderer",
    "RenderOptions",
    "RenderStyles",
    "ThemePalette",
]
