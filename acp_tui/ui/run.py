"""``acp-tui`` in the terminal: the host in this process, the app on it, and
the resume hint printed after a normal quit."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.core import DEFAULT_BUDGET, Host, logs_dir
from acp_tui.ui.app import AcpApp
from acp_tui.ui.exit_guard import run_guarded
from acp_tui.ui.resume import resume_hint

if TYPE_CHECKING:
    from acp_tui.agents.config_notifications import NotificationSettings
    from acp_tui.core import AgentSpec, CheckpointSettings, HistoryStore, Timeouts
    from acp_tui.ui.remote_host import RemoteHost


def run_tui(
    spec: AgentSpec,
    *,
    cwd: Path,
    extra_roots: list[Path],
    theme: str | None,
    add_dirs: list[Path] | None = None,
    resume: str | None = None,
    history: HistoryStore | None = None,
    notices: list[str] | None = None,
    timeouts: Timeouts | None = None,
    text_budget: int = DEFAULT_BUDGET,
    checkpoints: CheckpointSettings | None = None,
    notifications: NotificationSettings | None = None,
    mcp_servers: list[dict[str, Any]] | None = None,
    resolve_agent: Callable[[str], AgentSpec] | None = None,
    detaches: Callable[[str], bool] | None = None,
) -> int:
    host = Host(
        extra_roots=extra_roots,
        add_dirs=add_dirs or (),
        history=history,
        timeouts=timeouts,
        text_budget=text_budget,
        logs=logs_dir(),
        checkpoints=checkpoints,
        mcp_servers=mcp_servers or (),
    )
    app = AcpApp(
        spec,
        cwd=cwd,
        host=host,
        theme=theme,
        resume=resume,
        notices=notices,
        notifications=notifications,
        resolve_agent=resolve_agent,
        detaches=detaches,
        background=lambda: _background_link(extra_roots, add_dirs, mcp_servers),
    )
    code = run_guarded(app)
    # Only after a normal quit: after a signal or a lost terminal nobody may
    # be reading it (a write could block).
    agent = app.conversation.agent
    loadable = agent.can_load if agent is not None else None
    session = app.session
    transcript = host.transcript_key(session.session_id) if session is not None else None
    hint = resume_hint(app.spec, session, cwd, loadable, transcript) if code == 0 else None
    if hint:
        with contextlib.suppress(OSError):
            print(hint, flush=True)
    return code


def _background_link(
    roots: list[Path], add_dirs: list[Path] | None, mcp_servers: list[dict[str, Any]] | None
) -> RemoteHost:
    from acp_tui.ui.remote_host import RemoteHost

    return RemoteHost(roots=roots, add_dirs=add_dirs, mcp_servers=mcp_servers)


def run_remote_tui(
    spec: AgentSpec,
    *,
    cwd: Path,
    extra_roots: list[Path],
    theme: str | None,
    add_dirs: list[Path] | None = None,
    attach: str | None = None,
    resume: str | None = None,
    notices: list[str] | None = None,
    notifications: NotificationSettings | None = None,
    mcp_servers: list[dict[str, Any]] | None = None,
    resolve_agent: Callable[[str], AgentSpec] | None = None,
) -> int:
    """The app on the background host (``--detachable``, ``acp-tui attach``):
    closing the terminal or quitting with "detach" leaves the sessions running."""
    link = _background_link(extra_roots, add_dirs, mcp_servers)
    app = AcpApp(
        spec,
        cwd=cwd,
        link=link,
        theme=theme,
        notices=notices,
        notifications=notifications,
        resolve_agent=resolve_agent,
        attach=attach,
        resume=resume,
    )
    code = run_guarded(app)
    held = [tab.session_id for tab in app.tabs if tab.session_id is not None]
    if code == 0 and link.lost is None and held and link.sessions:
        left = [sid for sid in held if sid in link.sessions]
        if left:
            with contextlib.suppress(OSError):
                print(
                    f"Detached: {len(left)} session(s) go on in the background"
                    f" (acp-tui ls; acp-tui attach {left[0]})",
                    flush=True,
                )
    return code
