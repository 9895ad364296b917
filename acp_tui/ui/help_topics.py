"""What the help screen lists besides the keys (the slash commands on offer,
where acp-tui keeps its files), and the welcome of an empty log."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.agents.config import config_path, display_path
from acp_tui.core import logs_dir, one_line, shown_path

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec
    from acp_tui.ui.host_link import AgentInfo
    from acp_tui.ui.screens.help import HelpTopics
    from acp_tui.ui.widgets.command_menu import SlashCommand


def help_topics(
    commands: Iterable[SlashCommand], agent: AgentInfo | None, history_root: Path | None
) -> HelpTopics:
    # The help screen's module is loaded when it is first shown.
    from acp_tui.ui.screens.help import HelpTopics

    listed = [(one_line(c.name), one_line(c.description)) for c in commands]
    files = []
    if agent is not None and agent.log_path is not None:
        files.append(("Agent log", shown_path(agent.log_path)))
    else:
        files.append(("Agent logs", shown_path(logs_dir())))
    files.append(("Config", display_path(config_path(os.environ))))
    if history_root is not None:
        files.append(("Sessions", shown_path(history_root)))
    return HelpTopics(commands=listed, files=files)


def welcome(spec: AgentSpec, cwd: Path, agent: AgentInfo) -> str:
    """The middle of an empty log: the agent, where, and the main keys."""
    info = agent.info
    name = one_line(agent.title(spec.display_name))
    version = f" {one_line(str(info['version']))}" if info.get("version") else ""
    lines = [
        f"{name}{version} is ready in {cwd.name or cwd}",
        "",
        "Type a message and press Enter · Ctrl+J for a new line",
        "/ for commands · @ to attach a file · Esc cancels a turn",
        "Ctrl+P: model, mode, theme · Ctrl+L: the log · F1 or ?: help · Ctrl+Q quits",
    ]
    if spec.name == "demo":
        lines += ["", "New here? Say hi for a guided tour."]
    return "\n".join(lines)
