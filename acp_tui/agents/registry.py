"""The ACP agent registry: which agents exist, and how each one is distributed.

acp-tui ships a snapshot of the public registry (``registry.json`` beside this
module, in the registry's own format, FORMAT.md of agentclientprotocol/registry)
with the date and source it was taken from; ``scripts/refresh_registry.py``
replaces it with the published file. ``$ACP_TUI_REGISTRY`` names another
registry.json to use instead (a newer copy, a private registry).

An agent comes as an ``npx`` package, a ``uvx`` package, and/or a ``binary``
archive per platform. acp-tui never downloads an archive; it runs a package
through npx/uvx only after the user said yes (agents/registry_consent.py).

Loading never raises: a missing or broken file is an empty registry with a
problem to report, and an entry that cannot be used is skipped with one.
Nothing here imports the SDK or Textual (``acp-tui --list-agents`` stays fast).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REGISTRY_ENV = "ACP_TUI_REGISTRY"
#: Where the registry's workflow publishes registry.json (its README, "Usage").
REGISTRY_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
SNAPSHOT = Path(__file__).with_name("registry.json")

#: (system, machine) -> the registry's platform name (FORMAT.md, "Platform Targets").
_PLATFORMS = {
    ("linux", "x86_64"): "linux-x86_64",
    ("linux", "amd64"): "linux-x86_64",
    ("linux", "aarch64"): "linux-aarch64",
    ("linux", "arm64"): "linux-aarch64",
    ("darwin", "x86_64"): "darwin-x86_64",
    ("darwin", "arm64"): "darwin-aarch64",
    ("darwin", "aarch64"): "darwin-aarch64",
    ("windows", "amd64"): "windows-x86_64",
    ("windows", "x86_64"): "windows-x86_64",
    ("windows", "arm64"): "windows-aarch64",
}
_ID = re.compile(r"[a-z][a-z0-9-]*")
#: Environment a registry entry may not set: it steers how processes are found,
#: loaded or authenticated, not the agent.
_RESERVED_ENV = {"PATH", "PATHEXT", "HOME", "NODE_OPTIONS", "PYTHONPATH", "PYTHONHOME", "SHELL"}
_RESERVED_ENV_PREFIXES = ("LD_", "DYLD_", "NPM_CONFIG_", "UV_", "PIP_")
#: A package whose bin name would be this is never looked up on PATH by its name.
_GENERIC_NAMES = {"cli", "acp", "agent", "code", "app", "main", "server"}


def current_platform() -> str | None:
    """This machine's registry platform (``linux-x86_64`` …), or None."""
    import platform  # (here: most starts never look a registry agent up)

    return _PLATFORMS.get((platform.system().lower(), platform.machine().lower()))


def _env_pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, dict):
        return ()
    pairs = []
    for name, text in value.items():
        if not isinstance(name, str) or not isinstance(text, str) or not name:
            continue
        if name.upper() in _RESERVED_ENV or name.upper().startswith(_RESERVED_ENV_PREFIXES):
            continue
        pairs.append((name, text))
    return tuple(sorted(pairs))


def _str_tuple(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return None


def _bare_name(cmd: str) -> str:
    """``./dist-package\\\\cursor-agent.cmd`` -> ``cursor-agent``: the name to look for."""
    name = re.split(r"[\\/]", cmd)[-1]
    for suffix in (".exe", ".cmd", ".bat"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


@dataclass(frozen=True)
class Package:
    """An ``npx`` or ``uvx`` distribution: a package run without installing it."""

    runner: str
    """``npx`` or ``uvx``."""
    package: str
    """The package spec as the registry gives it, version included (``cline@3.0.4``)."""
    cmd: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        """The package's name without its version (what the user allows)."""
        if self.runner == "npx":
            at = self.package.find("@", 1)
            return self.package if at < 0 else self.package[:at]
        return re.split(r"[<>=!~@\[;\s]", self.package, maxsplit=1)[0]

    def command(self) -> list[str]:
        """The command line, as FORMAT.md says ("Distribution Types").

        npx gets ``--yes``: acp-tui asked the user already, and npx's own
        question would go to the agent's stdout (the protocol pipe).
        """
        if self.runner == "npx":
            head = ["npx", "--yes"]
            head += ["--package", self.package, self.cmd] if self.cmd else [self.package]
        else:
            head = ["uvx", "--from", self.package, self.cmd] if self.cmd else ["uvx", self.package]
        return [*head, *self.args]

    def executable_name(self) -> str | None:
        """The name this package's program probably has once installed, or None
        when it is too generic to look for."""
        guess = _bare_name(self.cmd) if self.cmd else self.name.rsplit("/", 1)[-1]
        return None if len(guess) < 4 or guess in _GENERIC_NAMES else guess


@dataclass(frozen=True)
class Binary:
    """A ``binary`` distribution for one platform: an archive to download."""

    platform: str
    archive: str
    cmd: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    def executable_name(self) -> str:
        return _bare_name(self.cmd)


@dataclass(frozen=True)
class RegistryAgent:
    id: str
    name: str
    version: str = ""
    description: str = ""
    website: str = ""
    repository: str = ""
    packages: tuple[Package, ...] = ()
    """npx first, then uvx (the order acp-tui tries them in)."""
    binaries: tuple[Binary, ...] = ()

    @property
    def homepage(self) -> str:
        return self.website or self.repository

    def binary(self, platform_name: str | None) -> Binary | None:
        return next((b for b in self.binaries if b.platform == platform_name), None)

    def package(self, runner: str) -> Package | None:
        return next((p for p in self.packages if p.runner == runner), None)

    def distributions(self) -> str:
        """``npx, binary`` — what the registry offers."""
        kinds = [p.runner for p in self.packages] + (["binary"] if self.binaries else [])
        return ", ".join(kinds)

    def matches(self, words: Iterable[str]) -> bool:
        """Every word (case-insensitive) is in the id, name or description."""
        text = f"{self.id}\n{self.name}\n{self.description}".casefold()
        return all(word.casefold() in text for word in words)

    def installed(self, platform_name: str | None = None) -> tuple[str, tuple[str, ...]] | None:
        """(the program found on PATH, its args) when the agent is installed here.

        Looked for: this platform's binary by its ``cmd`` name, then each
        package's program by its ``cmd`` (else the package's own name).
        """
        binary = self.binary(platform_name if platform_name is not None else current_platform())
        candidates: list[tuple[str | None, tuple[str, ...]]] = []
        if binary is not None:
            candidates.append((binary.executable_name(), binary.args))
        candidates += [(p.executable_name(), p.args) for p in self.packages]
        for name, args in candidates:
            path = shutil.which(name) if name else None
            if path is not None:
                return path, args
        return None

    def installed_env(self, platform_name: str | None = None) -> tuple[tuple[str, str], ...]:
        binary = self.binary(platform_name if platform_name is not None else current_platform())
        if binary is not None and binary.env:
            return binary.env
        return next((p.env for p in self.packages if p.env), ())


@dataclass(frozen=True)
class Registry:
    agents: tuple[RegistryAgent, ...] = ()
    #: When the snapshot was taken, and from where (its ``snapshot`` block).
    date: str = ""
    source: str = ""
    path: Path | None = None
    #: One line each: what was wrong with the file or an entry (which was skipped).
    problems: list[str] = field(default_factory=list)

    def get(self, agent_id: str) -> RegistryAgent | None:
        return next((a for a in self.agents if a.id == agent_id), None)

    def ids(self) -> list[str]:
        return [agent.id for agent in self.agents]

    def search(self, words: Iterable[str]) -> list[RegistryAgent]:
        words = list(words)
        return [agent for agent in self.agents if agent.matches(words)]


# -- loading ------------------------------------------------------------------------------------

_loaded: dict[Path, Registry] = {}


def registry_path(env: Mapping[str, str] | None = None) -> Path:
    explicit = (os.environ if env is None else env).get(REGISTRY_ENV)
    return Path(explicit).expanduser() if explicit else SNAPSHOT


def load_registry(env: Mapping[str, str] | None = None) -> Registry:
    """The registry (the shipped snapshot, or ``$ACP_TUI_REGISTRY``); never raises."""
    path = registry_path(env)
    if path not in _loaded:
        _loaded[path] = parse_registry(path)
    return _loaded[path]


def parse_registry(path: Path) -> Registry:
    where = f"acp-tui: agent registry {path}"
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        return Registry(path=path, problems=[f"{where}: cannot read it ({exc.strerror})"])
    except ValueError as exc:
        return Registry(path=path, problems=[f"{where}: not valid JSON ({exc})"])
    if not isinstance(data, dict) or not isinstance(data.get("agents"), list):
        return Registry(path=path, problems=[f'{where}: no "agents" list'])
    snapshot: dict[str, Any] = data["snapshot"] if isinstance(data.get("snapshot"), dict) else {}
    agents: list[RegistryAgent] = []
    problems: list[str] = []
    for number, raw in enumerate(data["agents"], 1):
        agent, problem = parse_agent(raw)
        if agent is None:
            problems.append(f"{where}: agent {number} skipped: {problem}")
        elif any(a.id == agent.id for a in agents):
            problems.append(f"{where}: agent {agent.id!r} is listed twice; the first one is kept")
        else:
            agents.append(agent)
    return Registry(
        agents=tuple(sorted(agents, key=lambda a: a.id)),
        date=str(snapshot.get("date", "")),
        source=str(snapshot.get("source", "")),
        path=path,
        problems=problems,
    )


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: A package spec: no spaces or control characters, not an option.
_PACKAGE = re.compile(r"[^\s\x00-\x1f\x7f-\x9f-][^\s\x00-\x1f\x7f-\x9f]*")


def _text(raw: dict[str, Any], key: str) -> str:
    """A display string: one line, no control characters (it reaches a terminal)."""
    value = raw.get(key)
    return " ".join(_CONTROL.sub(" ", value).split()) if isinstance(value, str) else ""


def parse_agent(raw: Any) -> tuple[RegistryAgent | None, str]:
    """One ``agents`` entry; (None, why) when it cannot be used."""
    if not isinstance(raw, dict):
        return None, "not an object"
    agent_id = raw.get("id")
    if not isinstance(agent_id, str) or not _ID.fullmatch(agent_id):
        return None, f"its id {agent_id!r} is not lowercase letters, digits and hyphens"
    distribution = raw.get("distribution")
    if not isinstance(distribution, dict):
        return None, f"{agent_id!r} has no distribution"
    packages = []
    for runner in ("npx", "uvx"):
        spec = distribution.get(runner)
        if spec is None:
            continue
        package = _package(runner, spec)
        if package is None:
            return None, f"{agent_id!r} has a malformed {runner} distribution"
        packages.append(package)
    binaries = []
    targets = distribution.get("binary")
    if isinstance(targets, dict):
        for platform_name, target in sorted(targets.items()):
            binary = _binary(platform_name, target)
            if binary is not None:
                binaries.append(binary)
    if not packages and not binaries:
        return None, f"{agent_id!r} has no npx, uvx or binary distribution acp-tui understands"
    return (
        RegistryAgent(
            id=agent_id,
            name=_text(raw, "name") or agent_id,
            version=_text(raw, "version"),
            description=_text(raw, "description"),
            website=_text(raw, "website"),
            repository=_text(raw, "repository"),
            packages=tuple(packages),
            binaries=tuple(binaries),
        ),
        "",
    )


def _package(runner: str, spec: Any) -> Package | None:
    if not isinstance(spec, dict):
        return None
    package, cmd, args = spec.get("package"), spec.get("cmd"), _str_tuple(spec.get("args"))
    if not isinstance(package, str) or not _PACKAGE.fullmatch(package):
        return None
    if cmd is not None and (not isinstance(cmd, str) or not _PACKAGE.fullmatch(cmd)):
        return None
    if args is None:
        return None
    return Package(runner, package, cmd, args, _env_pairs(spec.get("env")))


def _binary(platform_name: Any, target: Any) -> Binary | None:
    if not isinstance(platform_name, str) or not isinstance(target, dict):
        return None
    archive, cmd, args = target.get("archive"), target.get("cmd"), _str_tuple(target.get("args"))
    if not isinstance(archive, str) or not isinstance(cmd, str) or not cmd.strip() or args is None:
        return None
    return Binary(platform_name, archive, cmd, args, _env_pairs(target.get("env")))
