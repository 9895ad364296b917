"""The host core: the one owner of session truth.

Everything a front end shows — entries, a turn's status, a pending
permission, a running terminal — is owned here. Front ends (the Textual UI,
the headless NDJSON server, tests) submit commands through :class:`Host` and
render the events it publishes; they never keep a second copy of the truth.

This package never imports Textual, Rich, ``acp_tui.ui`` or
``acp_tui.server`` (tests/test_import_hygiene.py proves it at run time).

This module is the facade the front ends import. It is lazy (PEP 562): a
name is imported from its home module the first time it is used, so
importing one leaf of the core does not load :class:`Host`, and
``acp-tui --version`` loads none of it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp_tui.core.agent_logout import can_logout as can_logout
    from acp_tui.core.capabilities.fs import PathFence as PathFence
    from acp_tui.core.capabilities.tool_paths import outside_paths as outside_paths
    from acp_tui.core.checkpoints.settings import CheckpointSettings as CheckpointSettings
    from acp_tui.core.connection import AgentConnection as AgentConnection
    from acp_tui.core.errors import HostError as HostError
    from acp_tui.core.host import Host as Host
    from acp_tui.core.host import load_connection_modules as load_connection_modules
    from acp_tui.core.model.agent_markup import read_markup as read_markup
    from acp_tui.core.model.agent_markup import readable_title as readable_title
    from acp_tui.core.model.budget import DEFAULT_BUDGET as DEFAULT_BUDGET
    from acp_tui.core.model.budget import default_spill_root as default_spill_root
    from acp_tui.core.model.budget import prune as prune_spill
    from acp_tui.core.model.channel import ChannelClosed as ChannelClosed
    from acp_tui.core.model.channel import EventChannel as EventChannel
    from acp_tui.core.model.coalesce import Coalescer as Coalescer
    from acp_tui.core.model.content_text import clean as clean
    from acp_tui.core.model.content_text import is_printable_name as is_printable_name
    from acp_tui.core.model.content_text import one_line as one_line
    from acp_tui.core.model.content_text import terminal_ansi as terminal_ansi
    from acp_tui.core.model.content_text import visible_controls as visible_controls
    from acp_tui.core.model.elicitation_form import BOOLEAN as BOOLEAN
    from acp_tui.core.model.elicitation_form import CHOICE as CHOICE
    from acp_tui.core.model.elicitation_form import FORMAT_EXAMPLES as FORMAT_EXAMPLES
    from acp_tui.core.model.elicitation_form import INTEGER as INTEGER
    from acp_tui.core.model.elicitation_form import MULTI as MULTI
    from acp_tui.core.model.elicitation_form import NUMBER as NUMBER
    from acp_tui.core.model.elicitation_form import STRING as STRING
    from acp_tui.core.model.elicitation_form import ElicitationForm as ElicitationForm
    from acp_tui.core.model.elicitation_form import FormField as FormField
    from acp_tui.core.model.entries import AssistantEntry as AssistantEntry
    from acp_tui.core.model.entries import ChangesEntry as ChangesEntry
    from acp_tui.core.model.entries import Chunk as Chunk
    from acp_tui.core.model.entries import Entry as Entry
    from acp_tui.core.model.entries import NoticeEntry as NoticeEntry
    from acp_tui.core.model.entries import RewindEntry as RewindEntry
    from acp_tui.core.model.entries import ToolCallEntry as ToolCallEntry
    from acp_tui.core.model.entries import UserEntry as UserEntry
    from acp_tui.core.model.entries import entry_from_wire as entry_from_wire
    from acp_tui.core.model.events import Event as Event
    from acp_tui.core.model.events import event_from_wire as event_from_wire
    from acp_tui.core.model.session_state import flat_choices as flat_choices
    from acp_tui.core.model.session_state import value_name as settings_value_name
    from acp_tui.core.model.session_view import SessionView as SessionView
    from acp_tui.core.model.surface_channel import SURFACE_CAPACITY as SURFACE_CAPACITY
    from acp_tui.core.model.surface_channel import SURFACE_TEXT_BUDGET as SURFACE_TEXT_BUDGET
    from acp_tui.core.model.surface_channel import SurfaceChannel as SurfaceChannel
    from acp_tui.core.model.tool_text import KIND_ICONS as KIND_ICONS
    from acp_tui.core.model.tool_text import diff_lines as diff_lines
    from acp_tui.core.model.tool_text import exit_label as exit_label
    from acp_tui.core.model.tool_text import kind_icon as kind_icon
    from acp_tui.core.model.tool_text import kind_label as kind_label
    from acp_tui.core.prompting.file_index import FileIndex as FileIndex
    from acp_tui.core.prompting.file_index import PathMatch as PathMatch
    from acp_tui.core.prompting.mentions import MentionToken as MentionToken
    from acp_tui.core.prompting.mentions import PromptCapabilities as PromptCapabilities
    from acp_tui.core.prompting.mentions import build_prompt as build_prompt
    from acp_tui.core.prompting.mentions import format_mention as format_mention
    from acp_tui.core.prompting.mentions import image_label as image_label
    from acp_tui.core.prompting.mentions import mention_at as mention_at
    from acp_tui.core.prompting.mentions import pasted_image_paths as pasted_image_paths
    from acp_tui.core.session_delete import can_delete as can_delete
    from acp_tui.core.session_fork import can_fork as can_fork
    from acp_tui.core.sessions import failures as failures
    from acp_tui.core.sessions.agent_spec import AgentSpec as AgentSpec
    from acp_tui.core.sessions.retained_events import RetainedEvents as RetainedEvents
    from acp_tui.core.sessions.session import Session as Session
    from acp_tui.core.storage.agent_log import logs_dir as logs_dir
    from acp_tui.core.storage.history_store import DEFAULT_MAX_AGE_DAYS as DEFAULT_MAX_AGE_DAYS
    from acp_tui.core.storage.history_store import DEFAULT_MAX_SESSIONS as DEFAULT_MAX_SESSIONS
    from acp_tui.core.storage.history_store import HistoryStore as HistoryStore
    from acp_tui.core.storage.history_store import default_root as default_root
    from acp_tui.core.storage.state_paths import shown_path as shown_path
    from acp_tui.core.storage.state_paths import state_dir as state_dir
    from acp_tui.core.storage.transcript import ExportError as ExportError
    from acp_tui.core.storage.transcript import default_export_name as default_export_name
    from acp_tui.core.storage.transcript import to_markdown as to_markdown
    from acp_tui.core.storage.transcript import write_markdown as write_markdown
    from acp_tui.core.transport import host_socket as host_socket
    from acp_tui.core.transport.acp_protocol import is_auth_required as is_auth_required
    from acp_tui.core.transport.framing import READ_AHEAD as READ_AHEAD
    from acp_tui.core.transport.framing import FrameReader as FrameReader
    from acp_tui.core.transport.framing import FrameTooLarge as FrameTooLarge
    from acp_tui.core.transport.json_frames import BadFrame as BadFrame
    from acp_tui.core.transport.json_frames import decode_frame as decode_frame
    from acp_tui.core.transport.json_frames import encode_frame as encode_frame
    from acp_tui.core.transport.json_frames import top_level_fields as top_level_fields
    from acp_tui.core.transport.timeouts import Timeouts as Timeouts

#: Public name -> (home module, attribute); attribute None means the module itself.
_HOMES: dict[str, tuple[str, str | None]] = {
    "AgentConnection": ("acp_tui.core.connection", "AgentConnection"),
    "AgentSpec": ("acp_tui.core.sessions.agent_spec", "AgentSpec"),
    "AssistantEntry": ("acp_tui.core.model.entries", "AssistantEntry"),
    "Chunk": ("acp_tui.core.model.entries", "Chunk"),
    "BOOLEAN": ("acp_tui.core.model.elicitation_form", "BOOLEAN"),
    "BadFrame": ("acp_tui.core.transport.json_frames", "BadFrame"),
    "CHOICE": ("acp_tui.core.model.elicitation_form", "CHOICE"),
    "ChannelClosed": ("acp_tui.core.model.channel", "ChannelClosed"),
    "Coalescer": ("acp_tui.core.model.coalesce", "Coalescer"),
    "DEFAULT_BUDGET": ("acp_tui.core.model.budget", "DEFAULT_BUDGET"),
    "DEFAULT_MAX_AGE_DAYS": ("acp_tui.core.storage.history_store", "DEFAULT_MAX_AGE_DAYS"),
    "DEFAULT_MAX_SESSIONS": ("acp_tui.core.storage.history_store", "DEFAULT_MAX_SESSIONS"),
    "ElicitationForm": ("acp_tui.core.model.elicitation_form", "ElicitationForm"),
    "Entry": ("acp_tui.core.model.entries", "Entry"),
    "Event": ("acp_tui.core.model.events", "Event"),
    "event_from_wire": ("acp_tui.core.model.events", "event_from_wire"),
    "PathFence": ("acp_tui.core.capabilities.fs", "PathFence"),
    "host_socket": ("acp_tui.core.transport.host_socket", None),
    "SURFACE_TEXT_BUDGET": ("acp_tui.core.model.surface_channel", "SURFACE_TEXT_BUDGET"),
    "SURFACE_CAPACITY": ("acp_tui.core.model.surface_channel", "SURFACE_CAPACITY"),
    "RetainedEvents": ("acp_tui.core.sessions.retained_events", "RetainedEvents"),
    "SurfaceChannel": ("acp_tui.core.model.surface_channel", "SurfaceChannel"),
    "EventChannel": ("acp_tui.core.model.channel", "EventChannel"),
    "ExportError": ("acp_tui.core.storage.transcript", "ExportError"),
    "FORMAT_EXAMPLES": ("acp_tui.core.model.elicitation_form", "FORMAT_EXAMPLES"),
    "FileIndex": ("acp_tui.core.prompting.file_index", "FileIndex"),
    "FormField": ("acp_tui.core.model.elicitation_form", "FormField"),
    "FrameReader": ("acp_tui.core.transport.framing", "FrameReader"),
    "FrameTooLarge": ("acp_tui.core.transport.framing", "FrameTooLarge"),
    "HistoryStore": ("acp_tui.core.storage.history_store", "HistoryStore"),
    "Host": ("acp_tui.core.host", "Host"),
    "HostError": ("acp_tui.core.errors", "HostError"),
    "INTEGER": ("acp_tui.core.model.elicitation_form", "INTEGER"),
    "KIND_ICONS": ("acp_tui.core.model.tool_text", "KIND_ICONS"),
    "MULTI": ("acp_tui.core.model.elicitation_form", "MULTI"),
    "MentionToken": ("acp_tui.core.prompting.mentions", "MentionToken"),
    "NUMBER": ("acp_tui.core.model.elicitation_form", "NUMBER"),
    "ChangesEntry": ("acp_tui.core.model.entries", "ChangesEntry"),
    "NoticeEntry": ("acp_tui.core.model.entries", "NoticeEntry"),
    "RewindEntry": ("acp_tui.core.model.entries", "RewindEntry"),
    "CheckpointSettings": ("acp_tui.core.checkpoints.settings", "CheckpointSettings"),
    "PathMatch": ("acp_tui.core.prompting.file_index", "PathMatch"),
    "PromptCapabilities": ("acp_tui.core.prompting.mentions", "PromptCapabilities"),
    "READ_AHEAD": ("acp_tui.core.transport.framing", "READ_AHEAD"),
    "STRING": ("acp_tui.core.model.elicitation_form", "STRING"),
    "Session": ("acp_tui.core.sessions.session", "Session"),
    "SessionView": ("acp_tui.core.model.session_view", "SessionView"),
    "Timeouts": ("acp_tui.core.transport.timeouts", "Timeouts"),
    "ToolCallEntry": ("acp_tui.core.model.entries", "ToolCallEntry"),
    "UserEntry": ("acp_tui.core.model.entries", "UserEntry"),
    "build_prompt": ("acp_tui.core.prompting.mentions", "build_prompt"),
    "clean": ("acp_tui.core.model.content_text", "clean"),
    "decode_frame": ("acp_tui.core.transport.json_frames", "decode_frame"),
    "diff_lines": ("acp_tui.core.model.tool_text", "diff_lines"),
    "default_export_name": ("acp_tui.core.storage.transcript", "default_export_name"),
    "default_root": ("acp_tui.core.storage.history_store", "default_root"),
    "default_spill_root": ("acp_tui.core.model.budget", "default_spill_root"),
    "encode_frame": ("acp_tui.core.transport.json_frames", "encode_frame"),
    "entry_from_wire": ("acp_tui.core.model.entries", "entry_from_wire"),
    "exit_label": ("acp_tui.core.model.tool_text", "exit_label"),
    "failures": ("acp_tui.core.sessions.failures", None),
    "flat_choices": ("acp_tui.core.model.session_state", "flat_choices"),
    "format_mention": ("acp_tui.core.prompting.mentions", "format_mention"),
    "image_label": ("acp_tui.core.prompting.mentions", "image_label"),
    "is_auth_required": ("acp_tui.core.transport.acp_protocol", "is_auth_required"),
    "can_fork": ("acp_tui.core.session_fork", "can_fork"),
    "can_delete": ("acp_tui.core.session_delete", "can_delete"),
    "can_logout": ("acp_tui.core.agent_logout", "can_logout"),
    "is_printable_name": ("acp_tui.core.model.content_text", "is_printable_name"),
    "kind_icon": ("acp_tui.core.model.tool_text", "kind_icon"),
    "kind_label": ("acp_tui.core.model.tool_text", "kind_label"),
    "load_connection_modules": ("acp_tui.core.host", "load_connection_modules"),
    "logs_dir": ("acp_tui.core.storage.agent_log", "logs_dir"),
    "mention_at": ("acp_tui.core.prompting.mentions", "mention_at"),
    "one_line": ("acp_tui.core.model.content_text", "one_line"),
    "outside_paths": ("acp_tui.core.capabilities.tool_paths", "outside_paths"),
    "pasted_image_paths": ("acp_tui.core.prompting.mentions", "pasted_image_paths"),
    "prune_spill": ("acp_tui.core.model.budget", "prune"),
    "read_markup": ("acp_tui.core.model.agent_markup", "read_markup"),
    "readable_title": ("acp_tui.core.model.agent_markup", "readable_title"),
    "settings_value_name": ("acp_tui.core.model.session_state", "value_name"),
    "shown_path": ("acp_tui.core.storage.state_paths", "shown_path"),
    "state_dir": ("acp_tui.core.storage.state_paths", "state_dir"),
    "terminal_ansi": ("acp_tui.core.model.content_text", "terminal_ansi"),
    "to_markdown": ("acp_tui.core.storage.transcript", "to_markdown"),
    "top_level_fields": ("acp_tui.core.transport.json_frames", "top_level_fields"),
    "visible_controls": ("acp_tui.core.model.content_text", "visible_controls"),
    "write_markdown": ("acp_tui.core.storage.transcript", "write_markdown"),
}

__all__ = [
    "BOOLEAN",
    "CHOICE",
    "DEFAULT_BUDGET",
    "DEFAULT_MAX_AGE_DAYS",
    "DEFAULT_MAX_SESSIONS",
    "FORMAT_EXAMPLES",
    "INTEGER",
    "KIND_ICONS",
    "MULTI",
    "NUMBER",
    "READ_AHEAD",
    "STRING",
    "SURFACE_CAPACITY",
    "SURFACE_TEXT_BUDGET",
    "AgentConnection",
    "AgentSpec",
    "AssistantEntry",
    "BadFrame",
    "ChangesEntry",
    "ChannelClosed",
    "CheckpointSettings",
    "Chunk",
    "Coalescer",
    "ElicitationForm",
    "Entry",
    "Event",
    "EventChannel",
    "ExportError",
    "FileIndex",
    "FormField",
    "FrameReader",
    "FrameTooLarge",
    "HistoryStore",
    "Host",
    "HostError",
    "MentionToken",
    "NoticeEntry",
    "PathFence",
    "PathMatch",
    "PromptCapabilities",
    "RetainedEvents",
    "RewindEntry",
    "Session",
    "SessionView",
    "SurfaceChannel",
    "Timeouts",
    "ToolCallEntry",
    "UserEntry",
    "build_prompt",
    "can_delete",
    "can_fork",
    "can_logout",
    "clean",
    "decode_frame",
    "default_export_name",
    "default_root",
    "default_spill_root",
    "diff_lines",
    "encode_frame",
    "entry_from_wire",
    "event_from_wire",
    "exit_label",
    "failures",
    "flat_choices",
    "format_mention",
    "host_socket",
    "image_label",
    "is_auth_required",
    "is_printable_name",
    "kind_icon",
    "kind_label",
    "load_connection_modules",
    "logs_dir",
    "mention_at",
    "one_line",
    "outside_paths",
    "pasted_image_paths",
    "prune_spill",
    "read_markup",
    "readable_title",
    "settings_value_name",
    "shown_path",
    "state_dir",
    "terminal_ansi",
    "to_markdown",
    "top_level_fields",
    "visible_controls",
    "write_markdown",
]


# Hidden from the type checker: with a module ``__getattr__`` in sight, mypy
# would accept any name imported from the facade, even one it does not hold.
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        try:
            module_name, attribute = _HOMES[name]
        except KeyError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
        module = importlib.import_module(module_name)
        value = module if attribute is None else getattr(module, attribute)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return list(__all__)
