"""``!`` on the prompt: the rest of the line runs in the user's shell, in
the session's folder (core/sessions/user_shell.py), with no agent turn. Esc
or Ctrl+C stops it; ``d`` on its entry in the log keeps its output from the
agent (which otherwise gets it with the next prompt)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.core import Entry, HostError, ToolCallEntry

if TYPE_CHECKING:
    from acp_tui.ui.conversation import Conversation
    from acp_tui.ui.host_link import HostLink
    from acp_tui.ui.surface import Surface

__all__ = ["ShellFlow", "shell_command"]

ID_PREFIX = "acp-tui-shell-"


def shell_command(text: str) -> str | None:
    """The command of a ``!`` line (None: not one)."""
    stripped = text.strip()
    return stripped[1:].strip() if stripped.startswith("!") else None


class ShellFlow:
    def __init__(self, surface: Surface, link: HostLink, conversation: Conversation) -> None:
        self.surface = surface
        self.link = link
        self.conversation = conversation
        #: ``!`` commands started here and not ended yet.
        self.running = 0

    def run(self, command: str) -> None:
        if not command:
            self.surface.toast("Type a command after ! (it runs in your shell)", timeout=4)
            return
        view = self.conversation.current
        if view is None:
            self.surface.toast("No session yet: the command needs its folder", timeout=4)
            return
        self.surface.in_background(self._run(view.session_id, command), "shell")

    async def _run(self, session_id: str, command: str) -> None:
        self.running += 1
        try:
            await self.link.run_shell(session_id, command)
        except HostError as exc:
            self.surface.toast(f"!: {exc.message}", severity="error", timeout=6)
        finally:
            self.running -= 1

    async def stop(self) -> bool:
        """Stop the running ``!`` commands (whether one ran)."""
        view = self.conversation.current
        if not self.running or view is None:
            return False
        self.surface.toast("Stopping the command…", timeout=2)
        return await self.link.stop_shell(view.session_id)

    def drop(self, entry: Entry) -> None:
        """``d`` on an entry: a ``!`` command's output kept from the agent."""
        view = self.conversation.current
        if view is None or not isinstance(entry, ToolCallEntry):
            return
        if not entry.tool_call_id.startswith(ID_PREFIX):
            return
        if self.link.drop_shell_context(view.session_id, entry.tool_call_id):
            self.surface.toast("The agent will not see that command's output", timeout=3)
        else:
            self.surface.toast("Already given to the agent (or still running)", timeout=3)
