"""The ``fs/*`` client capability: text reads and writes behind a path fence.

An agent may only touch files under the *allow-roots*: the session cwd first,
then any extra roots. :class:`PathFence` turns a requested path into a real
path inside those roots (or refuses it); :func:`read_text_file` and
:func:`write_text_file` implement ``fs/read_text_file`` and
``fs/write_text_file`` on top of it. Both are synchronous: the caller runs
them in a worker thread.

Every failure is an ``acp.RequestError``:

* ``-32002`` (resource not found): the file or directory does not exist;
* ``-32602`` (invalid params): a fence refusal, a bad line number or limit,
  a size limit, non-UTF-8 content, a directory where a file was expected, a
  missing parent directory, a symlink loop;
* ``-32603`` (internal error): any other OS error.

Messages and ``data`` never contain an absolute path: a path is named relative
to its root (see :meth:`PathFence.describe`), or by its final name when it is
outside every root.

Lines: only ``"\\n"`` ends a line, so ``"\\r\\n"`` stays together and a lone
``"\\r"`` is an ordinary character inside its line (as ``wc -l`` and most agents
count). Line endings and a UTF-8 BOM are returned and written byte for byte.

The fence guards against an agent's paths (absolute paths elsewhere, ``..``,
symlinks that lead out); it is not a sandbox against a concurrent local process
swapping symlinks between the check and the use. Opening the resolved path
with ``O_NOFOLLOW`` narrows that window for the final component.

Where this deliberately differs from Zed
----------------------------------------
Zed answers ``fs/read_text_file`` from the editor's buffer, so an agent sees
unsaved edits, and applies ``fs/write_text_file`` by diffing the new text into
the open buffer (the user then saves). We have no editor and no buffers: reads
come from disk and writes go straight to disk, atomically (temp file in the same
directory, fsync, ``os.replace``), keeping the file's permission mode.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from acp import RequestError

__all__ = ["MAX_TEXT_BYTES", "PathFence", "read_text_file", "write_text_file"]

MAX_TEXT_BYTES: int = 8 * 1024 * 1024
"""Largest file read or content written, in bytes; exactly this much is allowed."""


_WINERROR_CANT_RESOLVE_FILENAME = 1921  # Windows' answer to a symlink loop
_O_BINARY: int = getattr(os, "O_BINARY", 0)
_O_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
_NEW_FILE_MODE = 0o666  # the kernel applies the umask on creation

#: The SDK's error codes a failure carries (named in acp_protocol.py).
ErrorCode = Literal["INVALID_PARAMS", "INTERNAL_ERROR", "RESOURCE_NOT_FOUND"]
INVALID_PARAMS: ErrorCode = "INVALID_PARAMS"
INTERNAL_ERROR: ErrorCode = "INTERNAL_ERROR"
RESOURCE_NOT_FOUND: ErrorCode = "RESOURCE_NOT_FOUND"


def _error(code: ErrorCode, message: str, name: str | None = None, **extra: Any) -> RequestError:
    # The SDK is imported on the first failure: painting the TUI needs this
    # module (the prompt's @-mentions), not the SDK's schema.
    from acp import RequestError

    from acp_tui.core.transport import acp_protocol

    data: dict[str, Any] = {} if name is None else {"path": name}
    data.update(extra)
    return RequestError(getattr(acp_protocol, code), message, data or None)


def _invalid(message: str, name: str | None = None, **extra: Any) -> RequestError:
    return _error(INVALID_PARAMS, message, name, **extra)


def _is_loop(exc: OSError) -> bool:
    return exc.errno == errno.ELOOP or (
        getattr(exc, "winerror", None) == _WINERROR_CANT_RESOLVE_FILENAME
    )


def _os_failure(exc: OSError, action: str, name: str) -> RequestError:
    """Map an OS error met while reading or writing ``name`` (no paths leak)."""
    if _is_loop(exc):
        return _invalid(f"symlink loop while resolving {name}", name)
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        if action == "write":
            return _invalid(f"parent directory of {name} does not exist", name)
        return _error(RESOURCE_NOT_FOUND, f"file not found: {name}", name)
    if exc.errno == errno.EISDIR:
        return _invalid(f"{name} is a directory", name)
    if exc.errno == errno.ENAMETOOLONG:
        return _invalid("path is too long", name)
    reason = exc.strerror or type(exc).__name__  # never str(exc): it holds the path
    return _error(INTERNAL_ERROR, f"could not {action} {name}: {reason}", name)


def _key(path: Path) -> tuple[str, ...]:
    """Components to compare; case-folded where the OS is (normcase is a no-op on POSIX)."""
    return tuple(os.path.normcase(part) for part in path.parts)


def _real(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


class PathFence:
    """Allow-roots: the session cwd first, then extra roots.

    Roots and candidates are compared as real paths (symlinks resolved), by
    path components, never by string prefix: ``/a/bc`` is not under ``/a/b``.
    """

    def __init__(self, roots: Iterable[str | os.PathLike[str]]) -> None:
        self._roots: list[Path] = []
        self._keys: list[tuple[str, ...]] = []
        for root in roots:
            self.add_root(root)
        if not self._roots:
            raise ValueError("PathFence needs at least one root")

    @property
    def roots(self) -> tuple[Path, ...]:
        """The roots as resolved real paths, the session cwd first."""
        return tuple(self._roots)

    def add_root(self, root: str | os.PathLike[str]) -> None:
        """Allow ``root`` (resolved to its real path) and everything under it."""
        real = _real(root)
        key = _key(real)
        if key not in self._keys:
            self._roots.append(real)
            self._keys.append(key)

    def resolve_read(self, path: str) -> Path:
        """The real path of an existing file inside the roots."""
        real = self._resolve(path)
        name = self.describe(path)
        try:
            is_dir = stat.S_ISDIR(os.stat(real).st_mode)
        except OSError as exc:
            raise _os_failure(exc, "read", name) from None
        if is_dir:
            raise _invalid(f"{name} is a directory", name)
        return real

    def resolve_write(self, path: str) -> Path:
        """The real path to write: the parent resolved, and the target too if it exists.

        A symlink (even a dangling one) is followed, so a write through an
        in-root link lands on its target, and one through a link that leads out
        is refused.
        """
        real = self._resolve(path)
        name = self.describe(path)
        if real.is_dir():
            raise _invalid(f"{name} is a directory", name)
        if _key(real) in self._keys:  # a root that has vanished: never put a file there
            raise _invalid(f"cannot replace an allowed root: {name}", name)
        parent = real.parent
        if not parent.is_dir():
            shown = self.describe(parent)
            if parent.exists():
                raise _invalid(f"parent is not a directory: {shown}", name)
            raise _invalid(f"parent directory does not exist: {shown}", name)
        return real

    def resolve_dir(self, path: str | None) -> Path:
        """An existing directory inside the roots; ``None`` means the first root."""
        real = self._roots[0] if path is None else self._resolve(path)
        name = self.describe(real if path is None else path)
        try:
            is_dir = stat.S_ISDIR(os.stat(real).st_mode)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                raise _error(RESOURCE_NOT_FOUND, f"directory not found: {name}", name) from None
            raise _os_failure(exc, "open", name) from None
        if not is_dir:
            raise _invalid(f"{name} is not a directory", name)
        return real

    def contains(self, path: str | Path) -> bool:
        """Whether ``path`` (relative to the first root, symlinks resolved) is
        inside the roots."""
        if "\0" in str(path):
            return False
        try:
            real = _real(self._absolute(str(path)))
        except (OSError, ValueError):
            return False
        return self._root_of(real) is not None

    def describe(self, path: str | Path) -> str:
        """Name ``path`` for an error message without revealing an absolute path.

        Inside a root (as written, or once resolved) it is named relative to
        that root, ``.`` for the root itself; outside, by its final name.
        """
        candidate = self._absolute(str(path))
        try:
            real: Path | None = _real(candidate)
        except (OSError, ValueError):  # e.g. a NUL character
            real = None
        for probe in (candidate, real):
            root = None if probe is None else self._root_of(probe)
            if probe is not None and root is not None:
                return Path(*probe.parts[len(root.parts) :]).as_posix()
        return candidate.name or "(outside path)"

    # -- internals ---------------------------------------------------------

    def _absolute(self, path: str) -> Path:
        """Relative paths (ACP wants absolute ones; we are lenient) hang off the first root."""
        candidate = Path(path)
        return candidate if candidate.is_absolute() else self._roots[0] / candidate

    def _root_of(self, path: Path) -> Path | None:
        key = _key(path)
        for root, root_key in zip(self._roots, self._keys, strict=True):
            if key[: len(root_key)] == root_key:
                return root
        return None

    def _resolve(self, path: str) -> Path:
        """Resolve every symlink (dangling ones too) and check the result is inside."""
        if "\0" in path:
            raise _invalid("path contains a NUL character")
        real = _real(self._absolute(path))  # non-strict: a loop is left unresolved
        if self._root_of(real) is None:
            raise _invalid("path is outside the allowed roots", self.describe(path))
        try:
            os.stat(real)
        except OSError as exc:
            if _is_loop(exc):
                name = self.describe(path)
                raise _invalid(f"symlink loop while resolving {name}", name) from None
        return real


def _first_line(line: int | None) -> int:
    if line is None or line in (0, 1):
        return 1
    if line < 0:
        raise _invalid(f"line must be 1 or more, not {line}", line=line)
    return line


def _split_lines(text: str) -> list[str]:
    """Split after each ``"\\n"`` only, keeping it (``"\\r\\n"`` stays whole)."""
    lines = [piece + "\n" for piece in text.split("\n")]
    last = lines.pop()[:-1]  # the piece after the final "\n" has no terminator
    if last:
        lines.append(last)
    return lines


def _read_bytes(real: Path, name: str) -> bytes:
    """Read a regular file, refusing one over the limit before reading it all."""
    flags = os.O_RDONLY | _O_BINARY | _O_CLOEXEC | _O_NOFOLLOW | _O_NONBLOCK
    try:
        with open(os.open(real, flags), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise _invalid(f"{name} is not a regular file", name)
            if info.st_size > MAX_TEXT_BYTES:
                raise _too_large("file", name, info.st_size)
            data = handle.read(MAX_TEXT_BYTES + 1)  # it may have grown since fstat
    except OSError as exc:
        raise _os_failure(exc, "read", name) from None
    if len(data) > MAX_TEXT_BYTES:
        raise _too_large("file", name, len(data))
    return data


def _too_large(what: str, name: str, size: int) -> RequestError:
    limit_mib = MAX_TEXT_BYTES // (1024 * 1024)
    return _invalid(f"{what} is larger than {limit_mib} MiB", name, size=size, limit=MAX_TEXT_BYTES)


def read_text_file(
    fence: PathFence, path: str, line: int | None = None, limit: int | None = None
) -> str:
    """``fs/read_text_file``: ``limit`` lines from 1-based ``line`` (``None``/0/1: the first).

    ``limit=None`` reads to the end; ``limit=0`` gives ``""``. Line 1 of an
    empty file is ``""``; a start line past the last line is refused.
    """
    start = _first_line(line)
    if limit is not None and limit < 0:
        raise _invalid(f"limit must not be negative, not {limit}", limit=limit)
    real = fence.resolve_read(path)
    name = fence.describe(path)
    data = _read_bytes(real, name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(f"{name} is not valid UTF-8 text", name, offset=exc.start) from None
    if start == 1 and limit is None:
        return text
    lines = _split_lines(text)
    if start > max(len(lines), 1):
        count = len(lines)
        unit = "line" if count == 1 else "lines"
        raise _invalid(
            f"line {start} is past the end of {name} ({count} {unit})",
            name,
            line=start,
            lineCount=count,
        )
    end = None if limit is None else start - 1 + limit
    return "".join(lines[start - 1 : end])


def write_text_file(fence: PathFence, path: str, content: str) -> None:
    """``fs/write_text_file``: replace the file with ``content`` as UTF-8, atomically.

    The bytes on disk are exactly ``content.encode("utf-8")``. An existing
    file keeps its permission mode (not its owner, nor its hard links); a new
    one gets ``0o666`` less the umask. A read-only file is not replaced.
    """
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise _invalid("content is not valid Unicode text", offset=exc.start) from None
    target = fence.resolve_write(path)
    name = fence.describe(path)
    if len(data) > MAX_TEXT_BYTES:
        raise _too_large("content", name, len(data))
    try:
        info = os.stat(target)
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise _os_failure(exc, "write", name) from None
    else:
        if not stat.S_ISREG(info.st_mode):
            raise _invalid(f"{name} is not a regular file", name)
        if not os.access(target, os.W_OK):
            raise _error(INTERNAL_ERROR, f"could not write {name}: Permission denied", name)
        mode = stat.S_IMODE(info.st_mode)
    try:
        _replace_atomically(target, data, mode)
    except OSError as exc:
        raise _os_failure(exc, "write", name) from None


def _replace_atomically(target: Path, data: bytes, mode: int | None) -> None:
    """Write a temp file beside ``target``, fsync it, ``os.replace`` it onto ``target``."""
    directory = target.parent
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY | _O_CLOEXEC | _O_NOFOLLOW
    # An existing file's mode is applied after creation; until then only we may read it.
    create_mode = _NEW_FILE_MODE if mode is None else 0o600
    for _attempt in range(16):
        temp = directory / f".{target.name[:32]}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(temp, flags, create_mode)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "could not pick a temporary file name")
    try:
        with open(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if mode is not None:
                if hasattr(os, "fchmod"):
                    os.fchmod(handle.fileno(), mode)
                else:  # pragma: no cover - Windows before 3.13
                    os.chmod(temp, mode)
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable where the OS allows it (best effort)."""
    if os.name == "nt":  # pragma: no cover - directories cannot be opened
        return
    with suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | _O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
