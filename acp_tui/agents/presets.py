"""The catalog of agent presets: what command each one runs, found on PATH.

Nothing is downloaded or installed: a preset whose command is missing
resolves to :class:`AgentNotFound`, which says what was looked for and how
to install it (AC-17).

The agent connection (``acp_tui.core.connection``, and through it the SDK's
schema) is imported only when a spec is built: ``acp-tui --list-agents``
needs neither.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec


@dataclass(frozen=True)
class Candidate:
    """One way to run a preset: an executable looked up on PATH, and its args."""

    executable: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    candidates: tuple[Candidate, ...]
    install: str
    #: Built in: runs with this Python, never missing.
    builtin: bool = False
    #: The same agent's id in the ACP agent registry (agents/registry.py), whose
    #: data fills in what the preset does not say (running it through npx).
    registry_id: str | None = None

    def looked_for(self) -> str:
        return " or ".join(f"`{c.executable}`" for c in self.candidates)


class AgentNotFound(Exception):
    """An agent whose command is missing; :meth:`explain` is the whole message (AC-17)."""

    def __init__(
        self,
        preset: str,
        looked_for: str,
        install: str,
        *,
        where: str = "on PATH",
        origin: str | None = None,
        extra: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"agent {preset!r} is not installed")
        self.preset = preset
        self.looked_for = looked_for
        self.install = install
        self.where = where
        #: Where the agent was defined (a config file), for agents not built in.
        self.origin = origin
        #: More hint lines (another way to get the agent), shown after the install hint.
        self.extra = extra

    def explain(self) -> str:
        if self.origin is not None:
            return (
                f"acp-tui: the {self.preset!r} agent (from {self.origin}) was not found.\n"
                f"  looked for: {self.looked_for} {self.where}\n"
                f"  fix it: {self.install}\n"
                f"  (`acp-tui --list-agents` shows every agent)"
            )
        return (
            f"acp-tui: the {self.preset!r} agent is not installed.\n"
            f"  looked for: {self.looked_for} {self.where}\n"
            f"  install it: {self.install}\n"
            + "".join(f"  {line}\n" for line in self.extra)
            + "  (or run any ACP agent with: acp-tui -- COMMAND ARGS...;"
            " `acp-tui --list-agents` shows every agent)"
        )


DEMO_COMMAND = (sys.executable, ("-m", "acp_tui.agents.demo"))

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            "claude",
            "Claude Code (Zed's ACP adapter)",
            (Candidate("claude-agent-acp"), Candidate("claude-code-acp")),
            "npm install -g @zed-industries/claude-agent-acp",
            registry_id="claude-acp",
        ),
        Preset(
            "codex",
            "OpenAI Codex (Zed's ACP adapter)",
            (Candidate("codex-acp"),),
            "npm install -g @zed-industries/codex-acp",
            registry_id="codex-acp",
        ),
        Preset(
            "gemini",
            "Gemini CLI",
            # Checked with @google/gemini-cli 0.61.0: --experimental-acp is deprecated for --acp.
            (Candidate("gemini", ("--acp",)),),
            "npm install -g @google/gemini-cli",
            registry_id="gemini",
        ),
        Preset(
            "qwen",
            "Qwen Code",
            # Checked with @qwen-code/qwen-code 0.15.10: --experimental-acp is deprecated for --acp.
            (Candidate("qwen", ("--acp",)),),
            "npm install -g @qwen-code/qwen-code",
            registry_id="qwen-code",
        ),
        Preset(
            "opencode",
            "opencode",
            (Candidate("opencode", ("acp",)),),
            "npm install -g opencode-ai",
            registry_id="opencode",
        ),
        Preset(
            "goose",
            "goose",
            (Candidate("goose", ("acp",)),),
            "see https://block.github.io/goose/docs/getting-started/installation",
            registry_id="goose",
        ),
        Preset(
            "demo",
            "built-in demo agent (offline)",
            (Candidate(sys.executable, ("-m", "acp_tui.agents.demo")),),
            "built in",
            builtin=True,
        ),
    )
}


def locate(preset: Preset) -> tuple[str, tuple[str, ...]] | None:
    """(the executable found, its args) of the first candidate on PATH, or None."""
    if preset.builtin:
        return DEMO_COMMAND
    for candidate in preset.candidates:
        path = shutil.which(candidate.executable)
        if path is not None:
            return path, candidate.args
    return None


def find(preset: Preset) -> AgentSpec | None:
    """The spec of the first candidate found on PATH, or None."""
    from acp_tui.core import AgentSpec

    found = locate(preset)
    if found is None:
        return None
    return AgentSpec.of(found[0], found[1], name=preset.name)


def resolve(name: str, extra: tuple[str, ...] = ()) -> AgentSpec:
    """The spec for preset ``name``; raises AgentNotFound (with ``extra`` hint
    lines) or KeyError."""
    preset = PRESETS[name]
    spec = find(preset)
    if spec is None:
        raise AgentNotFound(name, preset.looked_for(), preset.install, extra=extra)
    return spec


def resolve_command(command: str, args: list[str]) -> AgentSpec:
    """A spec for ``-- COMMAND ARGS``; raises AgentNotFound when missing."""
    from acp_tui.core import AgentSpec

    path = shutil.which(command)
    if path is None:
        raise AgentNotFound(
            command, f"`{command}`", "check the command name, or give its full path"
        )
    return AgentSpec.of(path, args)
