"""A session's mode and config values (the model…): the one-line notes it
leaves in its log when they change ("Mode: Plan", "Model: Opus"), and putting
back the ones chosen before a resume."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError

if TYPE_CHECKING:
    from acp_tui.core.sessions.session import Session

log = logging.getLogger(__name__)


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


def current(session: Session) -> dict[str, Any]:
    """The session's mode, config values and usage, as the history keeps them."""
    settings: dict[str, Any] = {
        "config": {
            str(o["id"]): o["currentValue"]
            for o in session.config_options
            if isinstance(o, dict) and "id" in o and "currentValue" in o
        }
    }
    mode = (session.modes or {}).get("currentModeId")
    if mode is not None:
        settings["mode"] = mode
    if session.usage:
        settings["usage"] = session.usage
    return settings


async def restore(session: Session, settings: dict[str, Any]) -> list[str]:
    """Put back the mode, config values and usage kept from before (the local
    history's settings record) where the agent offers them; returns what was
    restored, as notes. A value the agent refuses is left as it is."""
    restored: list[str] = []
    mode = settings.get("mode")
    modes = session.modes or {}
    available = {m.get("id") for m in modes.get("availableModes") or [] if isinstance(m, dict)}
    if isinstance(mode, str) and mode != modes.get("currentModeId") and mode in available:
        try:
            await session.set_mode(mode, note=False)
            restored.append(mode_note(session.modes, mode))
        except HostError as exc:
            log.info("mode %s not restored: %s", mode, exc.message)
    config = settings.get("config")
    for option in list(session.config_options):
        if not isinstance(option, dict) or option.get("category") == "mode":
            continue
        wanted = config.get(option.get("id")) if isinstance(config, dict) else None
        values = {c.get("value") for c in flat_choices(option.get("options"))}
        if wanted is None or wanted == option.get("currentValue") or wanted not in values:
            continue
        try:
            await session.set_config_option(str(option["id"]), wanted, note=False)
        except HostError as exc:
            log.info("%s not restored: %s", option.get("id"), exc.message)
            continue
        now = next((o for o in session.config_options if o.get("id") == option["id"]), option)
        restored.append(f"{now.get('name') or now['id']}: {value_name(now)}")
    usage = settings.get("usage")
    if session.usage is None and isinstance(usage, dict):
        session.set_usage(usage)
    return restored
