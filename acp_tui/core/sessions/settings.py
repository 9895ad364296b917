"""Putting back a session's mode and config values (the model…) chosen before
a resume, where the agent offers them. The notes and names are the model's
(:mod:`acp_tui.core.model.session_state`)."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from acp_tui.core.errors import HostError
from acp_tui.core.model.session_state import SessionState, flat_choices, mode_note, value_name

log = logging.getLogger(__name__)


class Configurable(Protocol):
    """What restoring needs of a session."""

    @property
    def state(self) -> SessionState: ...

    async def set_mode(self, mode_id: str, *, note: bool = True) -> None: ...

    async def set_config_option(
        self, config_id: str, value: Any, *, note: bool = True
    ) -> list[dict[str, Any]]: ...

    def set_usage(self, usage: dict[str, Any]) -> None: ...


async def restore(session: Configurable, settings: dict[str, Any]) -> list[str]:
    """Put back the mode, config values and usage kept from before (the local
    history's settings record) where the agent offers them; returns what was
    restored, as notes. A value the agent refuses is left as it is."""
    state = session.state
    restored: list[str] = []
    mode = settings.get("mode")
    modes = state.modes or {}
    available = {m.get("id") for m in modes.get("availableModes") or [] if isinstance(m, dict)}
    if isinstance(mode, str) and mode != modes.get("currentModeId") and mode in available:
        try:
            await session.set_mode(mode, note=False)
            restored.append(mode_note(state.modes, mode))
        except HostError as exc:
            log.info("mode %s not restored: %s", mode, exc.message)
    config = settings.get("config")
    for option in list(state.config_options):
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
        now = next((o for o in state.config_options if o.get("id") == option["id"]), option)
        restored.append(f"{now.get('name') or now['id']}: {value_name(now)}")
    usage = settings.get("usage")
    if state.usage is None and isinstance(usage, dict):
        session.set_usage(usage)
    return restored
