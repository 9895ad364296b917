"""The look of the elicitation modals, pinned as SVG snapshots in
snapshots/test_elicitation_snapshots/ (review a changed SVG before accepting it
with ``pytest --snapshot-update``).

The modals stand alone here (the app wires them in later): a small app in the
shipped acp-dark theme with a few lines of conversation underneath.
"""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from acp_tui.ui.screens.elicitation import ElicitationFormScreen
from acp_tui.ui.screens.elicitation_url import UrlElicitationScreen
from acp_tui.ui.themes import DEFAULT_THEME, register_themes
from tests.ui.test_elicitation_screen import MESSAGE

#: A form with one field of every type, a title and descriptions.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "Deployment",
    "properties": {
        "name": {"type": "string", "title": "Your name", "description": "As on your badge",
                 "minLength": 2, "maxLength": 40},
        "email": {"type": "string", "title": "Email", "format": "email"},
        "day": {"type": "string", "title": "Release date", "format": "date",
                "default": "2026-12-24"},
        "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10,
                     "default": 3},
        "ratio": {"type": "number", "title": "Canary ratio", "minimum": 0, "maximum": 1},
        "notify": {"type": "boolean", "title": "Notify the team", "default": True},
        "region": {"type": "string", "title": "Region", "oneOf": [
            {"const": "eu", "title": "Europe", "description": "Frankfurt"},
            {"const": "us", "title": "United States"},
            {"const": "ap", "title": "Asia Pacific"}]},
        "checks": {"type": "array", "title": "Checks to run", "minItems": 1,
                   "items": {"anyOf": [{"const": "lint", "title": "Lint"},
                                       {"const": "unit", "title": "Unit tests"},
                                       {"const": "e2e", "title": "End-to-end"}]},
                   "default": ["unit"]},
    },
    "required": ["name", "email", "region", "checks"],
}  # fmt: skip


class ModalHost(App[None]):
    def __init__(self, screen: ModalScreen[Any]) -> None:
        super().__init__()
        register_themes(self)
        self.theme = DEFAULT_THEME
        self.modal = screen

    def compose(self) -> ComposeResult:
        lines = ["› deploy the release branch", "", "I'll start the deploy; it needs details."]
        yield Static("\n".join(lines * 12), id="log")

    def on_mount(self) -> None:
        self.push_screen(self.modal)


def form_app() -> ModalHost:
    return ModalHost(ElicitationFormScreen(MESSAGE, SCHEMA, agent="Claude Code"))


async def settle(pilot: Pilot[Any]) -> None:
    """Let it lay out; a steady cursor (a blinking one is on or off by timing)."""
    await pilot.pause()
    for field in pilot.app.screen.query(Input):
        field.cursor_blink = False
    await pilot.pause(0.2)


def test_form_80x24(snap_compare: Any) -> None:
    """80x24: "Question from Claude Code", the message and the schema's title,
    then the fields, scrolling (the first, "Your name *", has the focus, its
    hint "As on your badge (2–40 characters)" under it; "Release date" holds
    its default 2026-12-24, "Replicas" 3); the Accept ^S / Decline ^N /
    Cancel Esc buttons and the short key hint stay at the bottom."""
    assert snap_compare(form_app(), terminal_size=(80, 24), run_before=settle)


def test_form_wide(snap_compare: Any) -> None:
    """120x40: the same form with spacing, scrolling at "Region *" (its radio
    buttons, none chosen and no cursor shown while unfocused; "Europe" with its
    description "Frankfurt" dimmed); "Notify the team" is a ticked checkbox;
    the full key hint under the buttons."""
    assert snap_compare(form_app(), terminal_size=(120, 40), run_before=settle)


def test_form_wide_with_errors(snap_compare: Any) -> None:
    """120x40 after Ctrl+S on the empty form: "✗ Required." in red under "Your
    name" (label red too, focused) and "Email"; the others have no message."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)

    assert snap_compare(form_app(), terminal_size=(120, 40), run_before=run_before)


def test_url_80x24(snap_compare: Any) -> None:
    """80x24 url mode: "Claude Code asks you to open a page", the message, "It
    goes to login.example.com:" with the host in bold, the URL on its own
    background, "Waiting for the agent to say it is done…", and the keys
    "o open in the browser · c copy · d decline · Esc cancel"."""
    screen = UrlElicitationScreen(
        "Sign in to your account to continue.",
        "https://login.example.com/device?code=ABCD-1234",
        agent="Claude Code",
    )
    assert snap_compare(ModalHost(screen), terminal_size=(80, 24), run_before=settle)
