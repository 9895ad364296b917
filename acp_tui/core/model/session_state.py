"""A session's state besides its entries: plan, commands, modes, config
options, title, usage; and the one-line notes a change leaves in the log.

:class:`SessionState` is plain data. The functions that change it take the
thread and the state and return the events that describe the change (with
the notes the thread appended: "Mode: Plan", "Model: Opus"); the session
commits them. Nothing here calls back into a session.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from acp_tui.core.model.events import Event
from acp_tui.core.model.thread import Thread


@dataclass
class SessionState:
    plan: list[dict[str, Any]] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)
    modes: dict[str, Any] | None = None
    config_options: list[dict[str, Any]] = field(default_factory=list)
    title: str | None = None
    usage: dict[str, Any] | None = None

    @property
    def current_mode(self) -> str | None:
        mode = (self.modes or {}).get("currentModeId")
        return mode if isinstance(mode, str) else None

    def adopt_setup(self, result: Mapping[str, Any]) -> None:
        """Modes and config options from the agent's session/new (or load) answer."""
        modes = result.get("modes")
        self.modes = dict(modes) if isinstance(modes, Mapping) else None
        options = result.get("configOptions")
        self.config_options = list(options) if isinstance(options, list) else []


# -- changes, as events ---------------------------------------------------------


def change_mode(thread: Thread, state: SessionState, mode_id: str, *, note: bool) -> list[Event]:
    """The current mode is ``mode_id`` (the agent's update, or its answer to
    ``session/set_mode``); with ``note``, a line in the log when it changed."""
    before = state.current_mode
    if state.modes is not None:
        state.modes = {**state.modes, "currentModeId": mode_id}
    out = [Event("mode-changed", {"currentModeId": mode_id})]
    if note and before is not None and before != mode_id:
        out.append(thread.append_notice("info", mode_note(state.modes, mode_id)))
    return out


def adopt_config_options(
    thread: Thread, state: SessionState, options: list[dict[str, Any]], *, note: bool
) -> list[Event]:
    """New config option values (the agent's or the user's), with a line in
    the log for each value that changed."""
    before, state.config_options = state.config_options, options
    out = [Event("config-updated", {"configOptions": options})]
    for text in config_notes(before, options) if note else ():
        out.append(thread.append_notice("info", text))
    return out


def set_usage(state: SessionState, usage: dict[str, Any]) -> Event:
    state.usage = usage
    return Event("usage-updated", usage)


# -- notes and names ---------------------------------------------------------------


def mode_note(modes: dict[str, Any] | None, mode_id: str) -> str:
    for mode in (modes or {}).get("availableModes") or []:
        if isinstance(mode, dict) and mode.get("id") == mode_id:
            return f"Mode: {mode.get('name') or mode_id}"
    return f"Mode: {mode_id}"


def value_name(option: dict[str, Any]) -> str:
    value = option.get("currentValue")
    for choice in flat_choices(option.get("options")):
        if choice.get("value") == value:
            return str(choice.get("name") or value)
    return str(value)


def flat_choices(options: Any) -> list[dict[str, Any]]:
    """Select choices, ACP's option groups flattened."""
    flat: list[dict[str, Any]] = []
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict) and isinstance(option.get("options"), list):
            flat.extend(o for o in option["options"] if isinstance(o, dict))
        elif isinstance(option, dict):
            flat.append(option)
    return flat


def config_notes(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    """A note per option whose value changed (the mode category is left to
    :func:`mode_note`: agents report a mode change both ways)."""
    old = {o.get("id"): o.get("currentValue") for o in before if isinstance(o, dict)}
    notes = []
    for option in after:
        if not isinstance(option, dict) or option.get("category") == "mode":
            continue
        key = option.get("id")
        if key in old and old[key] != option.get("currentValue"):
            notes.append(f"{option.get('name') or key}: {value_name(option)}")
    return notes


def config_values(options: list[dict[str, Any]]) -> dict[str, Any]:
    """Config option id -> current value."""
    return {
        str(o["id"]): o["currentValue"]
        for o in options
        if isinstance(o, dict) and "id" in o and "currentValue" in o
    }


def kept_settings(
    modes: Mapping[str, Any] | None,
    config_options: list[dict[str, Any]],
    usage: dict[str, Any] | None,
) -> dict[str, Any]:
    """Mode, config values and usage, as the local history keeps them (and a
    resume puts them back)."""
    settings: dict[str, Any] = {"config": config_values(config_options)}
    mode = (modes or {}).get("currentModeId")
    if mode is not None:
        settings["mode"] = mode
    if usage:
        settings["usage"] = usage
    return settings
