"""Errors the host core raises towards its front ends.

Errors towards the *agent* (answers to its fs/terminal requests) are the
SDK's ``acp.RequestError``; these are the host protocol's string codes.
Messages never contain an absolute path of the host machine.
"""

from __future__ import annotations

from typing import Any, Literal

ErrorCode = Literal[
    "invalid_params",
    "not_found",
    "method_not_found",
    "already_decided",
    "limit_exceeded",
    "agent_exited",
    "agent_error",
    "unsupported",
    "frame_too_large",
    "protocol_error",
    "shutting_down",
    "timeout",
    "turn_running",
    "session_closed",
    "internal",
    # A surface's own: the background host (acp-tui host) cannot be reached.
    "host_unreachable",
]


class HostError(Exception):
    """A command failed; ``code`` is one of acp-host-jsonl-v1's error codes."""

    def __init__(self, code: ErrorCode, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.data = data

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            wire["data"] = self.data
        return wire
