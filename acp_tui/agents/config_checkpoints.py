"""The config file's ``[checkpoints]`` table::

    [checkpoints]
    enabled = true        # record the folders around every turn (/changes, /rewind)
    keep = 200            # checkpoints kept per folder; older ones are pruned
    max_file_mib = 5      # larger files are not recorded (each checkpoint says so)

A wrong value is reported (through ``warn``) and its default used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_tui.core import CheckpointSettings

CHECKPOINT_KEYS = ("enabled", "keep", "max_file_mib")
Warn = Callable[[tuple[str, ...], str], None]


def checkpoint_settings(value: Any, warn: Warn, hint: Callable[[str], str]) -> CheckpointSettings:
    defaults = CheckpointSettings()
    if value is None:
        return defaults
    if not isinstance(value, dict):
        warn(("checkpoints",), "checkpoints must be a table; ignoring it")
        return defaults
    for extra in value:
        if extra not in CHECKPOINT_KEYS:
            warn(
                ("checkpoints", extra),
                f"unknown key 'checkpoints.{extra}'{hint(extra)}; ignoring it",
            )
    enabled = value.get("enabled", defaults.enabled)
    if not isinstance(enabled, bool):
        warn(("checkpoints", "enabled"), "checkpoints.enabled must be true or false; ignoring it")
        enabled = defaults.enabled
    keep = value.get("keep", defaults.keep)
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        warn(
            ("checkpoints", "keep"),
            "checkpoints.keep must be a whole number of at least 1; ignoring it",
        )
        keep = defaults.keep
    size: Any = value.get("max_file_mib", defaults.size_limit / 2**20)
    if isinstance(size, bool) or not isinstance(size, int | float) or size <= 0:
        warn(
            ("checkpoints", "max_file_mib"),
            "checkpoints.max_file_mib must be a number of MiB above 0; ignoring it",
        )
        size = defaults.size_limit / 2**20
    return CheckpointSettings(enabled=enabled, keep=keep, size_limit=int(size * 2**20))
