"""A byte-bounded buffer that keeps the HEAD of a terminal's output.

ACP's ``terminal/create`` carries an ``outputByteLimit``; the client must never
hold more than that many bytes of a command's output. :class:`HeadBuffer` keeps
the first ``limit`` bytes, counts and discards everything after them (so the
reader keeps draining the pty and the command never blocks on a full pipe), and
renders the kept bytes as text:

* nothing was cut: every byte, decoded as UTF-8 (``errors="replace"`` for
  genuinely invalid bytes; while the command still runs, an incomplete
  multi-byte character at the very end is held back instead of replaced);
* something was cut: the kept head up to and including its last ``"\\n"``, or
  ``""`` when the head holds no newline — never half a line, never half a
  character. (Cutting back to a newline also rounds down to a UTF-8 character
  boundary, because ``"\\n"`` is ASCII and can never sit inside a multi-byte
  sequence.)

Pure logic, no I/O: tests drive it without ptys.
"""

from __future__ import annotations

import codecs

__all__ = ["HeadBuffer", "render_head"]


def _decode(data: bytes, *, final: bool) -> str:
    """Decode UTF-8; with ``final=False`` an incomplete trailing character is held back."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return decoder.decode(data, final=final)


def render_head(head: bytes, *, truncated: bool, final: bool = True) -> str:
    """Render kept bytes as text under the rules in the module docstring."""
    if not truncated:
        return _decode(head, final=final)
    cut = head.rfind(b"\n") + 1  # 0 when there is no newline at all
    return _decode(head[:cut], final=True)


class HeadBuffer:
    """Keeps at most ``limit`` bytes: the head of everything fed to it."""

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError("limit must not be negative")
        self._limit = limit
        self._head = bytearray()
        self._truncated = False
        self._total = 0

    @property
    def limit(self) -> int:
        return self._limit

    @property
    def truncated(self) -> bool:
        """True exactly when more than ``limit`` bytes have been fed."""
        return self._truncated

    @property
    def total_bytes(self) -> int:
        """How many bytes were fed in all, kept or not."""
        return self._total

    @property
    def kept_bytes(self) -> int:
        return len(self._head)

    def feed(self, chunk: bytes) -> bool:
        """Add output; return True when the rendered snapshot may have changed."""
        if not chunk:
            return False
        self._total += len(chunk)
        room = self._limit - len(self._head)
        if len(chunk) <= room:
            self._head += chunk
            return True
        changed = room > 0 or not self._truncated
        if room > 0:
            self._head += chunk[:room]
        self._truncated = True
        return changed

    def snapshot(self, *, final: bool = True) -> tuple[str, bool]:
        """Return ``(text, truncated)``; pass ``final=False`` while output may still come."""
        return render_head(bytes(self._head), truncated=self._truncated, final=final), (
            self._truncated
        )
