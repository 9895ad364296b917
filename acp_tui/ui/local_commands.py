"""acp-tui's own commands on the prompt, never sent to the agent: ``/export``,
``/mcp``, ``/logout``, ``/changes``, ``/rewind``, ``/new``, ``/resume``, ``/fork``,
``/close``, and ``!`` shell lines. One list for slash
completion (beside the agent's commands) and one dispatch for a submitted line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from acp_tui.ui.export_command import EXPORT_COMMAND, parse_local_command
from acp_tui.ui.logout_command import LOGOUT_COMMAND, is_logout_command
from acp_tui.ui.mcp_command import MCP_COMMAND, is_mcp_command
from acp_tui.ui.rewind_flow import CHECKPOINT_COMMANDS, parse_checkpoint_command
from acp_tui.ui.shell_flow import shell_command
from acp_tui.ui.tab_commands import TAB_COMMANDS, parse_tab_command

#: Shown in slash completion after the agent's own commands.
LOCAL_COMMANDS: list[dict[str, Any]] = [
    EXPORT_COMMAND,
    MCP_COMMAND,
    LOGOUT_COMMAND,
    *CHECKPOINT_COMMANDS,
    *TAB_COMMANDS,
]


def with_local(commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent's commands, then acp-tui's."""
    return [*commands, *LOCAL_COMMANDS]


@dataclass
class LocalCommands:
    export: Callable[[str], None]
    mcp: Callable[[], None]
    logout: Callable[[], None]
    checkpoints: Callable[[str], None]
    shell: Callable[[str], None]
    new_tab: Callable[[str], None]
    resume_tab: Callable[[str], None]
    fork_tab: Callable[[], None]
    close_tab: Callable[[], None]

    def handle(self, text: str) -> bool:
        """Run ``text`` when it is one of acp-tui's commands (True: it was)."""
        argument = parse_local_command(text)
        if argument is not None:
            self.export(argument)
            return True
        if is_mcp_command(text):
            self.mcp()
            return True
        if is_logout_command(text):
            self.logout()
            return True
        command = parse_checkpoint_command(text)
        if command is not None:
            self.checkpoints(command)
            return True
        tab = parse_tab_command(text)
        if tab is not None:
            if tab[0] == "new":
                self.new_tab(tab[1])
            elif tab[0] == "resume":
                self.resume_tab(tab[1])
            elif tab[0] == "fork":
                self.fork_tab()
            else:
                self.close_tab()
            return True
        line = shell_command(text)
        if line is not None:
            self.shell(line)
            return True
        return False
