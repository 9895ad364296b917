"""Added directories (``--add-dir``, the config's ``add_dirs``, headless
``additionalDirectories``): more workspace roots of a session, beyond its cwd.

An added directory is both a root of the session's fence (the agent may read
and write it through ``fs/*`` and run terminals there) and told to the agent
as ACP's ``additionalDirectories`` on ``session/new``, ``session/load`` and
``session/resume``, when the agent advertises
``sessionCapabilities.additionalDirectories``. An agent that does not is
not told (ACP forbids sending them then); the directories stay in the fence
and one notice in the session's log says the agent was not told of them.
An ``allow_roots`` directory, by contrast, is a fence root only: the agent
is never told of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.core.errors import HostError

if TYPE_CHECKING:
    from acp_tui.core.sessions.session import Session

NOT_TOLD = (
    "The agent was not told of the added directories ({dirs}): it does not support"
    " additionalDirectories. It may still read and write them through acp-tui."
)


def supported(capabilities: Mapping[str, Any]) -> bool:
    """Whether the agent takes ``additionalDirectories`` (ACP's
    ``sessionCapabilities.additionalDirectories``, ``{}`` when it does)."""
    caps = capabilities.get("sessionCapabilities")
    return isinstance(caps, Mapping) and caps.get("additionalDirectories") is not None


def merged(configured: Iterable[Path], given: Iterable[str | Path]) -> list[Path]:
    """The ``configured`` directories, then the ``given`` ones (each an absolute
    path of an existing directory, else ``invalid_params``), resolved, each once."""
    found: list[Path] = []
    for directory in [*configured, *(_checked(d) for d in given)]:
        real = Path(directory).resolve()
        if real not in found:
            found.append(real)
    return found


def _checked(directory: str | Path) -> Path:
    path = Path(directory)
    if not path.is_absolute():
        raise HostError(
            "invalid_params", f"additionalDirectories: {str(directory)!r} is not absolute"
        )
    if not path.is_dir():
        raise HostError(
            "invalid_params",
            f"additionalDirectories: {str(directory)!r} is not an existing directory",
        )
    return path


def request(
    params: dict[str, Any], dirs: list[Path], capabilities: Mapping[str, Any]
) -> dict[str, Any]:
    """``params`` of a session lifecycle request, with ``additionalDirectories``
    when there are some and the agent supports them."""
    if dirs and supported(capabilities):
        params["additionalDirectories"] = [str(d) for d in dirs]
    return params


def adopt(session: Session, dirs: list[Path], capabilities: Mapping[str, Any]) -> Session:
    """Keep ``dirs`` on ``session`` (a revived session sends them again) and,
    when the agent was not told of them, say so once in its log; returns it."""
    session.added_dirs = list(dirs)
    if dirs and not supported(capabilities):
        session.add_notice("warning", NOT_TOLD.format(dirs=", ".join(str(d) for d in dirs)))
    return session
