"""The config file's ``[host]`` table: the background host (acp-tui host)::

    [host]
    detach = true             # every agent's sessions run in the background host
    # detach = ["claude"]     # ... or only these agents'
    idle_timeout = 600        # seconds with no session and no surface before it ends

A wrong value is reported (through ``warn``) and its default used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HOST_KEYS = ("detach", "idle_timeout")
Warn = Callable[[tuple[str, ...], str], None]


@dataclass(frozen=True)
class HostSettings:
    #: True: every agent; a tuple: those agents; False: none.
    detach: bool | tuple[str, ...] = False
    idle_timeout: float = 600.0

    def detaches(self, agent: str | None) -> bool:
        """Whether ``agent``'s sessions run in the background host."""
        if isinstance(self.detach, bool):
            return self.detach
        return agent is not None and agent in self.detach


def host_settings(value: Any, warn: Warn, hint: Callable[[str], str]) -> HostSettings:
    if value is None:
        return HostSettings()
    if not isinstance(value, dict):
        warn(("host",), "host must be a table; ignoring it")
        return HostSettings()
    detach: bool | tuple[str, ...] = False
    idle = 600.0
    for key, given in value.items():
        if key == "detach":
            if isinstance(given, bool):
                detach = given
            elif isinstance(given, list) and all(isinstance(n, str) for n in given):
                detach = tuple(given)
            else:
                warn(("host", key), "host.detach must be true, false or a list of agent names")
        elif key == "idle_timeout":
            if isinstance(given, int | float) and not isinstance(given, bool) and given > 0:
                idle = float(given)
            else:
                warn(("host", key), "host.idle_timeout must be a number of seconds above 0")
        else:
            warn(("host", key), f"unknown key 'host.{key}'{hint(key)}; ignoring it")
    return HostSettings(detach=detach, idle_timeout=idle)
