"""Each agent process's log: its stderr and a trace of the protocol frames,
under ``$XDG_STATE_HOME/acp-tui/logs/`` (default ``~/.local/state/acp-tui/logs/``).

One file per agent process (the TUI runs one per session), named
``<time>-<agent>-<pid>.log``. stderr and the host's own notes are written as
they come; frames are kept in a small buffer and written at the end of every
prompt, when the buffer is full, before any stderr or note (so the order
holds) and when the agent goes away. Each frame is cut to
:data:`FRAME_CHARS`; a text update is written as its kind and size only, so a
streaming reply costs a few bytes per chunk, not its text twice.

Bounds: a file past :data:`MAX_BYTES` is moved to ``<name>.1`` and started
again (so at most twice that per agent), and only the newest
:data:`KEEP_FILES` logs are kept. A log that cannot be written is turned off;
the session goes on.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from acp_tui.core.storage.state_paths import state_dir

log = logging.getLogger(__name__)

MAX_BYTES = 4 * 1024 * 1024
KEEP_FILES = 40
#: Frames buffered before they are written.
BUFFERED_FRAMES = 512
FRAME_CHARS = 2000

_numbers = itertools.count(1)


def logs_dir(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / "logs"


class AgentLog:
    def __init__(self, path: Path, file: TextIO) -> None:
        self.path = path
        self._file: TextIO | None = file
        self._frames: list[str] = []
        self._size = path.stat().st_size if path.exists() else 0

    @classmethod
    def create(cls, folder: Path, agent: str, pid: int) -> AgentLog | None:
        """A new log in ``folder`` (None when it cannot be made)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", agent).strip("._")[:40] or "agent"
        path = folder / f"{stamp}-{name}-{pid}-{next(_numbers)}.log"
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            _prune(folder)
            file = open(path, "a", encoding="utf-8", errors="replace")  # noqa: SIM115
        except OSError as exc:
            log.warning("no agent log: %s", exc)
            return None
        agent_log = cls(path, file)
        agent_log.note(f"agent {agent} started (pid {pid})")
        return agent_log

    # -- what is logged ----------------------------------------------------

    def frame(self, direction: str, message: dict[str, Any]) -> None:
        """A protocol frame, ``"in"`` (from the agent) or ``"out"``."""
        if self._file is None:
            return
        self._frames.append(f"{time.strftime('%H:%M:%S')} {direction:<3} {_summary(message)}\n")
        if len(self._frames) >= BUFFERED_FRAMES:
            self.flush()

    def stderr(self, text: str) -> None:
        self._write("".join(f"stderr | {line}\n" for line in text.splitlines()))

    def note(self, text: str) -> None:
        """Something the host did or saw (an error, a session reopened…)."""
        self._write(f"{time.strftime('%H:%M:%S')} --- {text}\n")

    def flush(self) -> None:
        self._write("")

    def close(self) -> None:
        self.flush()
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    # -- writing -----------------------------------------------------------

    def _write(self, text: str) -> None:
        if self._file is None:
            return
        data = "".join(self._frames) + text
        self._frames.clear()
        if not data:
            return
        if len(data) > MAX_BYTES:  # more than a whole file: the newest part
            data = "…\n" + data[len(data) - MAX_BYTES + 8 :]
        try:
            if self._size + len(data.encode()) > MAX_BYTES:
                self._rotate()
            self._file.write(data)
            self._file.flush()
            self._size += len(data.encode())
        except OSError as exc:
            log.warning("agent log %s: %s; it is off now", self.path, exc)
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def _rotate(self) -> None:
        assert self._file is not None
        self._file.close()
        os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        self._file = open(self.path, "a", encoding="utf-8", errors="replace")  # noqa: SIM115
        self._size = 0


def _summary(message: dict[str, Any]) -> str:
    """A frame as one line: text updates by kind and size, the rest as JSON, cut."""
    # Here, not at the top: the SDK loads with it, and only a connection needs it.
    from acp_tui.core.transport.acp_protocol import SESSION_UPDATE

    params = message.get("params")
    if message.get("method") == SESSION_UPDATE and isinstance(params, dict):
        update = params.get("update")
        if isinstance(update, dict):
            content = update.get("content")
            text = content.get("text") if isinstance(content, dict) else None
            if isinstance(text, str):
                return f"{SESSION_UPDATE} {update.get('sessionUpdate')} ({len(text)} chars)"
    try:
        line = json.dumps(message, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        line = repr(message)
    if len(line) > FRAME_CHARS:
        line = f"{line[:FRAME_CHARS]}… ({len(line) - FRAME_CHARS} more chars)"
    return line


def _prune(folder: Path) -> None:
    """Keep the newest :data:`KEEP_FILES` logs."""
    logs = sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in logs[KEEP_FILES - 1 :]:
        with contextlib.suppress(OSError):
            old.unlink()
            old.with_name(old.name + ".1").unlink(missing_ok=True)
