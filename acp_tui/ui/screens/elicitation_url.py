"""The url-mode elicitation modal: the agent asks the user to do something on a
web page (sign in, pay, grant access) that acp-tui must not see.

Opening it and getting the outcome::

    screen = UrlElicitationScreen(message, url, agent="Claude Code", on_consent=...)
    app.push_screen(screen, on_done)
    ...
    screen.complete()      # the agent sent elicitation/complete for this elicitationId
    screen.withdraw()      # the question was withdrawn ($/cancel_request, turn ended)

``on_done`` gets ``{"action": "accept"}`` after :meth:`complete`,
``{"action": "decline"}`` or ``{"action": "cancel"}`` when the user says no or
presses Esc, and ``None`` after :meth:`withdraw`. ``on_consent`` (optional) is
called once, the first time the user opens or copies the URL: the moment the
user agreed to go there, for a surface that answers ``accept`` at once and
then waits for ``elicitation/complete``.

The screen shows the URL's host on its own line (ACP: the client shows the
target host and asks before navigating), and the whole URL. Keys: ``o`` (or
Enter) opens it in the browser (``webbrowser``: $BROWSER, else what it finds;
a terminal browser gets the terminal while the app is suspended) — only
``http``/``https`` URLs, and it says so when there is no browser; ``c`` copies it
(ui/clipboard.py: the system clipboard, else the terminal's); ``d`` declines;
Esc cancels. Nothing on it takes focus, so the draft underneath keeps its
text.
"""

from __future__ import annotations

import urllib.parse
import webbrowser
from collections.abc import Callable
from typing import Any, ClassVar

from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.core import one_line
from acp_tui.ui.clipboard import copy_text, over_ssh

__all__ = ["UrlElicitationScreen"]


def _printable(text: str) -> str:
    """Agent text on one line, made safe by the core's one sanitizer."""
    return one_line(text)


class UrlElicitationScreen(ModalScreen[dict[str, Any] | None]):
    DEFAULT_CSS = """
    UrlElicitationScreen { align: center middle; }
    UrlElicitationScreen > #dialog {
        width: 80%;
        max-width: 100;
        min-width: 40;
        height: auto;
        max-height: 90%;
        background: $panel;
        border: round $accent;
        padding: 0 1;
    }
    UrlElicitationScreen #header { height: 1; width: 1fr; }
    UrlElicitationScreen #heading { width: 1fr; color: $text-accent; text-style: bold; }
    UrlElicitationScreen #message { width: 1fr; height: auto; margin-top: 1; }
    UrlElicitationScreen #host { width: 1fr; height: auto; margin-top: 1; }
    UrlElicitationScreen #url {
        width: 1fr;
        height: auto;
        max-height: 6;
        background: $surface;
        padding: 0 1;
        color: $text-primary;
    }
    UrlElicitationScreen #status {
        width: 1fr;
        height: auto;
        margin-top: 1;
        color: $foreground-muted;
    }
    UrlElicitationScreen #hint {
        width: 1fr;
        height: 1;
        margin-top: 1;
        color: $foreground-muted;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o,enter", "open", "Open in the browser", show=False),
        Binding("c", "copy", "Copy the URL", show=False),
        Binding("d", "decline", "Decline", show=False),
        Binding("escape", "cancel", "Cancel", show=False),
    ]
    AUTO_FOCUS = ""

    def __init__(
        self,
        message: str,
        url: str,
        *,
        agent: str = "",
        on_consent: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self.message = message
        self.url = url
        self.agent = agent
        self._on_consent = on_consent
        self.consented = False
        self._answered = False
        parts = urllib.parse.urlsplit(url)
        self.scheme = parts.scheme.lower()
        self.host = parts.hostname or ""
        self.openable = self.scheme in ("http", "https") and bool(self.host)

    def compose(self) -> ComposeResult:
        heading = f"{self.agent} asks you to open a page" if self.agent else "Open a page"
        with Vertical(id="dialog"):
            with Horizontal(id="header"):
                yield Static(heading, id="heading", markup=False)
            yield Static(_printable(self.message), id="message", markup=False)
            if self.openable:
                host = Content.assemble("It goes to ", (_printable(self.host), "bold"), ":")
            else:
                host = Content.assemble(
                    ("Not a web address", "bold $text-warning"),
                    f" ({_printable(self.scheme) or 'no scheme'}): acp-tui will not open it;"
                    " copy it if you trust it:",
                )
            yield Static(host, id="host")
            yield Static(_printable(self.url), id="url", markup=False)
            yield Static("Waiting for the agent to say it is done…", id="status", markup=False)
            yield Static(self._hint_text(), id="hint", markup=False)

    def _hint_text(self) -> str:
        parts = ["o open in the browser"] if self.openable else []
        parts += ["c copy", "d decline", "Esc cancel"]
        return " · ".join(parts)

    # ------------------------------------------------------------------ API

    def complete(self) -> None:
        """The agent sent ``elicitation/complete``: close with ``accept``."""
        self._finish({"action": "accept"})

    def withdraw(self) -> None:
        """Close without an answer (the question was withdrawn)."""
        self._finish(None)

    # ------------------------------------------------------------------ actions

    def _finish(self, result: dict[str, Any] | None) -> None:
        if self._answered or not self.is_attached:
            return
        self._answered = True
        self.dismiss(result)

    def _consent(self) -> None:
        if not self.consented:
            self.consented = True
            if self._on_consent is not None:
                self._on_consent()

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)

    def action_open(self) -> None:
        if not self.openable:
            self._status("acp-tui opens only http and https addresses; press c to copy it.")
            return
        self._consent()
        if not self._open_in_browser():
            self._status("No web browser found on this machine: press c to copy the URL.")
            return
        where = "the browser on the machine acp-tui runs on" if over_ssh() else "your browser"
        self._status(
            f"Opened in {where} (c copies it if nothing showed up). Waiting for the agent…"
        )

    def _open_in_browser(self) -> bool:
        """``webbrowser`` ($BROWSER, else what it finds); False when there is none.

        A browser that runs in the foreground (a terminal one like lynx, or a
        $BROWSER command) gets the terminal: the app is suspended meanwhile.
        """
        try:
            browser = webbrowser.get()
        except webbrowser.Error:
            return False
        if type(browser) is webbrowser.GenericBrowser:
            try:
                with self.app.suspend():
                    return browser.open(self.url)
            except SuspendNotSupported:  # no terminal to hand over (tests, the web driver)
                pass
        return browser.open(self.url)

    def action_copy(self) -> None:
        self._consent()
        where = copy_text(self.app, self.url)
        self._status(f"Copied to {where}. Waiting for the agent to say it is done…")

    def action_decline(self) -> None:
        self._finish({"action": "decline"})

    def action_cancel(self) -> None:
        self._finish({"action": "cancel"})
