"""Textual's Linux driver, made safe for a terminal that goes away.

Workarounds for Textual 8.2.8 (textual/drivers/linux_driver.py and
_writer_thread.py), seen when the terminal closes while the app runs
(issue 12, point 1: `tmux kill-session` left acp-tui running for ever):

* The writer thread writes to the terminal with no error handling. Once the
  terminal is gone a write raises ``EIO``, the thread dies, and its queue
  (30 writes) is never drained again: the next writes, and the final
  ``WriterThread.stop()`` in ``App._shutdown``, block in ``Queue.put`` for
  ever, with the event loop inside them (no signal handler of the loop runs
  again). Here the thread writes through :class:`LossTolerantOutput`, which
  turns the first failed write into "the terminal is lost" (the app's
  ``terminal_lost()``: the exit guard ends the process) and drops every
  later write, so the queue keeps draining.
* ``close()`` waits at most :data:`CLOSE_WAIT` seconds for the writer.
* A hang-up brings ``SIGCONT`` with ``SIGHUP``, and Textual's ``SIGCONT``
  handler restarts application mode although it was never suspended (a
  second writer and input thread). Here it resumes only after a suspend.
* Alt+Enter: a terminal without the kitty keyboard protocol sends it as ESC
  CR, which Textual's parser reads as a plain ``enter`` (the Alt is dropped).
  Here the input thread reads with :class:`AltKeysParser`, which makes ESC
  CR the ``alt+enter`` key that kitty-protocol terminals send as
  ``CSI 13;3u`` (Alt+Enter steers a turn: see ui/turns.py).
* Alt+1…Alt+9: sent as ESC and the digit, which Textual reads as the
  characters macOS's Option key types ("¡", "™"…, for WezTerm); here they are
  the ``alt+N`` keys that switch sessions (ui/tab_window.py).

And for speed (ui/input_first.py): a key or a paste is announced to the app
(``input_arrived``) from the input thread, before the loop sees it, and
every message goes to the app in one hop (``App.post_message``, safe from a
thread) rather than Textual's three (a coroutine scheduled on the loop,
which then queues it).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import selectors
import termios
import threading
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterable
from typing import IO, Any

from textual import events
from textual._loop import loop_last
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

#: How long closing the driver waits for the writer thread to finish.
CLOSE_WAIT = 1.0
#: What Textual's stop_application_mode writes: the normal screen, the cursor,
#: no mouse reports, no bracketed paste, the kitty keyboard protocol off.
RESTORE = "\x1b[<u\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l\x1b[?1049l\x1b[?25h"


class LossTolerantOutput:
    """A text file that never raises: after the first failure it drops writes."""

    def __init__(self, file: IO[str], on_lost: Callable[[], None]) -> None:
        self._file = file
        self._on_lost = on_lost
        self.lost = False
        self._lock = threading.Lock()
        #: Writes done (the writer thread counts them).
        self.written = 0
        #: Called (in the writer thread) after each flush.
        self.on_flush: Callable[[], None] = lambda: None

    def _lose(self) -> None:
        with self._lock:
            if self.lost:
                return
            self.lost = True
        with contextlib.suppress(Exception):
            self._on_lost()

    def write(self, text: str) -> int:
        if not self.lost:
            try:
                self._file.write(text)
            except (OSError, ValueError):
                self._lose()
        self.written += 1
        return len(text)

    def flush(self) -> None:
        if not self.lost:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self._lose()
        with contextlib.suppress(Exception):  # (the writer thread must never die)
            self.on_flush()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return True


class WrittenSignal:
    """Which of the writes handed to the writer thread it has done, and the
    callbacks waiting for them (called in ``loop``, after a flush)."""

    def __init__(self, output: LossTolerantOutput, loop: asyncio.AbstractEventLoop) -> None:
        self._output = output
        self._loop = loop
        #: Writes handed to the writer thread (counted in the loop's thread).
        self._submitted = 0
        self._waiting: list[tuple[int, Callable[[], None]]] = []
        output.on_flush = self._flushed

    def submitted(self) -> None:
        """One more write was handed to the writer thread."""
        self._submitted += 1

    def when_written(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once every write handed over so far is done."""
        if self._output.written >= self._submitted or self._output.lost:
            callback()
        else:
            self._waiting.append((self._submitted, callback))

    def _flushed(self) -> None:  # (in the writer thread)
        if self._waiting:
            self._loop.call_soon_threadsafe(self._call)

    def _call(self) -> None:
        written = self._output.written if not self._output.lost else self._submitted
        done = [callback for upto, callback in self._waiting if upto <= written]
        self._waiting = [(upto, callback) for upto, callback in self._waiting if upto > written]
        for callback in done:
            callback()


#: What the parser reads as an Alt key, and the key (see the module doc).
ALT_KEYS = {"\x1b\r": "alt+enter", **{f"\x1b{n}": f"alt+{n}" for n in range(1, 10)}}


class AltKeysParser(XTermParser):
    """Textual's parser, reading ESC CR as ``alt+enter`` and ESC with a
    digit as ``alt+N`` (see the module doc)."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        key = ALT_KEYS.get(sequence)
        if key is not None:
            return [events.Key(key, None)]
        return super()._sequence_to_key_events(sequence, alt)


class SafeLinuxDriver(LinuxDriver):
    """LinuxDriver whose output survives the terminal's end (see the module doc)."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.output = LossTolerantOutput(self._file, self._terminal_lost)  # type: ignore[arg-type]
        self._file = self.output  # type: ignore[assignment]  # written to, nothing else
        self._suspended = False
        self._written = WrittenSignal(self.output, self._loop)

    def _terminal_lost(self) -> None:
        callback = getattr(self._app, "terminal_lost", None)
        if callable(callback):
            callback()

    def write(self, data: str) -> None:
        self._written.submitted()
        super().write(data)

    def when_written(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (in the loop) once all that was written so far
        has reached the terminal (the writer thread writes it a moment later)."""
        self._written.when_written(callback)

    def send_message(self, message: Message) -> None:
        if isinstance(message, events.Key | events.Paste):
            arrived = getattr(self._app, "input_arrived", None)
            if callable(arrived):
                arrived()
        self._app.post_message(message)

    def suspend_application_mode(self) -> None:
        self._suspended = True
        super().suspend_application_mode()

    def resume_application_mode(self) -> None:
        self._suspended = False
        super().resume_application_mode()

    def _sigcont_application(self, *args: Any) -> None:
        if self._suspended and not self.output.lost:
            super()._sigcont_application(*args)

    def restore_now(self) -> None:
        """The terminal's modes back as they were, from any thread, never blocking
        (for a forced exit: the writer thread may be stuck)."""
        if self.output.lost:
            return
        with contextlib.suppress(OSError):
            fd = os.dup(self.output.fileno())
            try:
                os.set_blocking(fd, False)
                os.write(fd, RESTORE.encode())
            finally:
                os.close(fd)
        if self.attrs_before is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fileno, termios.TCSANOW, self.attrs_before)

    def close(self) -> None:
        writer = self._writer_thread
        if writer is None:
            return
        # WriterThread.stop() is put(None) then join(), both unbounded.
        with contextlib.suppress(queue.Full):
            writer._queue.put(None, timeout=CLOSE_WAIT)
        writer.join(CLOSE_WAIT)

    def run_input_thread(self) -> None:
        """Textual 8.2.8's LinuxDriver.run_input_thread, with :class:`AltKeysParser`."""
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        fileno = self.fileno
        parser = AltKeysParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def process_selector_events(
            selector_events: list[tuple[selectors.SelectorKey, int]], final: bool = False
        ) -> None:
            for last, (_selector_key, mask) in loop_last(selector_events):
                if mask & selectors.EVENT_READ:
                    unicode_data = decode(os.read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        break  # stdin is piped
                    for event in parser.feed(unicode_data):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process_selector_events(selector.select(0.1))
            selector.unregister(self.fileno)
            process_selector_events(selector.select(0.1), final=True)
        finally:
            selector.close()
            with contextlib.suppress(EOFError, ParseError):
                for _event in parser.feed(""):
                    pass
