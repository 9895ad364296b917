"""Closing a modal from outside when it may not be the top screen.

``Screen.dismiss`` pops whatever screen is on top: a question withdrawn by the
agent while a permission dialog or the help covers its modal would close that
one instead. :class:`ClosesOnTop` closes the screen now when it is on top, else
the moment it is again (``ScreenResume``), with the result given then.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen


class ClosesOnTop:
    """Mixin for a :class:`~textual.screen.Screen`: :meth:`dismiss_on_top`."""

    _deferred: tuple[Any] | None = None

    def dismiss_on_top(self, result: Any) -> None:
        screen = self._as_screen()
        if screen.app.screen is screen:
            screen.dismiss(result)
        else:
            self._deferred = (result,)

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        deferred, self._deferred = self._deferred, None
        if deferred is not None:
            self._as_screen().dismiss(deferred[0])

    def _as_screen(self) -> Screen[Any]:
        assert isinstance(self, Screen)
        return self
