"""The user's config file: custom agents, the default agent, a theme, extra roots.

``$ACP_TUI_CONFIG``, else ``$XDG_CONFIG_HOME/acp-tui/config.toml``, else
``~/.config/acp-tui/config.toml``::

    default_agent = "mine"          # a preset or an [agents.NAME]; else "demo"
    theme = "acp-light"
    allow_roots = ["~/src", "../shared"]   # relative to this file's folder
    add_dirs = ["../lib"]           # fence roots told to the agent too (like --add-dir)

    [timeouts]                      # seconds (core/timeouts.py)
    initialize = 60                 # the agent's answer to initialize
    session_new = 60                # ... to session/new
    stuck_input = 10                # an agent not reading its input is reported

    [limits]
    session_text_mib = 64           # text a session keeps; past it, large
                                    # contents are cut (kept whole in files)

    # [notifications], [checkpoints], [mcp_servers.NAME]: see agents/config_*.py

    [agents.mine]
    command = "node"                # no slash: looked up on PATH
    args = ["/opt/mine/agent.js", "--acp"]
    env = { MINE_LOG = "debug" }
    title = "My agent"

    [registry.cline]                # an ACP registry agent acp-tui may run
    run = "npx"                     # through npx (or "uvx"); false: never
    package = "cline"               # the package that was allowed

acp-tui appends ``[registry.ID]`` tables (agents/config_registry.py) itself
when the user answers its question (agents/registry_consent.py); it never
rewrites the file.

:func:`load_config` never raises and never prints: a missing file is the
defaults; anything wrong becomes one line of :attr:`Config.problems` naming
the file, the line and the key, and only that item is ignored (a TOML syntax
error ignores the whole file). The command line prints the problems.
"""

from __future__ import annotations

import difflib
import os
import shutil
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.agents import presets
from acp_tui.agents.config_checkpoints import CHECKPOINT_KEYS, checkpoint_settings
from acp_tui.agents.config_host import HOST_KEYS, HostSettings, host_settings
from acp_tui.agents.config_mcp import MCP_KEYS, McpSettings, mcp_settings
from acp_tui.agents.config_notifications import (
    NOTIFICATION_KEYS,
    NotificationSettings,
    notification_settings,
)
from acp_tui.agents.config_registry import REGISTRY_KEYS, RegistryAnswer, registry_answers
from acp_tui.agents.config_text import decode_error, dotted_key, find_line, value_kind, value_line
from acp_tui.core import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_AGE_DAYS,
    DEFAULT_MAX_SESSIONS,
    CheckpointSettings,
    Timeouts,
    shown_path,
)

if TYPE_CHECKING:
    from acp_tui.core import AgentSpec

CONFIG_ENV = "ACP_TUI_CONFIG"
DEFAULT_AGENT = "demo"
TOP_LEVEL_KEYS = (
    "agents",
    "default_agent",
    "theme",
    "allow_roots",
    "add_dirs",
    "history",
    "timeouts",
    "registry",
    "limits",
    "checkpoints",
    "notifications",
    "mcp_servers",
    "host",
)
AGENT_KEYS = ("command", "args", "env", "title")
HISTORY_KEYS = ("enabled", "max_sessions", "max_age_days")
TIMEOUT_KEYS = ("initialize", "session_new", "stuck_input")
LIMITS_KEYS = ("session_text_mib",)


@dataclass(frozen=True)
class HistorySettings:
    """``[history]``: the local transcripts (core/history_store.py)."""

    enabled: bool = True
    max_sessions: int = DEFAULT_MAX_SESSIONS
    #: None: kept whatever their age.
    max_age_days: float | None = DEFAULT_MAX_AGE_DAYS


def display_path(path: Path | str) -> str:
    """``path`` with the home directory written as ``~``."""
    return shown_path(path)


def config_path(env: Mapping[str, str]) -> Path:
    """Where the config file is (whether or not it exists)."""
    explicit = env.get(CONFIG_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = env.get("XDG_CONFIG_HOME")
    if xdg and Path(xdg).is_absolute():  # the XDG spec: relative values are ignored
        return Path(xdg) / "acp-tui" / "config.toml"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".config" / "acp-tui" / "config.toml"


@dataclass(frozen=True)
class CustomAgent:
    """An ``[agents.NAME]`` table of the config file."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    title: str = ""
    #: The config file it came from, and the line of its table.
    source: Path = Path("config.toml")
    line: int | None = None

    @property
    def origin(self) -> str:
        where = f" line {self.line}" if self.line else ""
        return f"the config file {display_path(self.source)}{where}"

    def executable(self) -> tuple[str | None, str, str]:
        """(the path found or None, what was looked for, where)."""
        if "/" in self.command or (os.altsep is not None and os.altsep in self.command):
            path = Path(self.command).expanduser()
            if not path.is_absolute():
                path = self.source.parent / path
            found = path.is_file() and os.access(path, os.X_OK)
            return (str(path) if found else None), f"`{display_path(path)}`", "(a file)"
        return shutil.which(self.command), f"`{self.command}`", "on PATH"

    def find(self) -> AgentSpec | None:
        from acp_tui.core import AgentSpec

        path, _, _ = self.executable()
        if path is None:
            return None
        return AgentSpec.of(path, self.args, dict(self.env), name=self.title or self.name)

    def not_found(self) -> presets.AgentNotFound:
        _, looked_for, where = self.executable()
        return presets.AgentNotFound(
            self.name,
            looked_for,
            "install it, or fix its `command` in the config file",
            where=where,
            origin=self.origin,
        )


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    agents: dict[str, CustomAgent] = field(default_factory=dict)
    default_agent: str = DEFAULT_AGENT
    theme: str | None = None
    allow_roots: tuple[Path, ...] = ()
    #: Fence roots sent to the agent as ``additionalDirectories`` (core/sessions/added_dirs.py).
    add_dirs: tuple[Path, ...] = ()
    history: HistorySettings = field(default_factory=HistorySettings)
    timeouts: Timeouts = field(default_factory=Timeouts)
    #: ``[registry.ID]``: the user's answers about registry agents (agents/registry_consent.py).
    registry: dict[str, RegistryAnswer] = field(default_factory=dict)
    #: ``[limits] session_text_mib``: characters of text a session keeps.
    text_budget: int = DEFAULT_BUDGET
    #: ``[checkpoints]``: how the folders are recorded around each turn.
    checkpoints: CheckpointSettings = field(default_factory=CheckpointSettings)
    #: ``[notifications]``: bell, desktop notification, window title (ui/attention.py).
    notifications: NotificationSettings = field(default_factory=NotificationSettings)
    #: ``[mcp_servers.NAME]``: the MCP servers every session is given.
    mcp: McpSettings = field(default_factory=McpSettings)
    #: ``[host]``: the background host (detach, idle_timeout).
    host: HostSettings = field(default_factory=HostSettings)
    #: Warnings for the user, one line each; the items they name were ignored.
    problems: list[str] = field(default_factory=list)

    def names(self) -> list[str]:
        """Every agent name: the presets, then the config's own agents."""
        return [*presets.PRESETS, *(n for n in self.agents if n not in presets.PRESETS)]


def resolve(name: str, config: Config) -> AgentSpec:
    """The spec for agent ``name`` (the config's agents win over presets).

    Raises AgentNotFound when its command is missing, KeyError when no agent
    has that name.
    """
    custom = config.agents.get(name)
    if custom is None:
        return presets.resolve(name)
    spec = custom.find()
    if spec is None:
        raise custom.not_found()
    return spec


# -- loading ----------------------------------------------------------------------------------


def load_config(path: Path) -> Config:
    """Read and check the config file at ``path``; never raises."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config(path=path)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return Config(
            path=path, problems=[f"{_prefix(path)}: cannot read it ({reason}); using the defaults"]
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return Config(
            path=path, problems=[f"{_prefix(path, line)}: not UTF-8 text; using the defaults"]
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, reason = decode_error(exc, text)
        return Config(
            path=path,
            problems=[f"{_prefix(path, line)}: invalid TOML ({reason}); using the defaults"],
        )
    return _Loader(path, text).build(data)


def _prefix(path: Path, line: int | None = None) -> str:
    return f"acp-tui: config {display_path(path)}" + (f" line {line}" if line else "")


def _hint(key: str, known: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"


class _Loader:
    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text
        self.problems: list[tuple[int, str]] = []

    def warn(self, key: tuple[str, ...], message: str, value: str | None = None) -> None:
        line = find_line(self.text, key)
        if value is not None and line is not None:
            line = value_line(self.text, line, value)
        self.problems.append((line or 0, f"{_prefix(self.path, line)}: {message}"))

    def build(self, data: dict[str, Any]) -> Config:
        for key in data:
            if key not in TOP_LEVEL_KEYS:
                self.warn((key,), f"unknown key {key!r}{_hint(key, TOP_LEVEL_KEYS)}; ignoring it")
        agents = self._agents(data.get("agents"))
        registry = registry_answers(
            data.get("registry"), self.warn, lambda key: _hint(key, REGISTRY_KEYS), text=self.text
        )
        return Config(
            path=self.path,
            agents=agents,
            default_agent=self._default_agent(data.get("default_agent"), agents),
            theme=self._theme(data.get("theme")),
            allow_roots=tuple(self._roots(data.get("allow_roots"))),
            add_dirs=tuple(self._roots(data.get("add_dirs"), "add_dirs")),
            history=self._history(data.get("history")),
            timeouts=self._timeouts(data.get("timeouts")),
            registry=registry,
            text_budget=self._limits(data.get("limits")),
            checkpoints=checkpoint_settings(
                data.get("checkpoints"), self.warn, lambda key: _hint(key, CHECKPOINT_KEYS)
            ),
            notifications=notification_settings(
                data.get("notifications"), self.warn, lambda key: _hint(key, NOTIFICATION_KEYS)
            ),
            mcp=mcp_settings(
                data.get("mcp_servers"),
                self.warn,
                lambda key: _hint(key, MCP_KEYS),
                agent_names=dict.fromkeys([*presets.PRESETS, *agents, *registry]),
                folder=self.path.parent,
            ),
            host=host_settings(data.get("host"), self.warn, lambda key: _hint(key, HOST_KEYS)),
            problems=[text for _, text in sorted(self.problems, key=lambda p: p[0])],
        )

    def _agents(self, value: Any) -> dict[str, CustomAgent]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.warn(
                ("agents",),
                f"agents must be a table of [agents.NAME] tables (got {value_kind(value)}); "
                "ignoring it",
            )
            return {}
        agents = {}
        for name, table in value.items():
            agent = self._agent(name, table)
            if agent is not None:
                agents[name] = agent
        return agents

    def _agent(self, name: str, table: Any) -> CustomAgent | None:
        key = ("agents", name)
        ignoring = f"ignoring agent {name!r}"
        if not name.strip() or name.startswith("-"):
            self.warn(key, f"an agent name cannot be blank or start with '-'; {ignoring}")
            return None
        if not isinstance(table, dict):
            self.warn(
                key,
                f'{dotted_key(key)} must be a table with command = "..." '
                f"(got {value_kind(table)}); {ignoring}",
            )
            return None
        for extra in table:
            if extra not in AGENT_KEYS:
                where = dotted_key((*key, extra))
                self.warn(
                    (*key, extra), f"unknown key '{where}'{_hint(extra, AGENT_KEYS)}; ignoring it"
                )
        usable = True
        command = table.get("command")
        if command is None:
            self.warn(key, f'{dotted_key(key)} has no command = "..."; {ignoring}')
            usable = False
        elif not isinstance(command, str) or not command.strip():
            got = "an empty string" if isinstance(command, str) else value_kind(command)
            self.warn(
                (*key, "command"),
                f"{dotted_key((*key, 'command'))} must be a non-empty string (got {got}); "
                f"{ignoring}",
            )
            usable = False
        args = table.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            got = value_kind(args) if not isinstance(args, list) else "a list with other things"
            self.warn(
                (*key, "args"),
                f"{dotted_key((*key, 'args'))} must be a list of strings (got {got}); {ignoring}",
            )
            usable = False
        env = table.get("env", {})
        if not isinstance(env, dict):
            self.warn(
                (*key, "env"),
                f"{dotted_key((*key, 'env'))} must be a table of strings (got {value_kind(env)}); "
                f"{ignoring}",
            )
            usable = False
        else:
            for var, text in env.items():
                if not isinstance(text, str):
                    self.warn(
                        (*key, "env", var),
                        f"{dotted_key((*key, 'env', var))} must be a string "
                        f"(got {value_kind(text)}); {ignoring}",
                    )
                    usable = False
        title = table.get("title", "")
        if not isinstance(title, str):
            self.warn(
                (*key, "title"),
                f"{dotted_key((*key, 'title'))} must be a string (got {value_kind(title)}); "
                "ignoring it",
            )
            title = ""
        if not usable:
            return None
        assert isinstance(command, str) and isinstance(env, dict)
        return CustomAgent(
            name,
            command.strip(),
            tuple(args),
            tuple(sorted(env.items())),
            title,
            source=self.path,
            line=find_line(self.text, key),
        )

    def _default_agent(self, value: Any, agents: dict[str, CustomAgent]) -> str:
        if value is None:
            return DEFAULT_AGENT
        if not isinstance(value, str):
            self.warn(
                ("default_agent",),
                f"default_agent must be a string, an agent's name (got {value_kind(value)}); "
                f"using {DEFAULT_AGENT!r}",
            )
            return DEFAULT_AGENT
        if value not in agents and value not in presets.PRESETS:
            names = [*presets.PRESETS, *(n for n in agents if n not in presets.PRESETS)]
            self.warn(
                ("default_agent",),
                f"default_agent {value!r} is not an agent (known: {', '.join(names)}); "
                f"using {DEFAULT_AGENT!r}",
            )
            return DEFAULT_AGENT
        return value

    def _history(self, value: Any) -> HistorySettings:
        defaults = HistorySettings()
        if value is None:
            return defaults
        if not isinstance(value, dict):
            self.warn(
                ("history",), f"history must be a table (got {value_kind(value)}); ignoring it"
            )
            return defaults
        for extra in value:
            if extra not in HISTORY_KEYS:
                self.warn(
                    ("history", extra),
                    f"unknown key 'history.{extra}'{_hint(extra, HISTORY_KEYS)}; ignoring it",
                )
        enabled = value.get("enabled", defaults.enabled)
        if not isinstance(enabled, bool):
            self.warn(("history", "enabled"), "history.enabled must be true or false; ignoring it")
            enabled = defaults.enabled
        count = value.get("max_sessions", defaults.max_sessions)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            self.warn(
                ("history", "max_sessions"),
                "history.max_sessions must be a whole number of at least 1; ignoring it",
            )
            count = defaults.max_sessions
        age: Any = value.get("max_age_days", defaults.max_age_days)
        if age == 0:
            age = None  # 0: no age limit
        elif isinstance(age, bool) or not isinstance(age, int | float) or age < 0:
            self.warn(
                ("history", "max_age_days"),
                "history.max_age_days must be a number of days (0: no limit); ignoring it",
            )
            age = defaults.max_age_days
        return HistorySettings(enabled, count, None if age is None else float(age))

    def _limits(self, value: Any) -> int:
        if value is None:
            return DEFAULT_BUDGET
        if not isinstance(value, dict):
            self.warn(("limits",), f"limits must be a table (got {value_kind(value)}); ignoring it")
            return DEFAULT_BUDGET
        for extra in value:
            if extra not in LIMITS_KEYS:
                self.warn(
                    ("limits", extra),
                    f"unknown key 'limits.{extra}'{_hint(extra, LIMITS_KEYS)}; ignoring it",
                )
        size = value.get("session_text_mib", DEFAULT_BUDGET / 2**20)
        if isinstance(size, bool) or not isinstance(size, int | float) or size < 1:
            self.warn(
                ("limits", "session_text_mib"),
                "limits.session_text_mib must be a number of MiB, at least 1; ignoring it",
            )
            return DEFAULT_BUDGET
        return int(size * 2**20)

    def _timeouts(self, value: Any) -> Timeouts:
        defaults = Timeouts()
        if value is None:
            return defaults
        if not isinstance(value, dict):
            self.warn(
                ("timeouts",), f"timeouts must be a table (got {value_kind(value)}); ignoring it"
            )
            return defaults
        seconds: dict[str, float] = {}
        for key, given in value.items():
            if key not in TIMEOUT_KEYS:
                self.warn(
                    ("timeouts", key),
                    f"unknown key 'timeouts.{key}'{_hint(key, TIMEOUT_KEYS)}; ignoring it",
                )
            elif isinstance(given, bool) or not isinstance(given, int | float) or given <= 0:
                self.warn(
                    ("timeouts", key),
                    f"timeouts.{key} must be a number of seconds above 0; ignoring it",
                )
            else:
                seconds[key] = float(given)
        return Timeouts(**seconds)

    def _theme(self, value: Any) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            got = "an empty string" if isinstance(value, str) else value_kind(value)
            self.warn(("theme",), f"theme must be a theme's name (got {got}); ignoring it")
            return None
        return value.strip()

    def _roots(self, value: Any, name: str = "allow_roots") -> Iterator[Path]:
        if value is None:
            return
        key = (name,)
        if not isinstance(value, list):
            self.warn(
                key, f"{name} must be a list of directories (got {value_kind(value)}); ignoring it"
            )
            return
        for number, item in enumerate(value, 1):
            if not isinstance(item, str) or not item:
                got = "an empty string" if isinstance(item, str) else value_kind(item)
                self.warn(key, f"{name} item {number} must be a path (got {got}); ignoring it")
                continue
            path = Path(item).expanduser()
            if not path.is_absolute():
                path = self.path.parent / path
            if not path.is_dir():
                self.warn(
                    key,
                    f"{name}: {item!r} is not an existing directory; ignoring it",
                    value=item,
                )
                continue
            yield path.resolve()
