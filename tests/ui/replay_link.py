"""A recorded run as the TUI's host: a snapshot and the events after it, nothing else.

:class:`RecordingHost` is the real link to a real host (it records what the
app was told: the agent, its session, the event stream as JSON lines);
:class:`ReplayLink` plays such a recording back to a new app with no host
and no agent behind it. Commands are refused: a replay only shows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from acp_tui.core.errors import HostError
from acp_tui.core.host import Host
from acp_tui.core.model.channel import EventChannel
from acp_tui.core.model.events import event_from_wire
from acp_tui.ui.host_link import AgentInfo, Revival, StoredTranscript
from acp_tui.ui.local_host import LocalHost
from tests.conftest import Recorder


class RecordingHost(LocalHost):
    """A :class:`LocalHost` that keeps the agent it opened and every event."""

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        self.agent: AgentInfo | None = None
        self.recorder = Recorder(host.attach())

    async def open(self, spec: Any, cwd: Path) -> AgentInfo:
        self.agent = await super().open(spec, cwd)
        return self.agent

    def lines(self) -> list[str]:
        """The events so far, one JSON line each (their wire form)."""
        return [json.dumps(event.to_wire()) for event in self.recorder.events]


class ReplayLink:
    """A :class:`~acp_tui.ui.host_link.HostLink` that is a recording."""

    detachable = False

    def __init__(self, agent: AgentInfo, snapshot: dict[str, Any], lines: list[str]) -> None:
        self.agent = agent
        self._snapshot = snapshot
        self.events = [event_from_wire(json.loads(line)) for line in lines]
        self._channel = EventChannel()
        #: The cursor of the last event of the recorded session.
        self.last_cursor = max(
            (e.cursor for e in self.events if e.session_id == snapshot["sessionId"]), default=0
        )

    @property
    def history_root(self) -> Path | None:
        return None

    def attach(self, capacity: int, text_budget: int) -> EventChannel:
        # The whole recording is queued at once: the bounds a live host keeps
        # would only make the replay wait on itself.
        self._channel = EventChannel(capacity=2 * len(self.events) + 16)
        return self._channel

    def detach(self, channel: EventChannel) -> None:
        channel.close()

    async def open(self, spec: Any, cwd: Path) -> AgentInfo:
        return self.agent

    def stderr_tail(self, connection_id: str) -> str:
        return ""

    async def authenticate(self, connection_id: str, method_id: str) -> None:
        raise _refused()

    async def create_session(self, connection_id: str, cwd: Path) -> str:
        return str(self._snapshot["sessionId"])

    async def list_sessions(self, connection_id: str, cwd: Path) -> list[dict[str, Any]]:
        return []

    async def load_session(self, connection_id: str, session_id: str, cwd: Path) -> str:
        raise _refused()

    async def revive(self, connection_id: str, dead_session_id: str) -> tuple[str, Revival] | None:
        raise _refused()

    async def restore_settings(self, session_id: str, settings: Mapping[str, Any]) -> None:
        raise _refused()

    def snapshot(self, session_id: str) -> dict[str, Any]:
        """The recorded snapshot; the recorded events follow it on the channel
        (all of them: those the snapshot holds already are for the app to skip)."""
        for event in self.events:
            self._channel.offer(event)
        return json.loads(json.dumps(self._snapshot))

    def transcript(self, key: str) -> StoredTranscript:
        raise KeyError(key)

    def add_notice(self, session_id: str, level: Any, text: str) -> None:
        raise _refused()

    def build_prompt(
        self,
        session_id: str,
        text: str,
        images: Mapping[str, Path],
    ) -> tuple[list[dict[str, Any]], list[str]]:
        raise _refused()

    async def prompt(self, session_id: str, blocks: list[dict[str, Any]]) -> str:
        raise _refused()

    async def cancel(self, session_id: str) -> None:
        raise _refused()

    async def set_mode(self, session_id: str, mode_id: str) -> None:
        raise _refused()

    async def set_config_option(
        self, session_id: str, config_id: str, value: Any
    ) -> list[dict[str, Any]]:
        raise _refused()

    def decide(
        self, request_id: str, option_id: str | None = None, *, cancelled: bool = False
    ) -> None:
        raise HostError("already_decided", "a replay decides nothing")

    def respond_elicitation(self, request_id: str, action: str, content: Any = None) -> None:
        raise HostError("already_decided", "a replay answers nothing")

    def outside_paths(self, session_id: str, entry: Any) -> list[str]:
        return []

    async def shutdown(self) -> None:
        return None

    def kill_all_now(self) -> None:
        return None

    def agents_gone(self) -> bool:
        return True


def _refused() -> HostError:
    return HostError("unsupported", "a replay only shows")
