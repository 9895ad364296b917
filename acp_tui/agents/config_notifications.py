"""The config file's ``[notifications]`` table: being told when a session
needs you or a turn is done while you look elsewhere (ui/attention.py)::

    [notifications]
    needs_you = true      # a permission or a question waits for you
    turn_done = true      # a turn ended
    bell = true           # the terminal's bell
    desktop = true        # a desktop notification through the terminal (OSC 9, OSC 777)
    title = true          # the window title counts what waits: "(2) acp-tui"

A wrong value is reported (through ``warn``) and its default used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class NotificationSettings:
    needs_you: bool = True
    turn_done: bool = True
    bell: bool = True
    desktop: bool = True
    title: bool = True


NOTIFICATION_KEYS = tuple(f.name for f in fields(NotificationSettings))
Warn = Callable[[tuple[str, ...], str], None]


def notification_settings(
    value: Any, warn: Warn, hint: Callable[[str], str]
) -> NotificationSettings:
    settings = NotificationSettings()
    if value is None:
        return settings
    if not isinstance(value, dict):
        warn(("notifications",), "notifications must be a table; ignoring it")
        return settings
    for key, given in value.items():
        if key not in NOTIFICATION_KEYS:
            warn(
                ("notifications", key),
                f"unknown key 'notifications.{key}'{hint(key)}; ignoring it",
            )
        elif not isinstance(given, bool):
            warn(("notifications", key), f"notifications.{key} must be true or false; ignoring it")
        else:
            settings = replace(settings, **{key: given})
    return settings
