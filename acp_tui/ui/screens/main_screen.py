"""The window's screen, whose next frame comes at most a frame after the last.

A screen repaints from an update timer that is paused while nothing is
dirty and resumed when something is. In Textual 8.2.8 that timer's catch-up
arithmetic (``Timer._run`` with ``skip``) counts from the timer's start and
lands one period too far: a timer resumed after a pause ticks at once, but
its next tick then comes one to *two* periods later. Under a stream the log
dirties the screen every few frames, so a key typed just after a frame
waited up to 33 ms for its own (bench/keys.py saw 17-33 ms of it per key).

:class:`FrameTimer` ticks when it is resumed, no sooner than one period
after its last tick. The frame rate is Textual's (``TEXTUAL_FPS``, 60), but
for the frame that shows the user's input, which comes at once and holds
that input alone (ui/input_first.py).

This reaches into Textual's private timer and screen (``Timer._run``,
``Screen._update_timer``, ``_on_timer_update``, ``_dirty_widgets``);
Textual is pinned exactly, and tests/ui/test_input_first.py checks the
timer against the pinned release and the screen's frames by what they paint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual import _time, messages
from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import EventTargetGone, Timer
from textual.widget import Widget


class FrameTimer(Timer):
    """A repeating timer that, once resumed, ticks at most one period after
    its last tick, or at once while ``urgent()`` or when :meth:`hurry` is called."""

    def __init__(self, *args: Any, urgent: Callable[[], bool], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.urgent = urgent
        self._hurry = asyncio.Event()

    def hurry(self) -> None:
        """Tick now if a tick is due (urgent work came while it waited)."""
        self._hurry.set()

    async def _run(self) -> None:
        interval = self._interval
        active: asyncio.Event = self._active
        last = _time.get_time() - interval
        while True:
            await active.wait()
            wait = last + interval - _time.get_time()
            if wait > 0 and not self.urgent():
                await self._sleep(wait)
                await active.wait()
            last = _time.get_time()
            try:
                await self._tick(next_timer=last, count=0)
            except EventTargetGone:
                break

    async def _sleep(self, seconds: float) -> None:
        """``seconds``, or until :meth:`hurry`."""
        self._hurry.clear()
        sleeping = asyncio.ensure_future(_time.sleep(seconds))
        hurried = asyncio.ensure_future(self._hurry.wait())
        try:
            await asyncio.wait((sleeping, hurried), return_when=asyncio.FIRST_COMPLETED)
        finally:
            sleeping.cancel()
            hurried.cancel()


class MainScreen(Screen[None]):
    """The app's default screen, updated by a :class:`FrameTimer`.

    While ``urgent()`` (the user's input is on its way), its frames come at
    once and hold only the focused widget: the others' repaints (the log a
    stream grows, its scroll bar, the session bar) wait for
    :meth:`repaint_deferred`, so the input's frame costs the prompt's lines
    and not a page of the log's. They wait ``patience`` seconds at most
    (should the input's frame never come)."""

    _frame_timer: FrameTimer | None = None

    def __init__(self, urgent: Callable[[], bool], patience: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._urgent = urgent
        self._patience = patience
        self._deferred: set[Widget] = set()

    def _is_input(self, widget: Widget) -> bool:
        """Whether ``widget`` shows the input (the focused widget, or in it)."""
        focused = self.focused
        return widget is self or (
            focused is not None and (widget is focused or focused in widget.ancestors)
        )

    async def _on_update(self, message: messages.Update) -> None:
        widget = message.widget
        if not self._urgent():
            return  # (Screen._on_update marks it dirty)
        if self._is_input(widget):
            if self._frame_timer is not None:
                self._frame_timer.hurry()  # (it may wait out a frame begun before the input)
            return
        message.stop()
        message.prevent_default()
        self._defer([widget])

    def _on_timer_update(self) -> None:
        if self._urgent():
            # What was dirty before the input came waits too (Textual 8.2.8's
            # set of widgets to paint in the next frame).
            dirty: set[Widget] = self._dirty_widgets
            later = [widget for widget in dirty if not self._is_input(widget)]
            dirty.difference_update(later)
            self._defer(later)
        super()._on_timer_update()

    def _defer(self, widgets: list[Widget]) -> None:
        if widgets and not self._deferred:
            asyncio.get_running_loop().call_later(self._patience, self._repaint_when_calm)
        self._deferred.update(widgets)

    def _repaint_when_calm(self) -> None:
        if not self._deferred:
            return
        if self._urgent():
            asyncio.get_running_loop().call_later(self._patience, self._repaint_when_calm)
        else:
            self.repaint_deferred()

    def repaint_deferred(self) -> None:
        """Repaint what waited for the input's frame."""
        deferred, self._deferred = self._deferred, set()
        for widget in deferred:
            if widget.is_attached:
                self.post_message(messages.Update(widget))

    @property
    def _update_timer(self) -> Timer:  # (Textual's, a Timer made on first use)
        timer = self._frame_timer
        if timer is None:
            update = self._on_timer_update
            timer = FrameTimer(
                self,
                UPDATE_PERIOD,
                name="screen_update",
                callback=update,
                pause=True,
                urgent=self._urgent,
            )
            timer._start()
            self._timers.add(timer)
            self._frame_timer = timer
        return timer
