"""The permission modal: answers an agent's ``session/request_permission`` (AC-13).

The app pushes :class:`PermissionScreen` over the conversation, waits for its
result and hands the decision to the host core. The screen dismisses with the
chosen ``optionId``, or ``None`` ("cancelled") when the user presses Esc and the
agent offered no reject option.

Keys: each option's mnemonic (``y`` allow once, ``a`` always allow, ``n``
reject, ``N`` always reject) or its digit ``1``-``9`` chooses at once;
Up/Down (or k/j) move the highlight and Enter chooses it; Esc rejects;
PageUp/PageDown scroll the preview; a click on an option chooses it.

Nothing on this screen takes focus, so every key reaches the screen itself and
the focused widget underneath (the prompt draft) is left alone; Textual gives
it focus back when the screen is dismissed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from rich.cells import cell_len
from rich.console import RenderableType
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.css.scalar import Scalar
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.core import kind_icon, kind_label

__all__ = [
    "KIND_KEYS",
    "PermissionOptionRow",
    "PermissionPrompt",
    "PermissionScreen",
    "assign_keys",
]

ALLOW_ONCE = "allow_once"
ALLOW_ALWAYS = "allow_always"
REJECT_ONCE = "reject_once"
REJECT_ALWAYS = "reject_always"

#: The mnemonic key of the first option of each ACP permission kind.
KIND_KEYS: dict[str, str] = {
    ALLOW_ONCE: "y",
    ALLOW_ALWAYS: "a",
    REJECT_ONCE: "n",
    REJECT_ALWAYS: "N",
}

#: Below this many terminal rows the dialog drops its blank separator lines,
#: takes the whole height and puts its options on one row.
_COMPACT_BELOW = 30
#: Below this many columns the dialog takes the whole width.
_NARROW_BELOW = 100
_MIN_PREVIEW_ROWS = 3
_MAX_PREVIEW_ROWS = 20
_MAX_LOCATIONS = 4

#: Key names that stand for a mnemonic, beyond the mnemonic itself. A terminal
#: speaking the kitty keyboard protocol may report shift+n without its text.
_KEY_ALIASES: dict[str, str] = {"shift+n": "N"}


@dataclass(frozen=True)
class PermissionPrompt:
    """What the app knows about one pending permission request."""

    request_id: str
    title: str
    """The tool call's title, e.g. "Write demo-notes.md"."""
    tool_kind: str
    """read/edit/delete/move/search/execute/think/fetch/switch_mode/other."""
    options: list[dict[str, str]]
    """ACP options in the agent's order: ``{"optionId", "name", "kind"}``."""
    preview: RenderableType | None = None
    """A Rich renderable the app prepares: the diff or the command (may be tall)."""
    locations: list[str] = field(default_factory=list)
    """``"path:line"`` strings."""
    position: int = 1
    """This request's number among those pending."""
    total: int = 1
    """How many requests are pending ("1 of 3" is shown when more than one)."""
    outside: list[str] = field(default_factory=list)
    """Paths the request touches outside the session's roots (Reject is then preselected)."""
    project: str = ""
    """The session's folder, named in the "outside" warning."""


def assign_keys(options: list[dict[str, str]]) -> list[tuple[str | None, str | None]]:
    """``(shown key, digit)`` for each option, in order.

    The first option of each kind gets its mnemonic (:data:`KIND_KEYS`); an
    option whose kind is taken or unknown shows its digit instead. Every one of
    the first nine options also answers to its position's digit ``1``-``9``;
    since digits go by position they never collide with each other or with a
    mnemonic. Options past the ninth have no key (Up/Down + Enter reach them).
    """
    used: set[str] = set()
    keys: list[tuple[str | None, str | None]] = []
    for index, option in enumerate(options):
        digit = str(index + 1) if index < 9 else None
        mnemonic = KIND_KEYS.get(option.get("kind", ""))
        if mnemonic is not None and mnemonic not in used:
            used.add(mnemonic)
            keys.append((mnemonic, digit))
        else:
            keys.append((digit, digit))
    return keys


def _kind_class(kind: str) -> str:
    if kind.startswith("allow"):
        return "-allow"
    if kind.startswith("reject"):
        return "-reject"
    return "-neutral"


class PermissionOptionRow(Static):
    """One option: ``[y] Allow``; a click chooses it."""

    DEFAULT_CSS = """
    PermissionOptionRow {
        width: 1fr;
        height: auto;
        padding: 0 1;
        color: $foreground;
        &.-allow { color: $text-success; }
        &.-reject { color: $text-error; }
        &:hover { background: $boost; }
        &.-highlighted {
            background: $primary 30%;
            text-style: bold;
        }
        &.-highlighted:hover { background: $primary 40%; }
    }
    """

    class Chosen(Message):
        """The option at ``index`` was clicked."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int, option: dict[str, str], key: str | None) -> None:
        super().__init__(
            id=f"option-{index}", classes=_kind_class(option.get("kind", "")), markup=False
        )
        self.index = index
        self.option = option
        self.key = key
        self.label = f"[{key}]" if key else "   "
        self._show(highlighted=False)

    def _show(self, *, highlighted: bool) -> None:
        name = self.option.get("name") or self.option.get("optionId", "")
        self.update(
            Content.assemble(
                ("▶ " if highlighted else "  "),
                (self.label, "bold"),
                " ",
                name,
            )
        )

    def set_highlighted(self, highlighted: bool) -> None:
        self.set_class(highlighted, "-highlighted")
        self._show(highlighted=highlighted)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Chosen(self.index))


class PermissionScreen(ModalScreen[str | None]):
    """Dismisses with the chosen optionId, or None for "cancelled".

    ``None`` only happens when there is no reject option and the user pressed Esc.
    """

    DEFAULT_CSS = """
    PermissionScreen {
        align: center middle;
        overflow: hidden;
    }
    PermissionScreen > #dialog {
        width: 80%;
        max-width: 100;
        min-width: 40;
        height: auto;
        max-height: 80%;
        background: $panel;
        border: round $warning;
        padding: 0 1;
    }
    PermissionScreen #header {
        height: 1;
        width: 1fr;
    }
    PermissionScreen #heading {
        width: 1fr;
        color: $text-warning;
        text-style: bold;
    }
    PermissionScreen #counter {
        width: auto;
        color: $foreground-muted;
    }
    PermissionScreen #title {
        width: 1fr;
        height: auto;
        margin-top: 1;
        text-style: bold;
    }
    PermissionScreen #locations {
        width: 1fr;
        height: auto;
        color: $foreground-muted;
    }
    PermissionScreen #outside {
        width: 1fr;
        height: auto;
        color: $text-warning;
        text-style: bold;
    }
    PermissionScreen #preview {
        width: 1fr;
        height: auto;
        max-height: 20;
        margin-top: 1;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    PermissionScreen #preview-body {
        width: 1fr;
        height: auto;
        padding: 0 1;
    }
    PermissionScreen #options {
        width: 1fr;
        height: auto;
        margin-top: 1;
    }
    PermissionScreen #hint {
        width: 1fr;
        height: 1;
        margin-top: 1;
        color: $foreground-muted;
        text-overflow: ellipsis;
        text-wrap: nowrap;
    }
    PermissionScreen.-compact {
        #title, #preview, #options, #hint { margin-top: 0; }
        & > #dialog { max-height: 100%; }
    }
    /* Short terminals: the options on one row when they fit, so the request
       gets the height. */
    PermissionScreen.-one-row {
        #options { layout: horizontal; height: 1; }
        PermissionOptionRow { width: auto; padding: 0 2 0 0; }
    }
    PermissionScreen.-narrow > #dialog {
        width: 100%;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Previous option", show=False),
        Binding("down,j", "move(1)", "Next option", show=False),
        Binding("enter", "choose_highlighted", "Choose", show=False),
        Binding("escape", "escape", "Reject", show=False),
        Binding("pageup", "scroll_preview(-1)", "Scroll preview up", show=False),
        Binding("pagedown", "scroll_preview(1)", "Scroll preview down", show=False),
    ]

    def __init__(
        self,
        prompt: PermissionPrompt,
        *,
        arm_after: float = 0.0,
        on_early_key: Callable[[events.Key], None] | None = None,
    ) -> None:
        """``arm_after``: when the user was typing as the dialog appeared, keys
        answer nothing until they have paused this long (a "y" in the word
        they were typing must not approve an edit); until then printable keys
        go to ``on_early_key`` (the app puts them back in the draft)."""
        super().__init__()
        self.prompt = prompt
        self._arm_after = arm_after
        self._armed_at = time.monotonic() + arm_after
        self._on_early_key = on_early_key
        self._total = prompt.total
        self._keys = assign_keys(prompt.options)
        self._key_to_index: dict[str, int] = {}
        for index, (shown, digit) in enumerate(self._keys):
            for key in (shown, digit):
                if key is not None:
                    self._key_to_index.setdefault(key, index)
        for alias, key in _KEY_ALIASES.items():
            if key in self._key_to_index:
                self._key_to_index.setdefault(alias, self._key_to_index[key])
        kinds = [option.get("kind", "") for option in prompt.options]
        self.highlighted = kinds.index(ALLOW_ONCE) if ALLOW_ONCE in kinds else 0
        self._escape_index: int | None = next(
            (kinds.index(kind) for kind in (REJECT_ONCE, REJECT_ALWAYS) if kind in kinds), None
        )
        if prompt.outside and self._escape_index is not None:
            self.highlighted = self._escape_index  # outside the project: Reject first
        self._answered = False

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        prompt = self.prompt
        icon, label = kind_icon(prompt.tool_kind), kind_label(prompt.tool_kind)
        with Vertical(id="dialog"):
            with Horizontal(id="header"):
                yield Static("Permission requested", id="heading", markup=False)
                yield Static(self._counter_text(), id="counter", markup=False)
            yield Static(
                Content.assemble((f"{icon} {label}", "not bold dim"), "  ", prompt.title),
                id="title",
            )
            if prompt.outside:
                yield Static(Content(self._outside_text()), id="outside")
            if prompt.locations:
                yield Static(Content(self._locations_text()), id="locations")
            if prompt.preview is not None:
                with VerticalScroll(id="preview", can_focus=False):
                    yield Static(prompt.preview, id="preview-body")
            with Vertical(id="options"):
                for index, option in enumerate(prompt.options):
                    yield PermissionOptionRow(index, option, self._keys[index][0])
            yield Static(self._hint_text(), id="hint", markup=False)

    def on_mount(self) -> None:
        # The total may have changed between compose and mount.
        self.query_one("#counter", Static).update(self._counter_text())
        self._show_highlight()
        if self._arm_after > 0:
            self._delay_arming()
        self._fit()

    @property
    def armed(self) -> bool:
        """Whether keys answer the dialog yet."""
        return time.monotonic() >= self._armed_at

    def _delay_arming(self) -> None:
        self._armed_at = time.monotonic() + self._arm_after
        self.set_timer(self._arm_after + 0.01, self._refresh_hint)
        self._refresh_hint()

    def _refresh_hint(self) -> None:
        if self.is_attached:
            self._fit()

    def on_resize(self, event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        """Adapt to the terminal: compact spacing when short, a hint that fits."""
        height = self.size.height
        self.set_class(height < _COMPACT_BELOW, "-compact")
        self.set_class(self.size.width < _NARROW_BELOW, "-narrow")
        if self.size.width < _NARROW_BELOW:
            dialog_width = self.size.width
        else:
            dialog_width = min(100, max(40, int(self.size.width * 0.8)))
        for hint in self.query("#hint").results(Static):
            hint.update(self._hint_text(dialog_width - 4))
        row = sum(cell_len(r.label) + cell_len(r.option.get("name", "")) + 5 for r in self._rows())
        self.set_class(height < _COMPACT_BELOW and row <= dialog_width - 4, "-one-row")
        self.call_after_refresh(self._fit_preview)

    def _fit_preview(self) -> None:
        """Cap the preview's height so the options always fit in the dialog."""
        if self.prompt.preview is None or not self.is_attached:
            return
        dialog = self.query_one("#dialog", Vertical)
        preview = self.query_one("#preview", VerticalScroll)
        used = dialog.styles.border.spacing.height + dialog.styles.padding.height
        for child in dialog.children:
            used += child.styles.margin.height
            if child is not preview:
                used += child.outer_size.height
        share = 1.0 if self.has_class("-compact") else 0.8
        available = int(self.size.height * share) - used
        cap = max(_MIN_PREVIEW_ROWS, min(_MAX_PREVIEW_ROWS, available))
        if preview.styles.max_height != Scalar.from_number(cap):
            preview.styles.max_height = cap

    def _locations_text(self) -> str:
        """One location per line, at most :data:`_MAX_LOCATIONS` lines."""
        locations = self.prompt.locations
        if len(locations) <= _MAX_LOCATIONS:
            return "\n".join(f"  {location}" for location in locations)
        shown = locations[: _MAX_LOCATIONS - 1]
        more = f"  … and {len(locations) - len(shown)} more"
        return "\n".join([*(f"  {location}" for location in shown), more])

    def _outside_text(self) -> str:
        paths = self.prompt.outside
        shown = ", ".join(paths[:2]) + (f" and {len(paths) - 2} more" if len(paths) > 2 else "")
        return f"⚠ outside {self.prompt.project}: {shown}"

    def _counter_text(self) -> str:
        if self._total > 1:
            return f"{self.prompt.position} of {self._total}"
        return ""

    def _hint_text(self, width: int = 1000) -> str:
        """The longest hint that fits ``width`` cells."""
        if not self.armed:
            return "You were typing: the choices unlock when you pause"[:width]
        mnemonics = [key for key, _ in self._keys if key is not None and not key.isdigit()]
        choose = "/".join(mnemonics) if mnemonics else "1-9"
        escape = "Esc rejects" if self._escape_index is not None else "Esc cancels"
        scroll = ["PgUp/PgDn scroll"] if self.prompt.preview is not None else []
        variants = [
            [f"{choose} choose", "↑↓ + Enter", escape, *scroll],
            [f"{choose} choose", "↑↓ + Enter", escape],
            [choose, "↑↓ Enter", escape],
        ]
        for parts in variants:
            text = " · ".join(parts)
            if cell_len(text) <= width:
                return text
        return text

    def _rows(self) -> list[PermissionOptionRow]:
        return list(self.query(PermissionOptionRow))

    def _show_highlight(self) -> None:
        for row in self._rows():
            row.set_highlighted(row.index == self.highlighted)

    # ------------------------------------------------------------------ API

    def update_total(self, total: int) -> None:
        """More (or fewer) requests are pending behind this one: refresh the counter."""
        self._total = total
        if self.is_mounted:
            self.query_one("#counter", Static).update(self._counter_text())

    @property
    def total(self) -> int:
        return self._total

    # ------------------------------------------------------------------ input

    def _choose(self, index: int) -> None:
        if not self.armed or self._answered or not 0 <= index < len(self.prompt.options):
            return
        self._answered = True
        self.dismiss(self.prompt.options[index].get("optionId"))

    def on_key(self, event: events.Key) -> None:
        if not self.armed:
            event.stop()
            event.prevent_default()
            if event.key not in ("pageup", "pagedown"):
                self._delay_arming()
            if event.is_printable and self._on_early_key is not None:
                self._on_early_key(event)
            return
        index = self._key_to_index.get(event.key)
        if index is None:
            return
        event.stop()
        event.prevent_default()
        self._choose(index)

    def on_permission_option_row_chosen(self, message: PermissionOptionRow.Chosen) -> None:
        message.stop()
        self._choose(message.index)

    def action_move(self, delta: int) -> None:
        count = len(self.prompt.options)
        if count == 0:
            return
        self.highlighted = max(0, min(count - 1, self.highlighted + delta))
        self._show_highlight()
        row = self.query_one(f"#option-{self.highlighted}", PermissionOptionRow)
        row.scroll_visible(animate=False)

    def action_choose_highlighted(self) -> None:
        self._choose(self.highlighted)

    def action_escape(self) -> None:
        if not self.armed:
            return
        if self._escape_index is not None:
            self._choose(self._escape_index)
        elif not self._answered:
            self._answered = True
            self.dismiss(None)

    def action_scroll_preview(self, direction: int) -> None:
        previews = self.query("#preview").results(VerticalScroll)
        for preview in previews:
            if direction < 0:
                preview.scroll_page_up(animate=False)
            else:
                preview.scroll_page_down(animate=False)
