"""The agent's plan: a collapsible list of items with their status."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from acp_tui.core import one_line
from acp_tui.ui.render import ThemePalette

ICONS = {"pending": "○", "in_progress": "◐", "completed": "●"}


class PlanPanel(Widget):
    """Hidden while there is no plan; Ctrl+T folds it to one line."""

    DEFAULT_CSS = """
    PlanPanel {
        height: auto;
        max-height: 12;
        background: $surface;
        border-top: solid $panel-lighten-1;
        padding: 0 1;
        display: none;
    }
    PlanPanel.-has-plan {
        display: block;
    }
    """

    entries: reactive[list[dict[str, Any]]] = reactive(list, always_update=True)
    folded: reactive[bool] = reactive(False)

    def watch_entries(self, entries: list[dict[str, Any]]) -> None:
        self.set_class(bool(entries), "-has-plan")

    def render(self) -> Text:
        palette = ThemePalette(self.app.theme_variables, self.app.current_theme.dark)
        styles = {
            "pending": palette.hex("foreground-muted", "foreground"),
            "in_progress": palette.hex("text-warning", "warning"),
            "completed": palette.hex("text-success", "success"),
        }
        done = sum(1 for e in self.entries if e.get("status") == "completed")
        text = Text()
        text.append(f"Plan {done}/{len(self.entries)}", style="bold")
        if self.folded:
            current = next(
                (e for e in self.entries if e.get("status") == "in_progress"),
                None,
            )
            if current is not None:
                content = one_line(str(current.get("content", "")))
                text.append(f"  ◐ {content}", style=styles["in_progress"])
            text.append("  (Ctrl+T to unfold)", style=styles["pending"])
            return text
        for entry in self.entries:
            status = str(entry.get("status", "pending"))
            text.append("\n")
            text.append(f"{ICONS.get(status, '○')} ", style=styles.get(status, ""))
            content_style = "strike " + styles["completed"] if status == "completed" else ""
            text.append(one_line(str(entry.get("content", ""))), style=content_style)
            if entry.get("priority") == "high" and status != "completed":
                text.append("  !", style=palette.hex("text-error", "error"))
        return text
