"""The TUI's handling of the core's events: one handler per event type.

Each event is first applied to its session's view (conversation.py); the
handler then shows what changed, reading only that view: the log re-renders
the entry, a reply's new text is revealed while the view says a turn runs,
the status line, the plan, the commands, the permission dialog follow. The
agent's questions go to their flow (elicitation_flow.py) from the events
themselves: one may come before any session exists (during session/new).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from acp_tui.core import Event
from acp_tui.ui.conversation import Applied, Conversation
from acp_tui.ui.elicitation_flow import ELICITATION_EVENTS
from acp_tui.ui.local_commands import with_local

if TYPE_CHECKING:
    from acp_tui.ui.elicitation_flow import ElicitationFlow
    from acp_tui.ui.permission_flow import PermissionFlow
    from acp_tui.ui.surface import Surface
    from acp_tui.ui.turns import Turns

Handler = Callable[[Applied], None]


class EventDispatch:
    def __init__(
        self,
        conversation: Conversation,
        surface: Surface,
        turns: Turns,
        permissions: PermissionFlow,
        elicitations: ElicitationFlow | None = None,
    ) -> None:
        self.conversation = conversation
        self.surface = surface
        self.turns = turns
        self.permissions = permissions
        self.elicitations = elicitations
        self.table: dict[str, Handler] = {
            "entry-appended": self._entry_appended,
            "entry-updated": self._entry_updated,
            "entries-removed": self._entries_removed,
            "status-changed": self._status_changed,
            "permission-requested": self._permission_requested,
            "permission-resolved": self._permission_resolved,
            "plan-updated": self._plan_updated,
            "commands-updated": self._commands_updated,
            "mode-changed": self._settings_changed,
            "config-updated": self._settings_changed,
            "title-updated": self._settings_changed,
            "usage-updated": self._settings_changed,
        }

    def handle(self, event: Event) -> None:
        if event.type == "error":
            message = str(event.data.get("message", "error"))
            self.surface.toast(message, severity="error", timeout=8)
            return
        if event.type in ELICITATION_EVENTS:
            self.conversation.apply(event)  # its view's cursor moves past it
            if self.elicitations is not None:
                self.elicitations.on_event(event)
            return
        handler = self.table.get(event.type)
        if handler is None:
            return  # agent-stderr, protocol-frame: not shown here
        applied = self.conversation.apply(event)
        if applied is None:
            return  # no view of its session, or already in it
        if "index" in event.data and applied.position is None:
            return  # an entry the log does not show (a replay of what it shows above)
        handler(applied)

    def _is_current(self, applied: Applied) -> bool:
        return applied.view is self.conversation.current

    # -- entries ------------------------------------------------------------------

    def _entry_appended(self, applied: Applied) -> None:
        log = self.surface.log_view
        log.sync()
        kind = applied.event.data["entry"].get("kind")
        if kind == "user":
            self.turns.user_entry_shown()
        elif kind == "assistant" and applied.view.running and applied.position is not None:
            log.stream(applied.position)

    def _entry_updated(self, applied: Applied) -> None:
        assert applied.position is not None
        log = self.surface.log_view
        if "textDelta" in applied.event.data["patch"]:
            log.stream(applied.position, reveal=applied.view.running)
        else:
            log.entry_changed(applied.position)

    def _entries_removed(self, applied: Applied) -> None:
        self.surface.log_view.reset()

    # -- the session ----------------------------------------------------------------

    def _status_changed(self, applied: Applied) -> None:
        data = applied.event.data
        if self._is_current(applied):
            self.turns.status_changed(str(data.get("status")))
        if data.get("status") == "error" and data.get("message"):
            self.surface.toast(str(data["message"]), severity="error", timeout=8)
        self.surface.refresh_status()
        if self._is_current(applied) and data.get("status") in ("idle", "error"):
            self.turns.send_next()

    def _permission_requested(self, applied: Applied) -> None:
        self.permissions.requested(applied.view, str(applied.event.data["requestId"]))

    def _permission_resolved(self, applied: Applied) -> None:
        self.permissions.resolved(str(applied.event.data["requestId"]))

    def _plan_updated(self, applied: Applied) -> None:
        if self._is_current(applied):
            self.surface.plan_panel.entries = list(applied.view.plan)

    def _commands_updated(self, applied: Applied) -> None:
        if self._is_current(applied):
            self.surface.prompt.set_commands(with_local(applied.view.commands))

    def _settings_changed(self, applied: Applied) -> None:
        self.surface.refresh_status()
