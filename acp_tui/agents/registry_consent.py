"""Running an ACP registry agent: from PATH when installed, else through npx/uvx
once the user said yes.

``acp-tui cline`` with ``cline`` not installed shows the exact command (npx
downloads and runs the package) and asks on the terminal, before the TUI
starts. The answer is remembered in the config file as a ``[registry.ID]``
table **appended** to it: the file is never rewritten, so the user's comments
and layout survive (an append that would not parse, e.g. because the table
exists already, is not written; the user is told what to add instead)::

    # acp-tui 2026-12-02: `acp-tui cline` may run `npx --yes cline@3.0.4 --acp`
    [registry.cline]
    run = "npx"
    package = "cline"

``run = false`` is a remembered "no". The answer holds for the package's name,
not its version (a refreshed registry may bump the version without asking
again; another package name asks again). Without a terminal to ask on (the
headless host, or stdin not a tty) only a remembered yes runs the agent.
"""

from __future__ import annotations

import datetime as dt
import json
import shlex
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from acp_tui.agents import presets
from acp_tui.agents.config import Config, display_path
from acp_tui.agents.config_registry import RUNNERS, RegistryAnswer
from acp_tui.agents.config_text import dotted_key
from acp_tui.agents.registry import Package, RegistryAgent, current_platform

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec

YES_ALWAYS, YES_ONCE, NO, CANCEL = "always", "once", "no", "cancel"


class RegistryUnavailable(Exception):
    """A registry agent that cannot be run (now); :meth:`explain` is the message."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def explain(self) -> str:
        return self.message.rstrip("\n")


def twin_preset(agent_id: str) -> presets.Preset | None:
    """The preset that is the same agent as registry agent ``agent_id``."""
    return next((p for p in presets.PRESETS.values() if p.registry_id == agent_id), None)


def _visible(text: str) -> str:
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def shell_line(argv: list[str], env: tuple[tuple[str, str], ...] = ()) -> str:
    """``A=1 npx --yes pkg --acp``, quoted as a shell would need it (control
    characters shown as ``\\xNN``: this goes to a terminal and into a comment)."""
    words = [*(f"{k}={shlex.quote(v)}" for k, v in env), *map(shlex.quote, argv)]
    return _visible(" ".join(words))


def runnable_package(agent: RegistryAgent) -> tuple[Package, str] | None:
    """(the package to run, the npx/uvx found on PATH): npx first, then uvx."""
    for package in agent.packages:
        path = shutil.which(package.runner)
        if path is not None:
            return package, path
    return None


def twin_hints(preset: presets.Preset, agent: RegistryAgent | None) -> tuple[str, ...]:
    """What the registry adds to a missing preset's install hint."""
    if agent is None:
        return ()
    hints = []
    if agent.packages:
        package = agent.packages[0]
        line = shell_line(package.command(), package.env)
        if agent.id in presets.PRESETS:
            hints.append(f"or without installing it: acp-tui -- {line}")
        else:
            hints.append(f"or without installing it: acp-tui {agent.id}  (runs {line}, asks first)")
    binary = agent.binary(current_platform())
    if binary is not None:
        hints.append(
            f"or download the registry's build: {binary.archive}"
            f" (then put `{binary.executable_name()}` on PATH)"
        )
    if agent.homepage:
        hints.append(f"see {agent.homepage}")
    return tuple(hints)


def launch(
    agent: RegistryAgent,
    config: Config,
    config_file: Path,
    *,
    ask: Callable[[str], str] | None,
    out: TextIO,
) -> AgentSpec:
    """The spec that runs registry agent ``agent``.

    Installed (on PATH): that program. Otherwise its npx/uvx package, when
    the config says yes, or when ``ask`` (None: no terminal to ask on) gets
    a yes; the answer is appended to ``config_file``. Raises
    :class:`RegistryUnavailable` with the whole explanation otherwise.
    """
    from acp_tui.core import AgentSpec

    twin = twin_preset(agent.id)
    found = presets.locate(twin) if twin is not None else None
    if found is None:
        found = agent.installed()
    if found is not None:
        return AgentSpec.of(found[0], found[1], dict(agent.installed_env()), name=agent.name)
    if not agent.packages:
        raise RegistryUnavailable(_binary_only(agent))
    runnable = runnable_package(agent)
    if runnable is None:
        runners = " or ".join(f"`{p.runner}`" for p in agent.packages)
        raise RegistryUnavailable(
            f"acp-tui: the registry agent {agent.id!r} ({agent.name}) is not installed, and"
            f" running it needs {runners} on PATH.\n"
            + "".join(f"  {hint}\n" for hint in _get_it(agent))
            + _why_not_found(agent)
        )
    package, runner_path = runnable
    name = f"{agent.name} ({package.runner})"
    spec = AgentSpec.of(runner_path, package.command()[1:], dict(package.env), name=name)
    answer = config.registry.get(agent.id)
    if answer is not None and answer.allows(package.runner, package.name):
        return spec
    if answer is not None and answer.run is None:
        raise RegistryUnavailable(
            f"acp-tui: you said no to running {agent.id!r} through {package.runner}"
            f" ({_where(answer, config_file)}: run = false).\n"
            f"  to be asked again, delete that [registry.{agent.id}] table"
        )
    line = shell_line(package.command(), package.env)
    if ask is None:
        raise RegistryUnavailable(
            f"acp-tui: the registry agent {agent.id!r} ({agent.name}) is not installed here;"
            f" running it through {package.runner} needs your yes first.\n"
            f"  it would run: {line}\n"
            f"  allow it: run `acp-tui {agent.id}` in a terminal and answer y, or add to"
            f" {display_path(config_file)}:\n"
            + _indent(_table(agent.id, package, package.runner), "    ")
        )
    choice = _ask(agent, package, line, ask, out)
    if choice == YES_ONCE:
        return spec
    if choice == YES_ALWAYS:
        print(
            f"acp-tui: {_remember(config_file, agent.id, package, package.runner, line, answer)}",
            file=out,
            flush=True,
        )
        return spec
    remembered = ""
    if choice == NO:
        remembered = _remember(config_file, agent.id, package, None, line, answer)
    raise RegistryUnavailable(
        f"acp-tui: not running {agent.id!r}." + (f"\n  {remembered}" if remembered else "")
    )


def _ask(
    agent: RegistryAgent, package: Package, line: str, ask: Callable[[str], str], out: TextIO
) -> str:
    what = f"{agent.name}: {agent.description}" if agent.description else agent.name
    tool = "npm" if package.runner == "npx" else "PyPI"
    print(
        f"acp-tui: {agent.id!r} is in the ACP agent registry ({what}) but is not installed here.\n"
        f"It can run through {package.runner}, which downloads the {tool} package"
        f" {package.package} and runs it:\n\n    {line}\n",
        file=out,
        flush=True,
    )
    question = "Run it? [y] yes, and remember · [o] only this once · [n] no, and remember "
    while True:
        try:
            reply = ask(question).strip().lower()
        except EOFError:
            print(file=out)
            return CANCEL
        if reply in ("y", "yes"):
            return YES_ALWAYS
        if reply in ("o", "once"):
            return YES_ONCE
        if reply in ("n", "no"):
            return NO
        if reply == "":
            return CANCEL
        print("Please answer y, o or n.", file=out, flush=True)


def _table(agent_id: str, package: Package, run: str | None) -> str:
    key = dotted_key(("registry", agent_id))
    value = json.dumps(run) if run is not None else "false"
    return f"[{key}]\nrun = {value}\npackage = {json.dumps(package.name)}\n"


def _remember(
    config_file: Path,
    agent_id: str,
    package: Package,
    run: str | None,
    line: str,
    previous: RegistryAnswer | None,
) -> str:
    """Append the answer to the config file; returns what to tell the user."""
    verb = "may run" if run is not None else "may not run"
    today = dt.date.today().isoformat()
    block = f"# acp-tui {today}: `acp-tui {agent_id}` {verb} `{line}`\n" + _table(
        agent_id, package, run
    )
    try:
        old = config_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = ""
    except (OSError, UnicodeDecodeError) as exc:
        return f"the answer was not remembered: cannot read {display_path(config_file)} ({exc})"
    addition = ("\n" if old and not old.endswith("\n") else "") + ("\n" if old.strip() else "")
    addition += block
    try:
        merged = tomllib.loads(old + addition)["registry"][agent_id]
    except (tomllib.TOMLDecodeError, KeyError, TypeError):
        merged = None
    if previous is not None or merged != {"run": run if run else False, "package": package.name}:
        return (
            f"the answer was not remembered ({display_path(config_file)} cannot take it as an"
            " addition); to remember it, put this in that file:\n"
            + _indent(_table(agent_id, package, run), "    ")
        )
    try:
        config_file.parent.mkdir(parents=True, exist_ok=True)
        with config_file.open("a", encoding="utf-8") as handle:
            handle.write(addition)
    except OSError as exc:
        return f"the answer was not remembered: cannot write {display_path(config_file)} ({exc})"
    return f"remembered in {display_path(config_file)} ([registry.{agent_id}])"


def _indent(text: str, prefix: str) -> str:
    return "".join(f"{prefix}{line}\n" for line in text.splitlines())


def _where(answer: RegistryAnswer, config_file: Path) -> str:
    line = f" line {answer.line}" if answer.line else ""
    return f"{display_path(config_file)}{line}"


def _get_it(agent: RegistryAgent) -> list[str]:
    hints = []
    for package in agent.packages:
        runner = "Node.js (npm)" if package.runner == "npx" else "uv (https://docs.astral.sh/uv/)"
        hints.append(f"with {runner}: {shell_line(package.command(), package.env)}")
    binary = agent.binary(current_platform())
    if binary is not None:
        hints.append(f"or download {binary.archive} and put `{binary.executable_name()}` on PATH")
    if agent.homepage:
        hints.append(f"see {agent.homepage}")
    return hints


def _why_not_found(agent: RegistryAgent) -> str:
    names = []
    binary = agent.binary(current_platform())
    if binary is not None:
        names.append(binary.executable_name())
    names += [n for p in agent.packages if (n := p.executable_name()) is not None]
    looked = " or ".join(f"`{n}`" for n in dict.fromkeys(names))
    return f"  (looked for {looked} on PATH)" if looked else "  (nothing to look for on PATH)"


def _binary_only(agent: RegistryAgent) -> str:
    platform_name = current_platform()
    binary = agent.binary(platform_name)
    head = f"acp-tui: the registry agent {agent.id!r} ({agent.name}) is not installed here"
    if binary is None:
        platforms = ", ".join(b.platform for b in agent.binaries)
        return (
            f"{head}, and the registry has no build for this machine"
            f" ({platform_name or 'unknown platform'}; builds: {platforms}).\n"
            + (f"  see {agent.homepage}\n" if agent.homepage else "")
            + _why_not_found(agent)
        )
    return (
        f"{head}. The registry has it as a download only; acp-tui does not install it.\n"
        f"  get it: {binary.archive}\n"
        f"  then put `{binary.executable_name()}` on PATH"
        f" (it runs as: {shell_line([binary.executable_name(), *binary.args], binary.env)})\n"
        + (f"  see {agent.homepage}\n" if agent.homepage else "")
        + _why_not_found(agent)
    )


__all__ = ["RUNNERS", "RegistryUnavailable", "launch", "runnable_package", "twin_hints"]
