"""``acp-tui --list-agents [QUERY]``: every agent, whether it is installed here,
and how to get it.

Two sections: the presets and the config file's agents, then the ACP registry
agents (agents/registry.py). A row starts with two spaces and the agent's name
(what ``acp-tui NAME`` takes), its status, and what runs or is missing;
indented lines under it say how to get it. QUERY keeps the agents whose id,
name or description (a preset's title and install hint) hold every word of it,
case-insensitively.

It imports neither the SDK nor Textual, and only looks things up on PATH.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

from acp_tui.agents import presets
from acp_tui.agents.config import Config
from acp_tui.agents.registry import Registry, RegistryAgent, current_platform
from acp_tui.agents.registry_consent import shell_line, twin_hints, twin_preset

#: The status column's width ("built in", "declined" …).
_STATUS = 8


@dataclass
class _Row:
    name: str
    status: str
    detail: str
    more: list[str] = field(default_factory=list)


def _matches(words: Sequence[str], *texts: str) -> bool:
    haystack = "\n".join(texts).casefold()
    return all(word.casefold() in haystack for word in words)


def _local_rows(config: Config, registry: Registry, words: Sequence[str]) -> list[_Row]:
    rows = []
    for name in config.names():
        custom = config.agents.get(name)
        preset = presets.PRESETS.get(name)
        twin = registry.get(preset.registry_id) if preset and preset.registry_id else None
        notes = []
        more: list[str] = []
        if custom is not None:
            if not _matches(words, name, custom.title, custom.command, " ".join(custom.args)):
                continue
            path, looked_for, where = custom.executable()
            if path is not None:
                status, detail = "found", " ".join([path, *custom.args])
            else:
                status, detail = "missing", f"looked for {looked_for} {where}"
            notes.append("from config")
            if preset is not None:
                notes.append("overrides the preset")
            if custom.title:
                notes.append(repr(custom.title))
        else:
            assert preset is not None
            texts = [name, preset.title, preset.install]
            if twin is not None:
                texts += [twin.id, twin.name, twin.description]
            if not _matches(words, *texts):
                continue
            found = presets.locate(preset)
            if preset.builtin:
                status, detail = "built in", "python -m acp_tui.agents.demo"
            elif found is not None:
                status, detail = "found", " ".join([found[0], *found[1]])
            else:
                status, detail = "missing", f"looked for {preset.looked_for()}; {preset.install}"
                more = list(twin_hints(preset, twin))
            if twin is not None:
                notes.append(f"registry: {twin.id}")
        if name == config.default_agent:
            notes.insert(0, "default")
        rows.append(_Row(name, status, detail + (f"  ({', '.join(notes)})" if notes else ""), more))
    return rows


def _registry_row(agent: RegistryAgent, config: Config) -> _Row:
    title = f"{agent.name}: {agent.description}" if agent.description else agent.name
    twin = twin_preset(agent.id)
    if twin is not None:
        title += f"  (also the preset `{twin.name}`)"
    site = f" · {agent.homepage}" if agent.homepage else ""
    found = presets.locate(twin) if twin is not None else None
    found = found or agent.installed()
    if found is not None:
        return _Row(agent.id, "found", title, [f"runs: {' '.join([found[0], *found[1]])}{site}"])
    answer = config.registry.get(agent.id)
    for package in agent.packages:
        if shutil.which(package.runner) is None:
            continue
        line = shell_line(package.command(), package.env)
        if answer is not None and answer.run is None:
            where = f"config line {answer.line}" if answer.line else "config"
            return _Row(agent.id, "declined", title, [f"you said no ({where}): {line}{site}"])
        if twin is not None and twin.name == agent.id:
            # `acp-tui gemini` is the preset; this build runs as an explicit command.
            how = f"runs with: acp-tui -- {line}  (`acp-tui {agent.id}` is the preset)"
            return _Row(agent.id, package.runner, title, [how + site])
        if answer is not None and answer.allows(package.runner, package.name):
            return _Row(agent.id, "allowed", title, [f"runs: {line}  (allowed in config){site}"])
        return _Row(agent.id, package.runner, title, [f"runs: {line}  (asks first){site}"])
    binary = agent.binary(current_platform())
    more = []
    for package in agent.packages:
        needs = "npx (Node.js)" if package.runner == "npx" else "uvx (uv)"
        more.append(f"needs {needs}: {shell_line(package.command(), package.env)}")
    if binary is not None:
        more.append(f"get it: {binary.archive} (then `{binary.executable_name()}` on PATH)")
    elif not agent.packages:
        builds = ", ".join(b.platform for b in agent.binaries)
        more.append(f"no build for {current_platform() or 'this platform'} (builds: {builds})")
    if more:
        more[-1] += site
    return _Row(agent.id, "missing", title, more)


def _format(rows: list[_Row], columns: int | None) -> list[str]:
    """The rows; wrapped under their detail column to ``columns`` (a terminal's
    width) when given, else one line each (for grep and scripts)."""
    width = max(len(row.name) for row in rows)
    indent = " " * (2 + width + 2 + _STATUS + 2)

    def wrap(first: str, text: str) -> list[str]:
        if columns is None or len(first) + len(text) <= columns:
            return [first + text]
        return textwrap.wrap(
            text,
            width=max(columns, len(indent) + 20),
            initial_indent=first,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )

    lines = []
    for row in rows:
        lines += wrap(f"  {row.name:<{width}}  {row.status:<{_STATUS}}  ", row.detail)
        for line in row.more:
            lines += wrap(indent, line)
    return lines


def list_agents(
    config: Config | None = None,
    registry: Registry | None = None,
    query: Sequence[str] = (),
    columns: int | None = None,
) -> str:
    """The whole listing; empty when nothing matches ``query`` (a list of words).
    ``columns``: wrap to that width (the terminal's), else one line per line."""
    config = config or Config()
    registry = registry or Registry()
    words = [word for word in query if word]
    local = _local_rows(config, registry, words)
    remote = [_registry_row(a, config) for a in registry.agents if a.matches(words)]
    matching = f", matching {' '.join(words)!r}" if words else ""
    sections = []
    if local:
        heading = f"Presets and config agents{matching} (acp-tui NAME):"
        sections.append([heading, *_format(local, columns)])
    if remote:
        when = f"snapshot of {registry.date}, " if registry.date else ""
        total = len(registry.agents)
        count = f"{len(remote)} of {total} agents" if words else f"{total} agents"
        sections.append(
            [
                f"ACP agent registry ({when}{count}{matching}; acp-tui ID runs one):",
                *_format(remote, columns),
            ]
        )
    if columns is not None:
        for section in sections:
            section[:1] = textwrap.wrap(section[0], width=max(columns, 40), break_long_words=False)
    return "\n\n".join("\n".join(section) for section in sections)
