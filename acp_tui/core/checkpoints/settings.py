"""How checkpoints are recorded: the config file's ``[checkpoints]`` table.

Apart from the engine, so reading the config (at every start) does not load
the checkpoint engine and git's plumbing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Bytes; larger files are not recorded.
DEFAULT_SIZE_LIMIT = 5 * 1024 * 1024
#: Checkpoints kept per folder.
DEFAULT_KEEP = 200


@dataclass(frozen=True)
class CheckpointSettings:
    """The config file's ``[checkpoints]`` table."""

    enabled: bool = True
    size_limit: int = DEFAULT_SIZE_LIMIT
    """Bytes; larger files are not recorded (each checkpoint lists them)."""
    keep: int = DEFAULT_KEEP
    """Checkpoints kept per folder (every session's counted); older ones are pruned."""
    wait_limit: float = 10.0
    """Seconds a turn waits for one checkpoint before it goes on without it."""
    state_dir: Path | None = None
    """Where the shadow repositories go (None: ``$XDG_STATE_HOME/acp-tui/checkpoints``)."""
