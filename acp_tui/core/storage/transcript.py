"""A conversation as a Markdown document, for ``/export``.

:func:`to_markdown` is pure: the session's entries (``Entry`` objects or
their ``to_wire()`` dicts) in, a deterministic document out. Its layout: a
``# title`` header (agent, working directory as ``~/…``); each user message
after a ``---`` rule as a ``> **You**`` blockquote; the agent's Markdown
verbatim (a code fence it left open is closed, so it cannot swallow the
rest), thoughts folded in ``<details>``; tool calls as ``### ✎ Edit greet.py
— completed`` with locations, unified diffs, terminal output and exit
status, and raw input/output folded as JSON; notices as blockquotes; the
plan (session state, not an entry) as a task list at the end.

Paths inside the working directory are shown relative to it, others under
the home directory as ``~/…``. What is not Markdown (titles, plan items,
terminal output) is escaped or fenced; a fence is always longer than any
backtick run inside it. :func:`write_markdown` writes a document
atomically; :func:`default_export_name` names one.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from acp_tui.core.model.content_text import clean, one_line, terminal_text
from acp_tui.core.model.entries import Entry
from acp_tui.core.model.tool_text import diff_lines, exit_label, kind_icon

__all__ = ["ExportError", "default_export_name", "fence", "to_markdown", "write_markdown"]

NOTICE_LABELS: dict[str, str] = {"info": "ℹ Note", "warning": "⚠ Warning", "error": "✗ Error"}
SLUG_LIMIT = 48

_BACKTICKS = re.compile("`+")
# A fence opener / closer at 0-3 spaces of indentation (CommonMark).
_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
# Inline characters that Markdown could read as syntax in plain text.
_INLINE_SPECIAL = re.compile(r"[\\`*\[\]<_]|&(?=#?\w+;)|#")


class ExportError(Exception):
    """The document could not be written; the message says why (for the user)."""


# -- text helpers -------------------------------------------------------------------


def escape(text: str) -> str:
    """Plain text (one line) as Markdown that shows exactly that text."""

    flat = one_line(text)

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        start = match.start()
        if char == "_":  # snake_case stays as is: intraword "_" is no emphasis
            before = flat[start - 1] if start > 0 else " "
            after = flat[start + 1] if start + 1 < len(flat) else " "
            if before.isalnum() and after.isalnum():
                return char
        elif char == "#" and start > 0 and not flat[start - 1].isspace():
            return char  # only a "#" at the start or after a space can be syntax
        return "\\" + char

    return _INLINE_SPECIAL.sub(replace, flat)


def inline_code(text: str) -> str:
    """``text`` as a code span, whatever backticks it holds."""
    text = one_line(text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(text: str, info: str = "") -> str:
    """``text`` in a fenced code block that no line of it can close.

    The fence is one backtick longer than the longest backtick run in
    ``text`` (at least three)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if not text or text.endswith("\n") else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def link(label: str, uri: str) -> str:
    label = escape(label) or "link"
    target = one_line(uri).replace(" ", "%20")
    if any(char in target for char in "()<>"):
        target = "<" + target.replace("<", "%3C").replace(">", "%3E") + ">"
    return f"[{label}]({target})"


def quote(text: str) -> str:
    """``text`` as a blockquote."""
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def markdown(text: str) -> str:
    """Markdown written by the agent, trimmed, with a fence it left open closed."""
    text = _trim(clean(text))
    closer = _open_fence(text)
    return f"{text}\n{closer}" if closer else text


def _open_fence(text: str) -> str | None:
    """The line that closes the code fence ``text`` ends in, if it ends in one."""
    opened: tuple[str, str] | None = None  # (indentation, fence)
    for line in text.split("\n"):
        if opened is None:
            match = _FENCE_OPEN.match(line)
            if match and not (match.group(2)[0] == "`" and "`" in match.group(3)):
                opened = (match.group(1), match.group(2))
        else:
            match = _FENCE_CLOSE.match(line)
            if (
                match
                and match.group(1)[0] == opened[1][0]
                and len(match.group(1)) >= len(opened[1])
            ):
                opened = None
    return opened[0] + opened[1] if opened else None


def _trim(text: str) -> str:
    """``text`` without leading and trailing blank lines or trailing spaces."""
    lines = text.rstrip().split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines)


class _Paths:
    """Shows paths relative to the working directory, else to the home directory."""

    def __init__(self, cwd: str | None, home: str | None) -> None:
        self.cwd = cwd.rstrip("/") if cwd else None
        self.home = home.rstrip("/") if home else None

    def show(self, path: str) -> str:
        if self.cwd and path.startswith(self.cwd + "/") and len(path) > len(self.cwd) + 1:
            return path[len(self.cwd) + 1 :]
        return self.from_home(path)

    def from_home(self, path: str) -> str:
        home = self.home
        if home and path == home:
            return "~"
        if home and path.startswith(home + "/"):
            return "~/" + path[len(home) + 1 :]
        return path

    def show_uri(self, uri: str) -> str:
        """A ``file://`` URI as a path; any other URI as it is."""
        if uri.startswith("file://"):
            path = unquote(uri[len("file://") :])
            return self.show(path[path.index("/") :] if "/" in path else path)
        return uri


def _home() -> str | None:
    try:
        return str(Path.home())
    except (KeyError, RuntimeError):
        return None


# -- the document -------------------------------------------------------------------


def to_markdown(
    entries: Iterable[Entry | Mapping[str, Any]],
    *,
    title: str | None = None,
    agent: str | Mapping[str, Any] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    plan: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """The conversation as a Markdown document (ends with one newline).

    ``entries``: ``session.thread.entries``, or their wire dicts (a
    ``session.snapshot``'s ``entries``); a wire dict ``{"kind": "plan",
    "entries": [...]}`` among them is shown where it stands. ``agent``: a
    name, or the agent's ``agentInfo`` (``title``/``name`` and ``version``).
    ``cwd``: the session's working directory. ``plan``: the session's plan
    (``session.plan``), shown at the end."""
    cwd_text = os.fspath(cwd) if cwd is not None else None
    home = _home()
    paths = _Paths(cwd_text, home)
    blocks = [_header(title, agent, cwd_text, _Paths(None, home))]
    body: list[str] = []
    for entry in entries:
        wire = entry if isinstance(entry, Mapping) else entry.to_wire()
        body.extend(_entry(wire, paths))
    if not body:
        body.append("*No messages.*")
    blocks += body
    if plan:
        blocks += ["---", "## Plan", _plan(plan)]
    return "\n\n".join(block for block in blocks if block) + "\n"


def _header(
    title: str | None,
    agent: str | Mapping[str, Any] | None,
    cwd: str | None,
    paths: _Paths,
) -> str:
    lines = [f"# {escape(title or '') or 'Conversation'}"]
    facts: list[str] = []
    if isinstance(agent, Mapping):
        name = one_line(str(agent.get("title") or agent.get("name") or ""))
        version = one_line(str(agent.get("version") or ""))
        agent = f"{name} {version}".strip() if name else None
    if agent:
        facts.append(f"- **Agent:** {escape(agent)}")
    if cwd:
        facts.append(f"- **Directory:** {inline_code(paths.from_home(cwd))}")
    if facts:
        lines += ["", *facts]
    return "\n".join(lines)


def _entry(wire: Mapping[str, Any], paths: _Paths) -> list[str]:
    kind = wire.get("kind")
    if kind == "user":
        return ["---", _user(_list(wire.get("content")), paths)]
    if kind == "assistant":
        return _assistant(_list(wire.get("chunks")))
    if kind == "tool_call":
        return _tool_call(wire, paths)
    if kind == "notice":
        return [_notice(str(wire.get("level") or "info"), str(wire.get("text") or ""))]
    if kind == "plan":
        return ["**Plan**\n\n" + _plan(_list(wire.get("entries")))]
    return [_placeholder({"type": kind or "entry"})]


def _list(value: Any) -> list[Any]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


# -- user -----------------------------------------------------------------------------


def _user(content: list[Mapping[str, Any]], paths: _Paths) -> str:
    text = ""
    need_space = False  # after a link: the next text starts after a space
    attachments: list[str] = []
    for block in content:
        block_type = block.get("type")
        if block_type == "text":
            part = clean(str(block.get("text") or ""))
            if need_space and part and not part[0].isspace():
                text += " "
            text += part
            need_space = False
            continue
        if block_type == "resource_link":
            uri = str(block.get("uri") or "")
            chip = link(str(block.get("title") or block.get("name") or paths.show_uri(uri)), uri)
        elif block_type == "resource":
            resource = block.get("resource")
            resource = resource if isinstance(resource, Mapping) else {}
            uri = str(resource.get("uri") or "")
            chip = link(_basename(unquote(uri)) or "resource", uri)
            attachments.append(_resource(resource, paths))
        else:
            chip = _placeholder(block)
        closer = _open_fence(text)
        if closer or _FENCE_OPEN.match(text.rpartition("\n")[2]):
            text += f"\n{closer}\n" if closer else "\n"  # not inside or on a fence line
        elif text and not text[-1].isspace():
            text += " "
        text += chip
        need_space = True
    parts = ["**You**"]
    if _trim(text):
        parts.append(markdown(text))
    parts += attachments
    return quote("\n\n".join(parts))


def _resource(resource: Mapping[str, Any], paths: _Paths) -> str:
    uri = str(resource.get("uri") or "")
    label = inline_code(paths.show_uri(uri)) if uri else "*resource*"
    text = resource.get("text")
    if not isinstance(text, str):
        mime = one_line(str(resource.get("mimeType") or "binary"))
        return f"{label} *({escape(mime)}, not shown)*"
    return f"{label}\n\n{fence(clean(text), _language(uri, resource.get('mimeType')))}"


def _language(uri: str, mime: Any) -> str:
    """A fence's info string: the file's extension (GitHub knows ``py``, ``rs``…)."""
    name = _basename(uri)
    extension = name.rpartition(".")[2].lower() if "." in name else ""
    if not re.fullmatch(r"[a-z0-9+-]{1,12}", extension) and isinstance(mime, str):
        extension = mime.partition("/")[2].removeprefix("x-").lower()
    if re.fullmatch(r"[a-z0-9+-]{1,12}", extension) and extension != "plain":
        return extension
    return "text"


def _basename(uri: str) -> str:
    return uri.rstrip("/").rsplit("/", 1)[-1]


def _placeholder(block: Mapping[str, Any]) -> str:
    """A content block that is not text: an image, audio, …"""
    block_type = one_line(str(block.get("type") or "content"))
    mime = block.get("mimeType")
    detail = f": {one_line(mime)}" if isinstance(mime, str) and mime else ""
    return f"*\\[{escape(block_type + detail)}\\]*"


# -- assistant ------------------------------------------------------------------------


def _assistant(chunks: list[Mapping[str, Any]]) -> list[str]:
    blocks: list[str] = []
    for chunk in chunks:
        text = str(chunk.get("text") or "")
        if not text.strip():
            continue
        if chunk.get("type") == "thought":
            blocks.append(_details("Thought", _thought(text)))
        else:
            blocks.append(markdown(text))
    return blocks


def _thought(text: str) -> str:
    if "</details" in text.lower():  # it would close our <details> early
        return fence(_trim(clean(text)), "text")
    return markdown(text)


def _details(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


# -- tool calls -------------------------------------------------------------------------


def _tool_call(wire: Mapping[str, Any], paths: _Paths) -> list[str]:
    kind = str(wire.get("toolKind") or "other")
    icon = kind_icon(kind)
    title = escape(str(wire.get("title") or "")) or escape(kind.replace("_", " "))
    status = one_line(str(wire.get("status") or "pending")).replace("_", " ")
    blocks = [f"### {icon} {title} — {status}"]
    locations = []
    for location in _list(wire.get("locations")):
        if not location.get("path"):
            continue
        line = location.get("line")
        suffix = f":{line}" if isinstance(line, int) else ""
        locations.append(inline_code(paths.show(str(location["path"])) + suffix))
    if locations:
        blocks.append("**Locations:** " + ", ".join(locations))
    for item in _list(wire.get("content")):
        blocks.append(_tool_content(item, paths))
    for label, key in (("Raw input", "rawInput"), ("Raw output", "rawOutput")):
        if wire.get(key) is not None:
            blocks.append(_details(label, _raw(wire[key])))
    return [block for block in blocks if block]


def _tool_content(item: Mapping[str, Any], paths: _Paths) -> str:
    item_type = item.get("type")
    if item_type == "content":
        block = item.get("content")
        if not isinstance(block, Mapping):
            return ""
        if block.get("type") == "text":
            return markdown(str(block.get("text") or ""))
        if block.get("type") == "resource_link":
            uri = str(block.get("uri") or "")
            return link(str(block.get("title") or block.get("name") or paths.show_uri(uri)), uri)
        if block.get("type") == "resource":
            resource = block.get("resource")
            return _resource(resource if isinstance(resource, Mapping) else {}, paths)
        return _placeholder(block)
    if item_type == "diff":
        return _diff(item, paths)
    if item_type == "terminal":
        return _terminal(item)
    return _placeholder(item)


def _diff(item: Mapping[str, Any], paths: _Paths) -> str:
    old = item.get("oldText")
    new = item.get("newText")
    path = paths.show(str(item.get("path") or "")) or "(no path)"
    lines = diff_lines(old if isinstance(old, str) else None, new if isinstance(new, str) else "")
    if not lines:
        new_file = " *(new, empty file)*" if not isinstance(old, str) else " *(no changes)*"
        return inline_code(path) + new_file
    from_file = "/dev/null" if not isinstance(old, str) else one_line(path)
    return fence(f"--- {from_file}\n+++ {one_line(path)}\n" + "".join(lines), "diff")


def _terminal(item: Mapping[str, Any]) -> str:
    if "output" not in item:
        return "*Terminal output not available.*"
    output = terminal_text(str(item.get("output") or ""))
    status = escape(exit_label(item.get("exitStatus")))
    if item.get("truncated"):
        status += " · output truncated"
    shown = fence(output, "text") if output else "*No output.*"
    return f"{shown}\n\n*{status}*"


def _raw(value: Any) -> str:
    if isinstance(value, str):
        return fence(clean(value), "text")
    text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return fence(clean(text), "json")


# -- notices and the plan --------------------------------------------------------------


def _notice(level: str, text: str) -> str:
    label = NOTICE_LABELS.get(level, NOTICE_LABELS["info"])
    head, _, tail = clean(text).strip("\n").partition("\n")
    parts = [f"**{label}:** {escape(head)}".rstrip()]
    tail = _trim(tail)
    if tail:
        parts.append(fence(tail, "text"))
    return quote("\n\n".join(parts))


def _plan(entries: Sequence[Any]) -> str:
    lines = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        status = entry.get("status")
        mark = "x" if status == "completed" else " "
        suffix = " *(in progress)*" if status == "in_progress" else ""
        lines.append(f"- [{mark}] {escape(str(entry.get('content') or ''))}{suffix}")
    return "\n".join(lines) or "*No plan.*"


# -- files ------------------------------------------------------------------------------


def default_export_name(title: str | None, now: datetime) -> str:
    """``acp-tui-2026-12-01-1530-fixing-the-greeting.md`` (the slug of ``title``)."""
    slug = _slug(title or "")
    stamp = now.strftime("%Y-%m-%d-%H%M")
    return f"acp-tui-{stamp}-{slug}.md" if slug else f"acp-tui-{stamp}.md"


def _slug(title: str) -> str:
    decomposed = unicodedata.normalize("NFKD", title)
    letters = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    words = re.findall(r"[^\W_]+", letters)
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > SLUG_LIMIT:
            return slug or word[:SLUG_LIMIT]
        slug = candidate
    return slug


def write_markdown(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the path written.

    A temporary file in the same directory is renamed over ``path``, so a
    reader sees the old file or the whole new one. ``~`` is expanded. The
    parent directory must exist (it is not created). An existing file keeps
    its permissions; a new one gets the usual ones (0666 minus the umask).
    Raises :class:`ExportError` with a message for the user."""
    target = Path(os.path.expanduser(os.fspath(path)))
    parent = target.parent
    if not parent.is_dir():
        raise ExportError(f"cannot export to {target}: the directory {parent} does not exist")
    if target.is_dir():
        raise ExportError(f"cannot export to {target}: it is a directory")
    temp = parent / f".{target.name}.{secrets.token_hex(4)}.tmp"
    try:
        mode = target.stat().st_mode & 0o7777 if target.exists() else None
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(text.encode("utf-8"))
                file.flush()
                os.fsync(file.fileno())
            if mode is not None:
                os.chmod(temp, mode)
            os.replace(temp, target)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ExportError(f"cannot export to {target}: {reason}") from exc
    return target
