"""The catalog of agent presets: what command each one runs, found on PATH.

Nothing is downloaded or installed: a preset whose command is missing
resolves to :class:`AgentNotFound`, which says what was looked for and how
to install it (AC-17).
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass

from acp_tui.core.connection import AgentSpec


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
    ) -> None:
        super().__init__(f"agent {preset!r} is not installed")
        self.preset = preset
        self.looked_for = looked_for
        self.install = install
        self.where = where
        #: Where the agent was defined (a config file), for agents not built in.
        self.origin = origin

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
            f"  (or run any ACP agent with: acp-tui -- COMMAND ARGS...;"
            f" `acp-tui --list-agents` shows every preset)"
        )


DEMO_SPEC = AgentSpec.of(sys.executable, ["-m", "acp_tui.agents.demo"], name="demo")

PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            "claude",
            "Claude Code (Zed's ACP adapter)",
            (Candidate("claude-agent-acp"), Candidate("claude-code-acp")),
            "npm install -g @zed-industries/claude-agent-acp",
        ),
        Preset(
            "codex",
            "OpenAI Codex (Zed's ACP adapter)",
            (Candidate("codex-acp"),),
            "npm install -g @zed-industries/codex-acp",
        ),
        Preset(
            "gemini",
            "Gemini CLI",
            # Checked with @google/gemini-cli 0.61.0: --experimental-acp is deprecated for --acp.
            (Candidate("gemini", ("--acp",)),),
            "npm install -g @google/gemini-cli",
        ),
        Preset(
            "qwen",
            "Qwen Code",
            # Checked with @qwen-code/qwen-code 0.15.10: --experimental-acp is deprecated for --acp.
            (Candidate("qwen", ("--acp",)),),
            "npm install -g @qwen-code/qwen-code",
        ),
        Preset(
            "opencode",
            "opencode",
            (Candidate("opencode", ("acp",)),),
            "npm install -g opencode-ai",
        ),
        Preset(
            "goose",
            "goose",
            (Candidate("goose", ("acp",)),),
            "see https://block.github.io/goose/docs/getting-started/installation",
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


def find(preset: Preset) -> AgentSpec | None:
    """The spec of the first candidate found on PATH, or None."""
    if preset.builtin:
        return AgentSpec.of(DEMO_SPEC.command, DEMO_SPEC.args, name=preset.name)
    for candidate in preset.candidates:
        path = shutil.which(candidate.executable)
        if path is not None:
            return AgentSpec.of(path, candidate.args, name=preset.name)
    return None


def resolve(name: str) -> AgentSpec:
    """The spec for preset ``name``; raises AgentNotFound or KeyError."""
    preset = PRESETS[name]
    spec = find(preset)
    if spec is None:
        raise AgentNotFound(name, preset.looked_for(), preset.install)
    return spec


def resolve_command(command: str, args: list[str]) -> AgentSpec:
    """A spec for ``-- COMMAND ARGS``; raises AgentNotFound when missing."""
    path = shutil.which(command)
    if path is None:
        raise AgentNotFound(
            command, f"`{command}`", "check the command name, or give its full path"
        )
    return AgentSpec.of(path, args)
