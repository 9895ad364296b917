"""``@`` mentions and pasted images: from the prompt's text to ACP content blocks.

Syntax
------
A mention is ``@`` at the start of a line or after whitespace or ``(``,
followed by a path: ``@src/app.py``, or quoted when it has spaces:
``@"my file.txt"``. ``me@example.com`` is not a mention (the ``@`` follows a
letter). Trailing punctuation (``see @a.py.``) is dropped when the path with it
does not exist. Relative paths hang off the session cwd (the fence's first root).

Blocks (:func:`build_prompt`)
-----------------------------
The first block is always the text exactly as typed. Then, for each distinct
mentioned path that exists, in order of appearance:

* outside the allow-roots, or a symlink that leads out (checked by
  :class:`~acp_tui.core.capabilities.fs.PathFence` on real paths): **not attached**; a
  note says why and the prompt is still sent;
* a directory: a ``resource_link``;
* a file, when the agent's ``promptCapabilities.embeddedContext`` is true and
  the file is UTF-8 text (no NUL bytes) within :data:`~acp_tui.core.capabilities.fs.MAX_TEXT_BYTES`:
  a ``resource`` with the text; otherwise a ``resource_link`` (with ``size``,
  and ``mimeType`` when the name gives one). Embedded content (text and
  images) shares one budget of :data:`MAX_EMBEDDED_BYTES` per prompt; files
  past it are linked.

A word that is not an existing path (``@here``, ``@someone``) stays text, with
no note. Images pasted into the prompt (:func:`pasted_image_paths`) appear in
the text as a label (``[image: shot.png]``); the front end keeps label → path
and passes it in; each label still present in the text becomes an ``image``
block (base64 ``data``, ``mimeType``) when the agent's
``promptCapabilities.image`` is true. The user chose those files by pasting
them, so they are not fenced to the roots; they must still be PNG, JPEG, GIF or
WebP (by content, not name) within :data:`MAX_IMAGE_BYTES`.

Everything here is synchronous file I/O, bounded by the budgets above; the
TUI calls :func:`build_prompt` right before the turn starts (so no second
prompt can start in between). Notes never contain an absolute path.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import re
import shlex
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp_tui.core.capabilities import fs

__all__ = [
    "IMAGE_EXTENSIONS",
    "MAX_EMBEDDED_BYTES",
    "MAX_IMAGE_BYTES",
    "MAX_LOOKUPS",
    "MAX_MENTIONS",
    "BuiltPrompt",
    "Mention",
    "MentionToken",
    "PromptCapabilities",
    "build_prompt",
    "find_mentions",
    "format_mention",
    "image_block",
    "image_label",
    "mention_at",
    "pasted_image_paths",
    "sniff_image",
]

MAX_IMAGE_BYTES = fs.MAX_TEXT_BYTES
"""Largest image attached, in bytes (8 MiB, like the fs limit)."""

MAX_EMBEDDED_BYTES = fs.MAX_TEXT_BYTES
"""Embedded text plus image bytes per prompt; past it files are linked instead."""

MAX_MENTIONS = 32
"""Most distinct paths attached to one prompt."""

MAX_LOOKUPS = 256
"""Most distinct ``@words`` of one prompt looked up on disk (the rest stay text)."""

IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})

_MAX_PASTE_CHARS = 8192  # a longer paste is text, whatever it contains
_MAX_PASTE_PATHS = 16
_MAX_TOKEN = 1024  # longest mention looked for behind the cursor
_TRAILING = ".,;:!?)]}'\""
_MENTION = re.compile(r'(?<![^\s(])@(?:"([^"\n]+)"|([^\s"@][^\s"]*))')
_SPACE = re.compile(r"\s")
_TEXT_TYPES = {
    ".ts": "text/x-typescript",
    ".tsx": "text/x-typescript",
    ".rs": "text/x-rust",
    ".go": "text/x-go",
    ".toml": "application/toml",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
}
_TEXTISH = {"application/json", "application/xml", "application/javascript", "application/toml"}


# --------------------------------------------------------------------------- syntax


@dataclass(frozen=True)
class Mention:
    """An ``@path`` in the prompt text."""

    start: int
    end: int
    path: str
    """As typed, without ``@`` or quotes."""
    quoted: bool


def find_mentions(text: str) -> list[Mention]:
    """Every ``@path`` token in ``text``, in order (see the module doc for the syntax)."""
    return [
        Mention(m.start(), m.end(), m.group(1) or m.group(2), m.group(1) is not None)
        for m in _MENTION.finditer(text)
    ]


def format_mention(path: str) -> str:
    """``@path``, quoted when the path has whitespace: ``@"my file.txt"``."""
    return f'@"{path}"' if _SPACE.search(path) else f"@{path}"


@dataclass(frozen=True)
class MentionToken:
    """The mention being typed at the cursor (for completion)."""

    start: int
    """Column of the ``@``."""
    end: int
    """Column just after the token (after its closing quote, if any)."""
    query: str
    """What is typed between ``@`` (and an opening quote) and the cursor."""
    quoted: bool


def mention_at(line: str, column: int) -> MentionToken | None:
    """The mention token the cursor at ``column`` of ``line`` is in, if any.

    Looks at most :data:`_MAX_TOKEN` characters back, so a huge line costs
    nothing per keystroke.
    """
    low = max(0, column - _MAX_TOKEN)
    at = line.rfind("@", low, column)
    if at < 0:
        return None
    if at > 0 and not (line[at - 1].isspace() or line[at - 1] == "("):
        return None
    typed = line[at + 1 : column]
    if typed.startswith('"'):
        query = typed[1:]
        if '"' in query or "\n" in query:
            return None
        close = line.find('"', column)
        return MentionToken(at, len(line) if close < 0 else close + 1, query, True)
    if _SPACE.search(typed) or '"' in typed:
        return None
    space = _SPACE.search(line, column)
    return MentionToken(at, len(line) if space is None else space.start(), typed, False)


# --------------------------------------------------------------------------- capabilities


@dataclass(frozen=True)
class PromptCapabilities:
    """The agent's ``promptCapabilities`` (all false when it says nothing)."""

    image: bool = False
    audio: bool = False
    embedded_context: bool = False

    @classmethod
    def from_init_result(cls, init_result: Mapping[str, Any] | None) -> PromptCapabilities:
        """From an ``initialize`` answer (``agentCapabilities.promptCapabilities``)."""
        agent = (init_result or {}).get("agentCapabilities")
        prompt = agent.get("promptCapabilities") if isinstance(agent, Mapping) else None
        if not isinstance(prompt, Mapping):
            return cls()
        return cls(
            image=prompt.get("image") is True,
            audio=prompt.get("audio") is True,
            embedded_context=prompt.get("embeddedContext") is True,
        )


# --------------------------------------------------------------------------- images


def sniff_image(header: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, GIF or WebP from its first 12 bytes, else None."""
    if header.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if header.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if header.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if header[:4] == b"RIFF" and header[8:12] == b"WEBP":
        return "image/webp"
    return None


def _image_file(path: Path) -> str | None:
    """The image type of a regular file within the limit, else None."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_IMAGE_BYTES:
            return None
        with open(path, "rb") as handle:
            return sniff_image(handle.read(12))
    except (OSError, ValueError):
        return None


def _paste_tokens(text: str) -> list[str] | None:
    if os.name == "nt":  # no POSIX quoting: one path a line, maybe in quotes
        return [line.strip().strip('"') for line in text.splitlines() if line.strip()]
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError:
        return None


def _pasted_path(token: str, cwd: Path) -> Path:
    if token.startswith("file://"):
        parsed = urlparse(token)
        token = unquote(parsed.path)
    path = Path(os.path.expanduser(token))
    return path if path.is_absolute() else cwd / path


def pasted_image_paths(text: str, cwd: str | os.PathLike[str]) -> list[Path] | None:
    """The image files a paste names, or None when it is anything else.

    Terminals paste dropped files as paths: one or several, separated by
    spaces or newlines, maybe quoted, with ``\\ `` escapes, or as ``file://``
    URIs. Every one must be an existing PNG/JPEG/GIF/WebP (by content) within
    :data:`MAX_IMAGE_BYTES`; otherwise the paste is text. Cheap on a huge paste.
    """
    if len(text) > _MAX_PASTE_CHARS or not text.strip():
        return None
    lowered = text.lower()
    if not any(extension in lowered for extension in IMAGE_EXTENSIONS):
        return None
    tokens = _paste_tokens(text.strip())
    if not tokens or len(tokens) > _MAX_PASTE_PATHS:
        return None
    paths: list[Path] = []
    for token in tokens:
        if "\0" in token:
            return None
        path = _pasted_path(token, Path(cwd))
        if path.suffix.lower() not in IMAGE_EXTENSIONS or _image_file(path) is None:
            return None
        paths.append(path)
    return paths


def image_label(path: str | os.PathLike[str], taken: Iterable[str] = ()) -> str:
    """``[image: name.png]``, numbered when that label is ``taken`` already."""
    name = Path(path).name.replace("]", ")").replace("\n", " ")
    label = f"[image: {name}]"
    used = set(taken)
    number = 2
    while label in used:
        label = f"[image {number}: {name}]"
        number += 1
    return label


def image_block(path: str | os.PathLike[str]) -> dict[str, Any]:
    """An ACP ``image`` block for an image file; ValueError (no path in it) otherwise."""
    target = Path(path)
    name = target.name
    try:
        with open(target, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ValueError(f"{name} is not a regular file")
            if info.st_size > MAX_IMAGE_BYTES:
                raise ValueError(f"{name} is larger than {MAX_IMAGE_BYTES // (1 << 20)} MiB")
            data = handle.read(MAX_IMAGE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"could not read {name}: {exc.strerror or type(exc).__name__}") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise ValueError(f"{name} is larger than {MAX_IMAGE_BYTES // (1 << 20)} MiB")
    mime = sniff_image(data[:12])
    if mime is None:
        raise ValueError(f"{name} is not a PNG, JPEG, GIF or WebP image")
    return {
        "type": "image",
        "mimeType": mime,
        "data": base64.b64encode(data).decode("ascii"),
        "uri": target.absolute().as_uri(),
    }


# --------------------------------------------------------------------------- building


@dataclass
class BuiltPrompt:
    """The content blocks to send, and what the user should be told."""

    blocks: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    attached: list[str] = field(default_factory=list)
    """What was attached, as shown (``src/app.py``, ``docs/``, ``[image: a.png]``)."""


def _mime_for(name: str, text: bool) -> str | None:
    suffix = os.path.splitext(name)[1].lower()
    guessed = _TEXT_TYPES.get(suffix) or mimetypes.guess_type(name, strict=False)[0]
    if not text:
        return guessed
    if guessed and (guessed.startswith("text/") or guessed in _TEXTISH):
        return guessed
    return "text/plain"


def _candidates(mention: Mention) -> list[str]:
    if mention.quoted:
        return [mention.path]
    stripped = mention.path.rstrip(_TRAILING)
    return [mention.path] if stripped in ("", mention.path) else [mention.path, stripped]


def _locate(fence: fs.PathFence, raw: str) -> Path | None:
    """The absolute, normalised path a mention names when something is there."""
    if "\0" in raw:
        return None
    path = Path(os.path.expanduser(raw)) if raw.startswith("~") else Path(raw)
    absolute = Path(os.path.normpath(path if path.is_absolute() else fence.roots[0] / path))
    try:
        return absolute if os.path.lexists(absolute) else None
    except (OSError, ValueError):
        return None


class _Builder:
    def __init__(self, fence: fs.PathFence, capabilities: PromptCapabilities) -> None:
        self.fence = fence
        self.capabilities = capabilities
        self.budget = MAX_EMBEDDED_BYTES
        self.seen: set[Path] = set()
        self.tried: set[str] = set()
        self.result = BuiltPrompt([])

    def mention(self, mention: Mention) -> None:
        # A pasted log can hold thousands of "@word"s: look each one up once, and
        # only the first MAX_LOOKUPS distinct ones.
        if mention.path in self.tried or len(self.tried) >= MAX_LOOKUPS:
            return
        self.tried.add(mention.path)
        for raw in _candidates(mention):
            absolute = _locate(self.fence, raw)
            if absolute is not None:
                self._attach(raw, absolute)
                return

    def _attach(self, raw: str, absolute: Path) -> None:
        from acp import RequestError  # (loaded with the connection: not at start)

        fence, notes = self.fence, self.result.notes
        # As typed, unless that is an absolute path (notes never show one).
        shown = format_mention(fence.describe(absolute) if os.path.isabs(raw) else raw)
        try:
            if os.path.isdir(absolute):
                real, is_dir = fence.resolve_dir(str(absolute)), True
            else:
                real, is_dir = fence.resolve_read(str(absolute)), False
        except RequestError as exc:
            reason = str(exc)
            if os.path.islink(absolute) and "outside" in reason:
                reason = "it is a link that leads outside the allowed roots"
            notes.append(f"{shown} was not attached: {reason}")
            return
        if real in self.seen:
            return
        if len(self.seen) >= MAX_MENTIONS:
            notes.append(f"{shown} was not attached: at most {MAX_MENTIONS} files per prompt")
            return
        self.seen.add(real)
        name = fence.describe(absolute)
        if is_dir:
            name = name.rstrip("/") + "/"
            self._add({"type": "resource_link", "uri": real.as_uri(), "name": name}, name)
            return
        try:
            size: int | None = os.stat(real).st_size
        except OSError:
            size = None
        if self.capabilities.embedded_context and size is not None:
            if size > self.budget:
                if size <= fs.MAX_TEXT_BYTES:
                    notes.append(f"{shown} is linked, not embedded: the prompt's 8 MiB is used up")
                else:
                    notes.append(f"{shown} is linked, not embedded: larger than 8 MiB")
            else:
                text = self._text(absolute)
                if text is not None:
                    self.budget -= len(text.encode("utf-8"))
                    resource = {
                        "uri": real.as_uri(),
                        "text": text,
                        "mimeType": _mime_for(real.name, text=True),
                    }
                    self._add({"type": "resource", "resource": resource}, name)
                    return
        link: dict[str, Any] = {"type": "resource_link", "uri": real.as_uri(), "name": name}
        if size is not None:
            link["size"] = size
        mime = _mime_for(real.name, text=False)
        if mime:
            link["mimeType"] = mime
        self._add(link, name)

    def _text(self, absolute: Path) -> str | None:
        from acp import RequestError

        try:
            text = fs.read_text_file(self.fence, str(absolute))
        except RequestError:
            return None  # not UTF-8, over the limit, vanished: linked instead
        return None if "\0" in text else text

    def image(self, label: str, path: str | os.PathLike[str]) -> None:
        notes = self.result.notes
        if not self.capabilities.image:
            notes.append(f"{label} was sent as text: the agent does not accept images")
            return
        try:
            block = image_block(path)
        except ValueError as exc:
            notes.append(f"{label} was not attached: {exc}")
            return
        size = len(block["data"]) * 3 // 4
        if size > self.budget:
            notes.append(f"{label} was not attached: the prompt's 8 MiB is used up")
            return
        self.budget -= size
        self._add(block, label)

    def _add(self, block: dict[str, Any], shown: str) -> None:
        self.result.blocks.append(block)
        self.result.attached.append(shown)


def build_prompt(
    text: str,
    fence: fs.PathFence,
    capabilities: PromptCapabilities,
    *,
    images: Mapping[str, str | os.PathLike[str]] | None = None,
) -> BuiltPrompt:
    """The ACP content blocks for ``text`` (see the module doc). Never raises for a path."""
    builder = _Builder(fence, capabilities)
    builder.result.blocks.append({"type": "text", "text": text})
    items: list[tuple[int, Mention | tuple[str, str | os.PathLike[str]]]] = [
        (m.start, m) for m in find_mentions(text)
    ]
    for label, path in (images or {}).items():
        at = text.find(label)
        if at >= 0:
            items.append((at, (label, path)))
    items.sort(key=lambda item: item[0])
    for _, item in items:
        try:
            if isinstance(item, Mention):
                builder.mention(item)
            else:
                builder.image(*item)
        except (OSError, ValueError) as exc:  # a race with the file system: never fail a send
            builder.result.notes.append(f"an attachment was skipped: {type(exc).__name__}")
    return builder.result
