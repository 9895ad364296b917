"""Applying ACP ``session/update`` notifications to a session.

Called synchronously from the transport's read loop, in arrival order
(never awaiting: an await here would let later updates overtake this one).
Text chunks take a fast path that reads the wire dict directly; every other
kind is validated with the SDK's schema model first. Unknown kinds and
malformed updates are reported as ``error`` events, never dropped silently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from acp.schema import (
    AgentPlanUpdate,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    ContentChunk,
    CurrentModeUpdate,
    SessionInfoUpdate,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
)
from pydantic import BaseModel, ValidationError

from acp_tui.core.model.budget import DELTA_LIMIT, text_size
from acp_tui.core.model.entries import FINISHED_STATUSES, ChunkType, ToolCallEntry, describe_block
from acp_tui.core.model.events import Event
from acp_tui.core.model.validation import describe

if TYPE_CHECKING:
    from acp_tui.core.sessions.session import Session

log = logging.getLogger(__name__)

Applier = Callable[["Session", dict[str, Any]], None]


def apply_update(session: Session, update: Any) -> None:
    if not isinstance(update, dict):
        session.report_error("protocol_error", "session/update without an update object")
        return
    kind = update.get("sessionUpdate")
    applier = _APPLIERS.get(kind) if isinstance(kind, str) else None
    if applier is None:
        log.warning("unknown session update kind %r", kind)
        session.report_error("protocol_error", f"unknown session update kind {kind!r}")
        return
    try:
        applier(session, update)
    except ValidationError as exc:
        session.report_error("protocol_error", f"malformed {kind} update ({describe(exc)})")


def _wire(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def _text_of(update: dict[str, Any]) -> str:
    content = update.get("content")
    if isinstance(content, dict) and content.get("type") == "text":
        text = content.get("text")
        if isinstance(text, str):
            return text
    chunk = ContentChunk.model_validate(update)
    return describe_block(_wire(chunk.content))


def _message_id(update: dict[str, Any]) -> str | None:
    message_id = update.get("messageId")
    return message_id if isinstance(message_id, str) else None


def add_text(session: Session, chunk_type: ChunkType, text: str, message_id: str | None) -> None:
    """A reply's text, within the session's budget, in deltas of bounded size."""
    thread = session.thread
    target = thread.text_target(chunk_type, message_id)
    delta = session.budget.admit_delta(
        thread.last_chunk() if target is not None else None,
        lambda: target.text if target is not None else "",
        text,
    )
    if delta.dropped:
        return
    text = delta.text
    for start in range(0, max(len(text), 1), DELTA_LIMIT):
        session.commit(thread.add_text(chunk_type, text[start : start + DELTA_LIMIT], message_id))
    if delta.marked:
        session.budget.spill_rest(thread.last_chunk(), delta.rest_to)


def _agent_message(session: Session, update: dict[str, Any]) -> None:
    add_text(session, "message", _text_of(update), _message_id(update))


def _agent_thought(session: Session, update: dict[str, Any]) -> None:
    add_text(session, "thought", _text_of(update), _message_id(update))


def _user_message(session: Session, update: dict[str, Any]) -> None:
    block = _wire(ContentChunk.model_validate(update).content)
    if isinstance(block.get("text"), str):
        block["text"] = session.budget.admit(block["text"])
    session.commit(session.thread.add_user_chunk(block))


def admit_tool_call(session: Session, fields: dict[str, Any]) -> dict[str, Any]:
    """A tool call's fields with what is too long cut (the session's budget)."""
    budget = session.budget
    return budget.admit_tool_call(fields, budget.tool_call_size(str(fields["toolCallId"])))


def account_tool_call(session: Session, entry: ToolCallEntry) -> None:
    parts = [entry.title, entry.content, entry.locations, entry.raw_input, entry.raw_output]
    session.budget.account_tool_call(entry.tool_call_id, text_size(parts))


def _tool_call(session: Session, update: dict[str, Any]) -> None:
    fields = admit_tool_call(session, _wire(ToolCallStart.model_validate(update)))
    pending = session.permissions.for_tool_call(session, fields["toolCallId"])
    if pending is not None:
        # Replaced, whatever the new status: the old request can never be answered.
        session.permissions.cancel_quietly(pending, status=None)
    fields["content"] = session.tools.fill_terminals(fields.get("content"))
    event, entry, _replaced = session.thread.upsert_tool_call(fields)
    account_tool_call(session, entry)
    session.commit(event)
    session.tools.watch_terminals(entry)


def _tool_call_update(session: Session, update: dict[str, Any]) -> None:
    fields = admit_tool_call(session, _wire(ToolCallProgress.model_validate(update)))
    if fields.get("status") in FINISHED_STATUSES:
        pending = session.permissions.for_tool_call(session, fields["toolCallId"])
        if pending is not None:
            session.permissions.cancel_quietly(pending, status=None)
    if "content" in fields:
        fields["content"] = session.tools.fill_terminals(fields["content"])
    event, entry, _created = session.thread.update_tool_call(fields)
    account_tool_call(session, entry)
    session.commit(event)
    session.tools.watch_terminals(entry)


def _plan(session: Session, update: dict[str, Any]) -> None:
    plan = _wire(AgentPlanUpdate.model_validate(update))
    session.plan = plan.get("entries", [])
    session.commit(Event("plan-updated", {"entries": session.plan}))


def _plan_update(session: Session, update: dict[str, Any]) -> None:
    plan = update.get("plan")
    entries = plan.get("entries") if isinstance(plan, dict) else None
    session.plan = entries if isinstance(entries, list) else []
    session.commit(Event("plan-updated", {"entries": session.plan}))


def _plan_removed(session: Session, update: dict[str, Any]) -> None:
    session.plan = []
    session.commit(Event("plan-updated", {"entries": []}))


def _commands(session: Session, update: dict[str, Any]) -> None:
    data = _wire(AvailableCommandsUpdate.model_validate(update))
    session.commands = data.get("availableCommands", [])
    session.commit(Event("commands-updated", {"availableCommands": session.commands}))


def _mode(session: Session, update: dict[str, Any]) -> None:
    data = _wire(CurrentModeUpdate.model_validate(update))
    session.set_current_mode(data["currentModeId"])


def _config(session: Session, update: dict[str, Any]) -> None:
    data = _wire(ConfigOptionUpdate.model_validate(update))
    session.adopt_config_options(data.get("configOptions", []))


def _session_info(session: Session, update: dict[str, Any]) -> None:
    data = _wire(SessionInfoUpdate.model_validate(update))
    data.pop("sessionUpdate", None)
    if "title" in data:
        session.title = data["title"]
    session.commit(Event("title-updated", data))


def _usage(session: Session, update: dict[str, Any]) -> None:
    data = _wire(UsageUpdate.model_validate(update))
    data.pop("sessionUpdate", None)
    session.set_usage(data)


_APPLIERS: dict[str, Applier] = {
    "agent_message_chunk": _agent_message,
    "agent_thought_chunk": _agent_thought,
    "user_message_chunk": _user_message,
    "tool_call": _tool_call,
    "tool_call_update": _tool_call_update,
    "plan": _plan,
    "plan_update": _plan_update,
    "plan_removed": _plan_removed,
    "available_commands_update": _commands,
    "current_mode_update": _mode,
    "config_option_update": _config,
    "session_info_update": _session_info,
    "usage_update": _usage,
}
