"""What the help screen lists besides the keys (the slash commands on offer,
where acp-tui keeps its files), and the welcome of an empty log."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from acp_tui.agents.config import config_path, display_path
from acp_tui.core.agent_log import logs_dir
from acp_tui.core.content_text import one_line
from acp_tui.core.state_paths import shown_path

if TYPE_CHECKING:
    from acp_tui.core.connection import AgentConnection
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.screens.help import HelpTopics


def help_topics(app: AcpApp) -> HelpTopics:
    from acp_tui.ui.screens.help import HelpTopics

    commands = [(one_line(c.name), one_line(c.description)) for c in app.prompt.commands]
    files = []
    connection = app.connection
    if connection is not None and connection.log_path is not None:
        files.append(("Agent log", shown_path(connection.log_path)))
    else:
        files.append(("Agent logs", shown_path(logs_dir())))
    files.append(("Config", display_path(config_path(os.environ))))
    history = app.host.history
    if history is not None:
        files.append(("Sessions", shown_path(history.root)))
    return HelpTopics(commands=commands, files=files)


def welcome(app: AcpApp, connection: AgentConnection) -> str:
    """The middle of an empty log: the agent, where, and the main keys."""
    info = connection.init_result.get("agentInfo") or {}
    name = one_line(str(info.get("title") or info.get("name") or app.spec.display_name))
    version = f" {one_line(str(info['version']))}" if info.get("version") else ""
    lines = [
        f"{name}{version} is ready in {app.cwd.name or app.cwd}",
        "",
        "Type a message and press Enter · Ctrl+J for a new line",
        "/ for commands · @ to attach a file · Esc cancels a turn",
        "Ctrl+P: model, mode, theme · Ctrl+L: the log · F1 or ?: help · Ctrl+Q quits",
    ]
    if app.spec.name == "demo":
        lines += ["", "New here? Say hi for a guided tour."]
    return "\n".join(lines)
