"""Each session's text budget, and the files that hold what does not fit.

One 60 MB chunk once took the headless host to 404 MB and went out as one
63 MB line; eight 40 MB chunks took it to 1.24 GB and wrote a 323 MB
history file (issue 12, point 8). So every session counts the characters of
text its entries hold, against a budget (:data:`DEFAULT_BUDGET`, 64 MiB;
``[limits] session_text_mib`` in the config file):

* Within the budget, text is kept whole.
* Past it, a large content keeps its first :data:`HEAD` characters and a
  visible marker naming a file under the state directory
  (``$XDG_STATE_HOME/acp-tui/spill/<session>/``) that holds all of it. A
  reply that crosses the budget keeps what fits; the rest of it goes to its
  file as it streams. Small contents (a short reply) are still kept.
* One string in a tool call or a replayed user message is cut at
  :data:`FIELD_LIMIT` (8 MiB) whatever the budget, so that no event carrying
  a whole entry is a line of tens of megabytes; text deltas go out in pieces
  of at most :data:`DELTA_LIMIT`, and history records keep at most
  :data:`HISTORY_LIMIT` of a string (the rest in a file, the same way).

A spill file is named by its content's hash, so writing the same text twice
(the history flushes an entry again) writes it once. When the file cannot be
written, the marker says the text was dropped.
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_BUDGET = 64 * 1024 * 1024
#: Past the budget, what a large content keeps (characters).
HEAD = 64 * 1024
#: One string of a tool call or of a replayed user message, at most.
FIELD_LIMIT = 8 * 1024 * 1024
#: Characters one text delta (one event line) carries at most.
DELTA_LIMIT = 1024 * 1024
#: Characters of one string a history record keeps.
HISTORY_LIMIT = 1024 * 1024

ChunkKey = tuple[int, int]


def default_spill_root(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    state = env.get("XDG_STATE_HOME")
    base = Path(state) if state and Path(state).is_absolute() else Path.home() / ".local" / "state"
    return base / "acp-tui" / "spill"


def _shown(path: Path) -> str:
    """``path`` with the home directory written as ``~``."""
    text = str(path)
    home = os.path.expanduser("~")
    if home not in ("~", "", os.sep) and text.startswith(home + os.sep):
        return "~" + text[len(home) :]
    return text


def mib(characters: int) -> str:
    return f"{characters / (1024 * 1024):g} MiB"


class Spill:
    """Files under one directory holding texts cut from a session."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def write(self, text: str) -> Path | None:
        """A file holding ``text`` (None when it cannot be written)."""
        import hashlib  # (on the first spill: OpenSSL's module costs the start-up 2 ms)

        data = text.encode("utf-8", errors="replace")
        path = self.directory / f"{hashlib.sha256(data).hexdigest()[:20]}.txt"
        try:
            if not path.exists():
                self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
                temp = path.with_suffix(".tmp")
                temp.write_bytes(data)
                os.replace(temp, path)
        except OSError as exc:
            log.warning("cannot keep a cut text in %s: %s", self.directory, exc)
            return None
        return path

    def append(self, path: Path, text: str) -> None:
        try:
            with open(path, "ab") as file:
                file.write(text.encode("utf-8", errors="replace"))
        except OSError as exc:
            log.warning("cannot add to %s: %s", path, exc)


def cut(text: str, keep: int, spill: Spill | None, why: str) -> str:
    """``text``'s first ``keep`` characters and a marker: where all of it is."""
    path = spill.write(text) if spill is not None else None
    rest = len(text) - keep
    where = f"all of it is in {_shown(path)}" if path is not None else "it was dropped"
    return f"{text[:keep]}\n\n[… {rest:,} more characters not shown ({why}); {where}]"


@dataclass(frozen=True)
class Delta:
    """What :meth:`TextBudget.admit_delta` lets a reply's chunk append."""

    text: str
    #: ``text`` ends in the marker: the rest of the chunk goes to this file.
    marked: bool = False
    rest_to: Path | None = None
    #: The chunk is past its marker: nothing is appended (it went to the file).
    dropped: bool = False


class TextBudget:
    """The characters of text one session holds, against its limit."""

    def __init__(self, limit: int = DEFAULT_BUDGET, spill: Spill | None = None) -> None:
        self.limit = limit
        self.spill = spill
        self.used = 0
        #: Chunks past their marker: the file the rest of each goes to.
        self._spilling: dict[ChunkKey, Path | None] = {}
        #: Characters counted per tool call (replaced when the call changes).
        self._tool_sizes: dict[str, int] = {}

    @property
    def why(self) -> str:
        return f"over this session's text budget of {mib(self.limit)}"

    def _keep(self, size: int, adding: int) -> int:
        """Of ``adding`` characters for a content holding ``size``, how many to keep."""
        if self.used + adding <= self.limit or size + adding <= HEAD:
            return adding
        return min(adding, max(self.limit - self.used, HEAD - size, 0))

    def admit(self, text: str, *, size: int = 0) -> str:
        """What a content holding ``size`` characters keeps of ``text`` added to
        it: all within the budget; else, if large, its head and a marker."""
        if len(text) > FIELD_LIMIT:
            text = cut(text, FIELD_LIMIT, self.spill, f"over {mib(FIELD_LIMIT)} in one piece")
        else:
            keep = self._keep(size, len(text))
            if keep < len(text):
                text = cut(text, keep, self.spill, self.why)
        self.used += len(text)
        return text

    def admit_delta(self, chunk: ChunkKey | None, so_far: Callable[[], str], text: str) -> Delta:
        """What a reply's chunk (None: a new one) appends of the delta ``text``."""
        if chunk is not None and chunk in self._spilling:
            path = self._spilling[chunk]
            if path is not None and self.spill is not None:
                self.spill.append(path, text)
            return Delta("", dropped=True)
        if self.used + len(text) <= self.limit:
            # Within budget (the common case): the chunk's text is not read (a
            # read joins it: O(its length) for every delta of a long reply).
            self.used += len(text)
            return Delta(text)
        before = so_far() if chunk is not None else ""
        keep = self._keep(len(before), len(text))
        if keep == len(text):
            self.used += len(text)
            return Delta(text)
        path = self.spill.write(before + text) if self.spill is not None else None
        where = f"it is written to {_shown(path)}" if path is not None else "it was dropped"
        kept = f"{text[:keep]}\n\n[… the rest of this reply is not shown ({self.why}); {where}]"
        self.used += len(kept)
        return Delta(kept, marked=True, rest_to=path)

    def spill_rest(self, chunk: ChunkKey, path: Path | None) -> None:
        """``chunk`` shows its marker: what it gets from now on goes to ``path``."""
        self._spilling[chunk] = path

    def admit_tool_call(self, fields: dict[str, Any], replacing: int = 0) -> dict[str, Any]:
        """A tool call's fields with every string too long cut, as :meth:`admit`
        would; ``replacing``: characters of the entry these replace. Nothing is
        counted: :meth:`account_tool_call` counts the entry as it is then."""
        adding = -replacing

        def visit(value: Any) -> Any:
            nonlocal adding
            if isinstance(value, str):
                if len(value) > FIELD_LIMIT:
                    value = cut(
                        value, FIELD_LIMIT, self.spill, f"over {mib(FIELD_LIMIT)} in one piece"
                    )
                elif len(value) > HEAD and self.used + adding + len(value) > self.limit:
                    value = cut(value, HEAD, self.spill, self.why)
                adding += len(value)
                return value
            if isinstance(value, list):
                return [visit(item) for item in value]
            if isinstance(value, dict):
                return {key: visit(item) for key, item in value.items()}
            return value

        return {key: visit(value) for key, value in fields.items()}

    def account_tool_call(self, tool_call_id: str, size: int) -> None:
        """The tool call now holds ``size`` characters (replacing what it held)."""
        self.used += size - self._tool_sizes.get(tool_call_id, 0)
        self._tool_sizes[tool_call_id] = size

    def tool_call_size(self, tool_call_id: str) -> int:
        return self._tool_sizes.get(tool_call_id, 0)


def text_size(value: Any) -> int:
    """Characters of text in a JSON value (its strings)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(text_size(item) for item in value)
    if isinstance(value, dict):
        return sum(text_size(item) for item in value.values())
    return 0


def prune(root: Path, max_age_days: float = 90.0) -> int:
    """Delete the spill folders of sessions untouched for ``max_age_days``; how many."""
    try:
        folders = list(root.iterdir())
    except OSError:
        return 0
    cutoff = time.time() - max_age_days * 86400
    removed = 0
    for folder in folders:
        try:
            if folder.is_dir() and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder)
                removed += 1
        except OSError as exc:
            log.warning("cannot remove %s: %s", folder, exc)
    return removed


def bounded_record(value: Any, spill: Spill | None, limit: int = HISTORY_LIMIT) -> Any:
    """``value`` (an entry's wire form) with every string over ``limit`` cut,
    for the history: the record stays small, the text is in its file."""
    if isinstance(value, str):
        if len(value) > limit:
            return cut(value, limit, spill, f"over {mib(limit)}: not kept in the history")
        return value
    if isinstance(value, list):
        return [bounded_record(item, spill, limit) for item in value]
    if isinstance(value, dict):
        return {key: bounded_record(item, spill, limit) for key, item in value.items()}
    return value
