"""Fuzzy search over the files under a session's cwd, for ``@`` completion.

The paths come from :func:`acp_tui.core.prompting.file_listing.list_paths` (git's list,
or a walk honouring ``.gitignore``; see that module). :class:`FileIndex` builds
them off the UI thread (:meth:`FileIndex.build`) and answers queries
(:meth:`FileIndex.search`).

A query matches a path when its characters appear in the path in order
(case-insensitive). Matches are scored like a small fzf: each matched character
scores, more when it starts a path segment (after ``/``) or a word (after
``_-. `` or a lower-to-upper case change) and when it follows the previous
match (a run keeps the bonus of its first character); gaps cost; a match
entirely inside the final component scores extra; ties go to the shorter
path, then the alphabetical one.

Per keystroke nothing is done for every path: the index keeps the paths in
"prior" order (shortest first), lower-cased, and for each character a bitset of
the paths that contain it. A query ANDs its characters' bitsets (a few
big-integer operations), checks the survivors in prior order with one
subsequence regex each (in C, via ``map``) and stops at :data:`CANDIDATES`
hits, once for basenames and once for whole paths; a query that extends the
previous one resumes that scan. Only those hits are scored (cheaply, then the
best again more thoroughly). For a query that matches many thousands of paths
only the shortest of them are ranked, which is where the best matches are in
practice.
"""

from __future__ import annotations

import heapq
import os
import re
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import contains
from pathlib import Path

from acp_tui.core.prompting.file_listing import (
    DEFAULT_CAP,
    SKIP_DIRS,
    IgnoreRule,
    Listing,
    Stopped,
    is_ignored,
    list_paths,
    parse_gitignore,
)

__all__ = [
    "CANDIDATES",
    "DEFAULT_CAP",
    "DEFAULT_MAX_AGE",
    "SKIP_DIRS",
    "FileIndex",
    "IgnoreRule",
    "Listing",
    "PathMatch",
    "Stopped",
    "is_ignored",
    "list_paths",
    "parse_gitignore",
    "score_path",
]

DEFAULT_MAX_AGE = 5.0
"""Seconds after which :meth:`FileIndex.stale` says the listing should be refreshed."""

CANDIDATES = 300
"""Most matches (per pass: basenames, whole paths) scored for one query."""

_MAX_ALPHABET = 512  # characters with a bitset; rarer ones are not prefiltered
_CHUNK = 2048
_REFINE = 150  # best quick scores re-scored with the fuller (slower) matcher


# --------------------------------------------------------------------------- scoring

_SCORE_MATCH = 16
_BONUS_SEGMENT = 10  # first character of a path segment
_BONUS_WORD = 8  # after _ - . space, or a lower-to-upper case change
_BONUS_CONSECUTIVE = 6  # at least; a run keeps the bonus of its first character
_BONUS_BASENAME = 12  # the whole match inside the final component
_GAP_START = 3
_GAP_MAX = 12


@dataclass(frozen=True)
class PathMatch:
    """A path that matches a query, with where it matched (for highlighting)."""

    path: str
    score: int = 0
    positions: tuple[int, ...] = ()

    @property
    def is_dir(self) -> bool:
        return self.path.endswith("/")


def _base_start(path: str) -> int:
    return path.rfind("/", 0, len(path) - 1) + 1


def _forward(query: str, text: str, start: int) -> int:
    """End position of the leftmost greedy match of ``query`` in ``text[start:]``, or -1."""
    pos = start - 1
    for ch in query:
        pos = text.find(ch, pos + 1)
        if pos < 0:
            return -1
    return pos


def _backward(query: str, text: str, end: int, low: int) -> tuple[int, ...]:
    """The tightest match ending at ``end``: match backwards from it."""
    positions = [0] * len(query)
    pos = end + 1
    for k in range(len(query) - 1, -1, -1):
        pos = text.rfind(query[k], low, pos)
        positions[k] = pos
    return tuple(positions)


_WORD_BREAKS = frozenset("_-. ")


def _boundary(low: str, orig: str, p: int) -> int:
    """The bonus for a match at ``p``: segment start, word start, or nothing."""
    if p == 0:
        return _BONUS_SEGMENT
    before = low[p - 1]
    if before == "/":
        return _BONUS_SEGMENT
    if before in _WORD_BREAKS:
        return _BONUS_WORD
    # camelCase: this character is upper case (lowering changed it), the one before is not
    if orig[p] != low[p] and orig[p - 1] == before and len(orig) == len(low):
        return _BONUS_WORD
    return 0


def _points(positions: tuple[int, ...], low: str, orig: str, base: int) -> int:
    same = len(orig) == len(low)
    score = _SCORE_MATCH * len(positions)
    prev = -2
    run = 0  # the bonus of the first character of the current consecutive run
    for p in positions:
        if p == 0:
            bonus = _BONUS_SEGMENT
        else:
            before = low[p - 1]
            if before == "/":
                bonus = _BONUS_SEGMENT
            elif before in _WORD_BREAKS or (same and orig[p] != low[p] and orig[p - 1] == before):
                bonus = _BONUS_WORD
            else:
                bonus = 0
        if p == prev + 1:
            if bonus < run:
                bonus = run
            if bonus < _BONUS_CONSECUTIVE:
                bonus = _BONUS_CONSECUTIVE
        else:
            run = bonus
            if prev >= 0:
                gap = p - prev - 2
                score -= _GAP_START + (gap if gap < _GAP_MAX else _GAP_MAX)
        score += bonus
        prev = p
    if positions and positions[0] >= base:
        score += _BONUS_BASENAME
    return score


def _eager(query: str, low: str, orig: str, start: int) -> tuple[int, ...] | None:
    """A left-to-right match that jumps ahead to word starts when the rest still fits."""
    positions: list[int] = []
    pos = start
    last = len(query) - 1
    for k, ch in enumerate(query):
        chosen = low.find(ch, pos)
        if chosen < 0:
            return None
        if not _boundary(low, orig, chosen) and not (positions and chosen == positions[-1] + 1):
            probe = low.find(ch, chosen + 1)
            while probe >= 0:
                if _boundary(low, orig, probe):
                    if k == last or _forward(query[k + 1 :], low, probe + 1) >= 0:
                        chosen = probe
                    break
                probe = low.find(ch, probe + 1)
        positions.append(chosen)
        pos = chosen + 1
    return tuple(positions)


def _greedy(query: str, low: str, start: int) -> tuple[int, ...] | None:
    """The leftmost match of ``query`` in ``low[start:]``, or None."""
    positions = []
    pos = start - 1
    for ch in query:
        pos = low.find(ch, pos + 1)
        if pos < 0:
            return None
        positions.append(pos)
    return tuple(positions)


def _quick(query: str, low: str, orig: str, base: int) -> tuple[int, tuple[int, ...]] | None:
    """A cheap first score: the leftmost match (in the basename if it fits), a contiguous run."""
    positions = _greedy(query, low, base) if base else None
    if positions is None:
        positions = _greedy(query, low, 0)
        if positions is None:
            return None
    best = (_points(positions, low, orig, base), positions)
    at = low.rfind(query)
    if at >= 0 and at != positions[0]:
        run = tuple(range(at, at + len(query)))
        best = max(best, (_points(run, low, orig, base), run))
    return best


def _best(query: str, low: str, orig: str, base: int) -> tuple[int, tuple[int, ...]] | None:
    """The best of :func:`_quick`, the tightest window, and word-start eager matches."""
    best = _quick(query, low, orig, base)
    if best is None:
        return None
    start = base if _forward(query, low, base) >= 0 else 0
    tight = _backward(query, low, _forward(query, low, start), start)
    best = max(best, (_points(tight, low, orig, base), tight))
    for begin in {start, 0}:
        eager = _eager(query, low, orig, begin)
        if eager is not None:
            best = max(best, (_points(eager, low, orig, base), eager))
    return best


def score_path(query: str, path: str) -> PathMatch | None:
    """Score one path against a query (case-insensitive); None when it does not match."""
    low = path.lower()
    if not query:
        return PathMatch(path)
    found = _best(query.lower(), low, path, _base_start(low))
    return None if found is None else PathMatch(path, found[0], found[1])


# --------------------------------------------------------------------------- the index


def _subsequence_regex(query: str) -> re.Pattern[str]:
    parts = []
    for k, ch in enumerate(query):
        escaped = re.escape(ch)
        parts.append(escaped if k == 0 else f"[^{escaped}]*+{escaped}")
    return re.compile("".join(parts), re.DOTALL)


def _bitsets(strings: list[str], alphabet: Iterable[str]) -> dict[str, int]:
    """For each character, an int whose byte ``i`` is 1 when ``strings[i]`` contains it."""
    return {
        ch: int.from_bytes(bytes(map(contains, strings, repeat(ch))), "little") for ch in alphabet
    }


class _Snapshot:
    """One listing, prepared for searching (only the scan cache changes afterwards)."""

    def __init__(self, listing: Listing, built_at: float) -> None:
        paths = sorted(listing.paths)
        paths.sort(key=len)  # stable: shortest first, then alphabetical
        self.paths = paths
        self.lower = [p.lower() for p in paths]
        self.base_starts = [_base_start(p) for p in self.lower]
        self.bases = [p[b:] for p, b in zip(self.lower, self.base_starts, strict=True)]
        alphabet = sorted(set("".join(self.lower)))
        self.complete_alphabet = len(alphabet) <= _MAX_ALPHABET
        alphabet = alphabet[:_MAX_ALPHABET]
        self.path_bits = _bitsets(self.lower, alphabet)
        self.base_bits = _bitsets(self.bases, alphabet)
        self.exact = set(self.lower)
        # The last scan per pass (basenames?): query, hits, where it stopped. UI thread only.
        self._progress: dict[bool, tuple[str, list[int], int]] = {}
        self.built_at = built_at
        self.truncated = listing.truncated
        self.source = listing.source

    def hits(self, query: str, basenames: bool, pattern: re.Pattern[str]) -> list[int]:
        """Indexes of the paths (or basenames) containing ``query`` as a subsequence,
        the first :data:`CANDIDATES` in prior order.

        Typing usually extends the previous query: then only the previous hits
        are re-checked and the scan resumes where the previous one stopped
        (every line before that point that matches the new query matched the
        old one, and was kept).
        """
        bits, strings = (self.base_bits, self.bases) if basenames else (self.path_bits, self.lower)
        search = pattern.search
        found: list[int] = []
        start = 0
        previous = self._progress.get(basenames)
        if previous is not None and query.startswith(previous[0]):
            _, before, start = previous
            found = list(compress(before, map(search, map(strings.__getitem__, before))))
        count = len(strings)
        acc = -1
        for ch in set(query):
            mask = bits.get(ch)
            if mask is None:
                if self.complete_alphabet:
                    acc = 0
                    break
                continue
            acc &= mask
        indexes: Iterator[int]
        if acc == 0:
            indexes = iter(())
        elif acc == -1:
            indexes = iter(range(start, count))
        else:
            indexes = compress(range(start, count), acc.to_bytes(count, "little")[start:])
        if len(query) == 1 and acc != -1:  # the bitset is the answer
            found.extend(islice(indexes, CANDIDATES - len(found)))
        while len(found) < CANDIDATES:
            chunk = list(islice(indexes, _CHUNK))
            if not chunk:
                break
            found.extend(compress(chunk, map(search, map(strings.__getitem__, chunk))))
        upto = count
        if len(found) >= CANDIDATES:
            del found[CANDIDATES:]
            upto = found[-1] + 1
        self._progress[basenames] = (query, found, upto)
        return found


class FileIndex:
    """The searchable paths under ``root``. Build it off the UI thread.

    :meth:`build` lists and prepares synchronously (call it in a worker
    thread); :meth:`search` answers from the latest finished build and is cheap
    enough to call on every keystroke. Safe to search while a rebuild runs.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        cap: int = DEFAULT_CAP,
        max_age: float = DEFAULT_MAX_AGE,
    ) -> None:
        self.root = Path(root)
        self.cap = cap
        self.max_age = max_age
        self._snapshot: _Snapshot | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._last: tuple[_Snapshot, str, int, list[PathMatch]] | None = None

    def build(self) -> None:
        """List the tree again and swap the new list in (blocking; thread-safe).

        Does nothing once :meth:`cancel` has been called.
        """
        with self._lock:
            try:
                listing = list_paths(self.root, self.cap, self._stop)
            except Stopped:
                return
            self._snapshot = _Snapshot(listing, time.monotonic())

    def cancel(self) -> None:
        """Stop a running build soon (its thread then returns) and any later one."""
        self._stop.set()

    @property
    def ready(self) -> bool:
        return self._snapshot is not None

    @property
    def building(self) -> bool:
        return self._lock.locked()

    @property
    def paths(self) -> list[str]:
        """Every indexed path, shortest first."""
        snap = self._snapshot
        return [] if snap is None else list(snap.paths)

    @property
    def truncated(self) -> bool:
        snap = self._snapshot
        return snap is not None and snap.truncated

    @property
    def source(self) -> str | None:
        snap = self._snapshot
        return None if snap is None else snap.source

    def __len__(self) -> int:
        snap = self._snapshot
        return 0 if snap is None else len(snap.paths)

    def stale(self, now: float | None = None) -> bool:
        """True before the first build and once the last one is older than ``max_age``."""
        snap = self._snapshot
        if snap is None:
            return True
        return (time.monotonic() if now is None else now) - snap.built_at > self.max_age

    def contains(self, path: str) -> bool:
        """Whether ``path`` (case-insensitive, directories with ``/``) is indexed."""
        snap = self._snapshot
        return snap is not None and path.lower() in snap.exact

    def search(self, query: str, limit: int = 50) -> list[PathMatch]:
        """The best ``limit`` matches for ``query``, best first (see the module doc).

        An empty query gives the first paths in prior order (shortest first).
        """
        snap = self._snapshot
        if snap is None or limit <= 0:
            return []
        if not query:
            return [PathMatch(p) for p in snap.paths[:limit]]
        last = self._last
        if last is not None and last[0] is snap and last[1] == query and last[2] == limit:
            return list(last[3])
        q = query.lower()
        pattern = _subsequence_regex(q)
        chosen = dict.fromkeys(snap.hits(q, True, pattern))
        chosen.update(dict.fromkeys(snap.hits(q, False, pattern)))
        paths, lower, bases = snap.paths, snap.lower, snap.base_starts
        quick: list[tuple[int, int, int]] = []
        for i in chosen:
            found = _quick(q, lower[i], paths[i], bases[i])
            if found is not None:
                quick.append((-found[0], len(paths[i]), i))
        ranked: list[tuple[int, int, str, tuple[int, ...]]] = []
        for _, _, i in heapq.nsmallest(max(3 * limit, _REFINE), quick):
            found = _best(q, lower[i], paths[i], bases[i])
            if found is not None:
                ranked.append((-found[0], len(paths[i]), paths[i], found[1]))
        ranked.sort()
        result = [PathMatch(path, -neg, positions) for neg, _, path, positions in ranked[:limit]]
        self._last = (snap, query, limit, result)
        return list(result)
