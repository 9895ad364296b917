"""Resuming an earlier session at start-up (``--resume`` / ``--continue``).

With an agent that can load sessions (``loadSession``), the chosen session
is loaded with ``session/load`` and the agent replays its history into the
log. With one that cannot, the transcript kept in the local history is shown
(read-only, above a notice) and a new session starts under it.

In the picker, Ctrl+D deletes the highlighted session once confirmed: an
agent's session with ``session/delete`` (where the agent offers it; else a
warning says it cannot), a transcript only from the local history; the list
is then read again without it.
"""

from __future__ import annotations

import datetime as dt
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acp_tui.core import (
    AgentSpec,
    Entry,
    HostError,
    NoticeEntry,
    can_delete,
    entry_from_wire,
    readable_title,
)
from acp_tui.ui.conversation import Conversation
from acp_tui.ui.host_link import AgentInfo, HostLink
from acp_tui.ui.screens.choice import Choice, ChoiceScreen

if TYPE_CHECKING:
    from acp_tui.ui.surface import Surface

__all__ = ["LATEST", "PICK", "ResumeFlow", "resume_hint", "session_choices"]

#: A picker row's label is cut to this (its details follow on the same row).
LABEL_CHARS = 36
#: ``--continue``: the newest session for this directory.
LATEST = "latest"
#: ``--resume`` without an id: the user picks from a list.
PICK = "pick"


def session_choices(sessions: list[dict[str, Any]], now: dt.datetime) -> list[Choice]:
    """One row per session: its first prompt (or the agent's title), then
    when, how many turns, which agent, and whether only a transcript is left."""
    choices = []
    for info in sessions:
        label = ""
        for text in (info.get("firstPrompt"), info.get("title")):
            lines = readable_title(str(text or "")).strip().splitlines()
            if lines:
                first = lines[0]
                label = first if len(first) <= LABEL_CHARS else first[: LABEL_CHARS - 1] + "…"
                break
        label = label or f"session {info['sessionId'][:12]}"
        turns = info.get("turns")
        details = [
            _ago(info.get("updatedAt"), now),
            f"{turns} turn{'s' if turns != 1 else ''}" if isinstance(turns, int) else "",
            str(info.get("agent") or ""),
            "" if info.get("source") == "agent" else "transcript only",
        ]
        choices.append(Choice(str(info["sessionId"]), label, " · ".join(d for d in details if d)))
    return choices


def _ago(stamp: Any, now: dt.datetime) -> str:
    try:
        then = dt.datetime.fromisoformat(str(stamp))
    except ValueError:
        return ""
    if then.tzinfo is None:
        then = then.replace(tzinfo=dt.UTC)
    seconds = max(0, int((now - then).total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now"


@dataclass
class ResumeFlow:
    surface: Surface
    link: HostLink
    conversation: Conversation
    #: The project folder and the agent's name (for the notice above a transcript).
    cwd: Path
    agent_name: str
    #: LATEST, PICK or an agent session id.
    target: str
    #: With an agent that cannot load sessions: the mode and model kept with
    #: the transcript shown, for the new session to take up.
    settings: dict[str, Any] = field(default_factory=dict)

    async def session(self, agent: AgentInfo) -> str | None:
        """The resumed session's id, or None when a new one should start."""
        try:
            sessions = await self.link.list_sessions(agent.connection_id, self.cwd)
        except HostError as exc:
            self.surface.toast(f"Cannot list earlier sessions: {exc.message}", severity="warning")
            sessions = []
        chosen = await self._choose(sessions, agent)
        if chosen is None:
            return None
        if agent.can_load:
            try:
                return await self.link.load_session(agent.connection_id, chosen, self.cwd)
            except HostError as exc:
                self.surface.toast(f"Could not resume: {exc.message}", severity="error", timeout=8)
                return None
        self._show_transcript(chosen)
        return None

    async def _choose(self, sessions: list[dict[str, Any]], agent: AgentInfo) -> str | None:
        if self.target == LATEST:
            if not sessions:
                self.surface.toast("No earlier session in this directory; starting a new one")
                return None
            return str(sessions[0]["sessionId"])
        if self.target != PICK:
            return self.target
        if not sessions:
            self.surface.toast("No earlier session in this directory; starting a new one")
            return None
        choices = session_choices(sessions, dt.datetime.now(dt.UTC))

        async def delete(session_id: str) -> list[Choice] | None:
            return await self._delete(agent, sessions, session_id)

        picker = ChoiceScreen("Resume a session", choices, delete=delete)
        chosen = await self.surface.ask(picker)
        return chosen if isinstance(chosen, str) else None

    async def _delete(
        self, agent: AgentInfo, sessions: list[dict[str, Any]], session_id: str
    ) -> list[Choice] | None:
        """Delete one of ``sessions`` once the user confirms; the choices left
        (``sessions`` is read again), or None when nothing was deleted."""
        info = next((s for s in sessions if str(s["sessionId"]) == session_id), None)
        if info is None:
            return None
        if info.get("source") == "agent" and not can_delete(agent.capabilities):
            self.surface.toast(
                f"{agent.name} cannot delete its sessions", severity="warning", timeout=6
            )
            return None
        now = dt.datetime.now(dt.UTC)
        label = session_choices([info], now)[0].label
        confirm = [Choice("delete", "Delete"), Choice("keep", "Keep")]
        if await self.surface.ask(ChoiceScreen(f"Delete session {label}?", confirm)) != "delete":
            return None
        try:
            await self.link.delete_session(agent.connection_id, session_id)
        except HostError as exc:
            self.surface.toast(f"Could not delete: {exc.message}", severity="error", timeout=8)
            return None
        try:
            sessions[:] = await self.link.list_sessions(agent.connection_id, self.cwd)
        except HostError:
            sessions.remove(info)
        self.surface.toast(f"Deleted {label}", timeout=3)
        return session_choices(sessions, now)

    def _show_transcript(self, session_id: str) -> None:
        """The locally kept transcript, read-only, above the new session."""
        try:
            transcript = self.link.transcript(session_id)
        except (KeyError, OSError):
            self.surface.toast(f"No transcript of {session_id} is kept here", severity="warning")
            return
        self.settings = transcript.settings
        entries: list[Entry] = []
        for wire in transcript.entries:
            try:
                entries.append(entry_from_wire(wire))
            except ValueError:
                continue
        entries.append(
            NoticeEntry(
                "info",
                f"Above: the transcript of {transcript.title or session_id}, kept by acp-tui."
                f" {self.agent_name} cannot load sessions, so what follows is a new session"
                " (the agent does not remember the transcript).",
            )
        )
        for warning in transcript.warnings:
            entries.append(NoticeEntry("warning", warning))
        self.conversation.show(entries)
        self.surface.log_view.sync()


class Resumable(Protocol):
    """What the exit hint reads of the session the app ended with."""

    agent_session_id: str

    @property
    def thread(self) -> Any: ...


def resume_hint(
    spec: AgentSpec,
    session: Resumable | None,
    cwd: Path,
    loadable: bool | None = None,
    transcript: str | None = None,
) -> str | None:
    """What to type to come back to ``session`` (printed on exit), or None
    when there is nothing to come back to. With an agent that cannot load
    sessions, the local transcript's key (``transcript``) names it (agents
    like the demo reuse their session ids)."""
    if session is None or not any(e.kind == "user" for e in session.thread.entries):
        return None
    target = session.agent_session_id
    if loadable is False:
        if transcript is None:
            return None  # no history kept: nothing to come back to
        target = transcript
    agent = spec.name if spec.name else "-- " + shlex.join([spec.command, *spec.args])
    where = "" if cwd == Path.cwd().resolve() else f" --cwd {shlex.quote(str(cwd))}"
    if agent.startswith("--"):
        command = f"acp-tui{where} --resume {target} {agent}"
    else:
        command = f"acp-tui {agent}{where} --resume {target}"
    return f"Resume this session with: {command}"
