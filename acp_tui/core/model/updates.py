"""Applying ACP ``session/update`` notifications: thread + state + update in,
events out.

:func:`apply_update` is the whole of it. It changes the thread (through its
methods: the thread is the only writer of entries) and the state, and
returns the events that describe what changed, in order, for the session to
number and commit. It never calls back into a session and never awaits: the
transport applies updates synchronously in arrival order (an await here
would let later updates overtake this one). A malformed or unknown update
comes back as an ``error`` event, never dropped silently.

Text chunks take a fast path that reads the wire dict directly; every other
kind is validated with the SDK's schema model first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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

from acp_tui.core.model import session_state
from acp_tui.core.model.budget import DELTA_LIMIT, TextBudget, text_size
from acp_tui.core.model.entries import FINISHED_STATUSES, ChunkType, ToolCallEntry, describe_block
from acp_tui.core.model.events import Event
from acp_tui.core.model.session_state import SessionState
from acp_tui.core.model.thread import (
    TerminalOutput,
    Thread,
    fill_terminals,
    parent_tool_call_id,
)
from acp_tui.core.model.validation import describe

log = logging.getLogger(__name__)


@dataclass
class Target:
    """What an update is applied to: one session's thread and state, the
    text budget its entries share, and a lookup of its terminals' output."""

    thread: Thread
    state: SessionState
    budget: TextBudget
    terminal_output: TerminalOutput


Applier = Callable[[Target, dict[str, Any]], list[Event]]


def apply_update(target: Target, update: Any) -> list[Event]:
    """The events of one ``session/update``'s ``update`` object."""
    if not isinstance(update, dict):
        return [_error("session/update without an update object")]
    kind = update.get("sessionUpdate")
    applier = _APPLIERS.get(kind) if isinstance(kind, str) else None
    if applier is None:
        log.warning("unknown session update kind %r", kind)
        return [_error(f"unknown session update kind {kind!r}")]
    try:
        return applier(target, update)
    except ValidationError as exc:
        return [_error(f"malformed {kind} update ({describe(exc)})")]


def is_reply_content(update: Any) -> bool:
    """Whether an update is part of a reply: text, a thought or a tool call."""
    if not isinstance(update, dict):
        return False
    kind = update.get("sessionUpdate")
    if kind in _TOOL_UPDATES:
        return True
    if kind not in _CONTENT_UPDATES:
        return False
    content = update.get("content")
    return not (isinstance(content, dict) and content.get("text") == "")


def permission_entry(target: Target, tool_call: dict[str, Any]) -> tuple[str, list[Event]]:
    """The tool call a permission request is about, from the request's
    ``toolCall``: its id, and the events of creating it (when the agent
    never announced it) or of the fields the request changes."""
    thread = target.thread
    fields = {key: value for key, value in tool_call.items() if key != "status"}
    fields = _admit_tool_call(target.budget, fields)
    tool_call_id = str(fields["toolCallId"])
    if "content" in fields:
        fields["content"] = fill_terminals(fields["content"], target.terminal_output)
    found = thread.tool_call(tool_call_id)
    if found is None:
        fields.setdefault("title", "Tool call")
        event, entry, _ = thread.upsert_tool_call(fields)
    elif _changes(found[1], fields):
        event, entry, _ = thread.update_tool_call(fields)
    else:
        return tool_call_id, []
    _account_tool_call(target.budget, entry)
    return tool_call_id, [event]


# -- the appliers ---------------------------------------------------------------------


def _error(message: str) -> Event:
    return Event("error", {"code": "protocol_error", "message": message})


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


def _add_text(
    target: Target, chunk_type: ChunkType, text: str, message_id: str | None
) -> list[Event]:
    """A reply's text, within the session's budget, in deltas of bounded size."""
    thread, budget = target.thread, target.budget
    tail = thread.text_target(chunk_type, message_id)
    delta = budget.admit_delta(
        thread.last_chunk() if tail is not None else None,
        lambda: tail.text if tail is not None else "",
        text,
    )
    if delta.dropped:
        return []
    text = delta.text
    out = [
        thread.add_text(chunk_type, text[start : start + DELTA_LIMIT], message_id)
        for start in range(0, max(len(text), 1), DELTA_LIMIT)
    ]
    if delta.marked:
        budget.spill_rest(thread.last_chunk(), delta.rest_to)
    return out


def _agent_message(target: Target, update: dict[str, Any]) -> list[Event]:
    return _add_text(target, "message", _text_of(update), _message_id(update))


def _agent_thought(target: Target, update: dict[str, Any]) -> list[Event]:
    return _add_text(target, "thought", _text_of(update), _message_id(update))


def _user_message(target: Target, update: dict[str, Any]) -> list[Event]:
    block = _wire(ContentChunk.model_validate(update).content)
    if isinstance(block.get("text"), str):
        block["text"] = target.budget.admit(block["text"])
    return [target.thread.add_user_chunk(block)]


def _admit_tool_call(budget: TextBudget, fields: dict[str, Any]) -> dict[str, Any]:
    """A tool call's fields with what is too long cut (the session's budget)."""
    return budget.admit_tool_call(fields, budget.tool_call_size(str(fields["toolCallId"])))


def _account_tool_call(budget: TextBudget, entry: ToolCallEntry) -> None:
    parts = [entry.title, entry.content, entry.locations, entry.raw_input, entry.raw_output]
    budget.account_tool_call(entry.tool_call_id, text_size(parts))


def _tool_call(target: Target, update: dict[str, Any]) -> list[Event]:
    thread = target.thread
    fields = _admit_tool_call(target.budget, _wire(ToolCallStart.model_validate(update)))
    # Replaced, whatever the new status: the old request can never be answered.
    out = thread.drop_permission_of(str(fields["toolCallId"]))
    fields["content"] = fill_terminals(fields.get("content"), target.terminal_output)
    event, entry, _replaced = thread.upsert_tool_call(fields)
    _account_tool_call(target.budget, entry)
    out.append(event)
    return out


def _tool_call_update(target: Target, update: dict[str, Any]) -> list[Event]:
    thread = target.thread
    fields = _admit_tool_call(target.budget, _wire(ToolCallProgress.model_validate(update)))
    out = []
    if fields.get("status") in FINISHED_STATUSES:
        out += thread.drop_permission_of(str(fields["toolCallId"]))
    if "content" in fields:
        fields["content"] = fill_terminals(fields["content"], target.terminal_output)
    event, entry, _created = thread.update_tool_call(fields)
    _account_tool_call(target.budget, entry)
    out.append(event)
    return out


def _plan_event(state: SessionState, entries: list[dict[str, Any]]) -> list[Event]:
    state.plan = entries
    return [Event("plan-updated", {"entries": entries})]


def _plan(target: Target, update: dict[str, Any]) -> list[Event]:
    plan = _wire(AgentPlanUpdate.model_validate(update))
    return _plan_event(target.state, plan.get("entries", []))


def _plan_update(target: Target, update: dict[str, Any]) -> list[Event]:
    plan = update.get("plan")
    entries = plan.get("entries") if isinstance(plan, dict) else None
    return _plan_event(target.state, entries if isinstance(entries, list) else [])


def _plan_removed(target: Target, update: dict[str, Any]) -> list[Event]:
    return _plan_event(target.state, [])


def _commands(target: Target, update: dict[str, Any]) -> list[Event]:
    data = _wire(AvailableCommandsUpdate.model_validate(update))
    target.state.commands = data.get("availableCommands", [])
    return [Event("commands-updated", {"availableCommands": target.state.commands})]


def _mode(target: Target, update: dict[str, Any]) -> list[Event]:
    data = _wire(CurrentModeUpdate.model_validate(update))
    return session_state.change_mode(target.thread, target.state, data["currentModeId"], note=True)


def _config(target: Target, update: dict[str, Any]) -> list[Event]:
    data = _wire(ConfigOptionUpdate.model_validate(update))
    return session_state.adopt_config_options(
        target.thread, target.state, data.get("configOptions", []), note=True
    )


def _session_info(target: Target, update: dict[str, Any]) -> list[Event]:
    data = _wire(SessionInfoUpdate.model_validate(update))
    data.pop("sessionUpdate", None)
    if "title" in data:
        target.state.title = data["title"]
    return [Event("title-updated", data)]


def _usage(target: Target, update: dict[str, Any]) -> list[Event]:
    data = _wire(UsageUpdate.model_validate(update))
    data.pop("sessionUpdate", None)
    return [session_state.set_usage(target.state, data)]


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

_CONTENT_UPDATES = frozenset({"agent_message_chunk", "agent_thought_chunk"})
_TOOL_UPDATES = frozenset({"tool_call", "tool_call_update"})


def _changes(entry: ToolCallEntry, fields: dict[str, Any]) -> bool:
    """Whether applying ``fields`` (a tool-call update) would change ``entry``."""
    current = entry.to_wire()
    renamed = {"kind": "toolKind"}
    parent = parent_tool_call_id(fields)
    if parent is not None and parent != entry.parent_tool_call_id:
        return True
    return any(
        current.get(renamed.get(key, key)) != value
        for key, value in fields.items()
        if key not in ("toolCallId", "_meta") and value is not None
    )
