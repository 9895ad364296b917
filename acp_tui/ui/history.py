"""Prompt history: what the user sent, and a readline-style walk through it.

:class:`PromptHistory` is plain data (``entries``, newest last); given a
``path`` it is kept across runs: one JSON string per line, appended as
prompts are sent, rewritten to the newest ``limit`` when the file holds
twice that. :func:`history_path` gives each project (working directory) a
file of its own under ``$XDG_STATE_HOME/acp-tui/prompts/``.
:class:`HistoryBrowser` is the per-input state of an Up/Down walk through one
snapshot of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from acp_tui.core import state_dir

log = logging.getLogger(__name__)

DEFAULT_LIMIT = 500


def history_path(cwd: Path, env: Mapping[str, str] | None = None) -> Path:
    """The prompt history file of the project in ``cwd``."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", cwd.name).strip("._")[:40] or "root"
    digest = hashlib.sha256(str(cwd).encode()).hexdigest()[:10]
    return state_dir(env) / "prompts" / f"{name}-{digest}.jsonl"


class PromptHistory:
    """Sent prompts, newest last, bounded, de-duplicating consecutive repeats.

    Blank prompts are not recorded. ``entries`` is a plain list that may be
    read (and replaced) freely, e.g. to load or save it.
    """

    def __init__(
        self, entries: Iterable[str] = (), *, limit: int = DEFAULT_LIMIT, path: Path | None = None
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        self.limit = limit
        self.entries: list[str] = []
        self.path: Path | None = None
        for entry in entries:
            self.add(entry)
        self._lines = 0
        if path is not None:
            for entry in self._read(path):
                self.add(entry)
            self.path = path

    def _read(self, path: Path) -> list[str]:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []
        self._lines = len(lines)
        found = []
        for line in lines:
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if isinstance(entry, str):
                    found.append(entry)
        return found

    def add(self, text: str) -> None:
        """Record ``text`` as the newest entry (unless blank or equal to the newest)."""
        if not text.strip():
            return
        if self.entries and self.entries[-1] == text:
            return
        self.entries.append(text)
        overflow = len(self.entries) - self.limit
        if overflow > 0:
            del self.entries[:overflow]
        if self.path is not None:
            self._save(text)

    def _save(self, text: str) -> None:
        assert self.path is not None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if self._lines >= 2 * self.limit:
                data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in self.entries)
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(data, encoding="utf-8")
                os.replace(tmp, self.path)
                self._lines = len(self.entries)
                return
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(text, ensure_ascii=False) + "\n")
            self._lines += 1
        except OSError as exc:
            log.warning("prompt history not kept: %s", exc)
            self.path = None

    def search(self, query: str) -> list[str]:
        """Entries containing ``query`` (case-insensitive), newest first, once each."""
        needle = query.casefold()
        found = [e for e in reversed(self.entries) if needle in e.casefold()]
        return list(dict.fromkeys(found))

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"PromptHistory({len(self.entries)} entries, limit={self.limit})"


class HistoryBrowser:
    """One input's walk through a :class:`PromptHistory`, like readline.

    Positions ``0 .. n-1`` are history entries (oldest first) and ``n`` is the
    draft the user was typing before the first step back. Leaving a position
    remembers its current text, so edits to a recalled entry and the draft
    itself survive moving up and down; nothing the user typed is lost until
    :meth:`reset` (after a send or an explicit clear). The walk uses a
    snapshot of the entries taken when it starts, so entries added meanwhile
    (e.g. by another input sharing the history) do not shift it.
    """

    def __init__(self, history: PromptHistory) -> None:
        self.history = history
        self._snapshot: list[str] | None = None
        self._position = 0
        self._scratch: dict[int, str] = {}

    @property
    def browsing(self) -> bool:
        """True while a recalled entry (not the draft) is shown."""
        return self._snapshot is not None and self._position < len(self._snapshot)

    def older(self, current: str) -> str | None:
        """Step back from ``current``; return the text to show, or None at the oldest."""
        if self._snapshot is None or (not self.browsing and self._snapshot != self.history.entries):
            # Start (or restart, if the history changed while the draft was
            # shown) a walk; the draft is ``current`` and is remembered below.
            self._snapshot = list(self.history.entries)
            self._position = len(self._snapshot)
            self._scratch = {}
        if self._position == 0:
            return None
        self._scratch[self._position] = current
        self._position -= 1
        return self._text_at(self._position)

    def newer(self, current: str) -> str | None:
        """Step forward from ``current``; return the text to show, or None at the draft."""
        if not self.browsing:
            return None
        assert self._snapshot is not None
        self._scratch[self._position] = current
        self._position += 1
        return self._text_at(self._position)

    def reset(self) -> None:
        """Forget the walk and every remembered edit (after a send or a clear)."""
        self._snapshot = None
        self._position = 0
        self._scratch = {}

    def _text_at(self, position: int) -> str:
        assert self._snapshot is not None
        if position in self._scratch:
            return self._scratch[position]
        if position < len(self._snapshot):
            return self._snapshot[position]
        return ""
