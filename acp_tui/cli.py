"""The ``acp-tui`` command: parses arguments and picks a front end, nothing else.

acp-tui                         the default agent (the config's default_agent, else demo)
acp-tui claude                  a preset (claude, codex, gemini, qwen, opencode, goose, demo)
                                or an [agents.NAME] of the config file (agents/config.py)
acp-tui cline                   an ACP registry agent (agents/registry.py): from PATH, or
                                through npx/uvx once the user said yes (registry_consent.py)
acp-tui -- COMMAND ARGS...      any ACP agent
acp-tui --list-agents [QUERY]   every agent, installed or not, and how to get it
acp-tui --headless --stdio [AGENT | -- COMMAND ARGS...]
                                the host core as NDJSON (acp-host-jsonl-v1)
acp-tui AGENT --detachable      the sessions in the background host (they outlive the terminal)
acp-tui ls | attach [ID] | host [--stop]   the background host (acp_tui/host_cli.py)
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from acp_tui import ACP_HOST_VERSION, __version__

# Everything is imported where it is used: --version imports nothing else (it
# answers in about twice the time of `python -c pass`, bench/startup.py),
# --help and --list-agents no Textual and no SDK (tests/test_start_imports.py),
# and the TUI paints before it loads the SDK.
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

    from acp_tui.agents.config import Config
    from acp_tui.agents.registry import Registry
    from acp_tui.core import AgentSpec, CheckpointSettings, HistoryStore, Timeouts

EXIT_USAGE = 2
#: ``acp-tui host ...``, ``acp-tui ls ...`` (acp_tui/host_cli.py).
HOST_COMMANDS = ("host", "ls", "attach")
#: --resume without an id / --continue (see acp_tui/ui/resume.py).
RESUME_PICK = "pick"
RESUME_LATEST = "latest"


def _parser() -> argparse.ArgumentParser:
    import argparse

    from acp_tui.agents import presets

    parser = argparse.ArgumentParser(
        prog="acp-tui",
        description="A terminal client for ACP coding agents.",
        epilog="Run any ACP agent with: acp-tui [options] -- COMMAND ARGS...  The background"
        " host: acp-tui ls [--json], acp-tui attach [ID], acp-tui host [--stop].",
    )
    parser.add_argument(
        "agent",
        nargs="?",
        metavar="AGENT",
        help=(
            f"an agent preset ({', '.join(presets.PRESETS)}), an [agents.NAME] of the"
            " config file, or an ACP registry agent's id (default: the config's"
            " default_agent, else demo)"
        ),
    )
    parser.add_argument("--headless", action="store_true", help="run the host without the TUI")
    parser.add_argument(
        "--stdio", action="store_true", help="with --headless: speak acp-host-jsonl-v1 on stdio"
    )
    parser.add_argument(
        "--connect",
        action="store_true",
        help="with --headless: speak acp-host-jsonl-v1 on stdio to the background host"
        " (acp-tui host; started when none runs)",
    )
    parser.add_argument(
        "--list-agents",
        nargs="?",
        const="",
        metavar="QUERY",
        help="list every agent (presets, config, the ACP registry) and how to get it;"
        " QUERY keeps those whose id, name or description hold its words",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--cwd", metavar="DIR", help="the session's working directory")
    parser.add_argument(
        "--allow-root",
        metavar="DIR",
        action="append",
        default=[],
        help="an extra directory the agent may read and write, not told to the agent"
        " (repeatable; adds to the config's allow_roots)",
    )
    parser.add_argument(
        "--add-dir",
        metavar="DIR",
        action="append",
        default=[],
        help="a directory the agent may read and write, and told to the agent as one of"
        " the session's additional directories when it supports them (repeatable; adds to"
        " the config's add_dirs)",
    )
    parser.add_argument("--theme", metavar="NAME", help="the TUI theme (overrides the config's)")
    parser.add_argument(
        "--detachable",
        action="store_true",
        help="run the session in the background host (acp-tui host): closing the"
        " terminal detaches, the agent goes on; come back with acp-tui attach",
    )
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "--resume",
        nargs="?",
        const=RESUME_PICK,
        metavar="SESSION",
        help="resume a session of this agent in this directory: pick from a list, or give its id",
    )
    resume.add_argument(
        "--continue",
        dest="resume",
        action="store_const",
        const=RESUME_LATEST,
        help="resume the latest session of this agent in this directory",
    )
    return parser


def _split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1 :]
    return argv, None


def _load_config() -> Config:
    """The user's config file; its problems are printed to stderr, never fatal."""
    from acp_tui.agents.config import config_path, load_config

    config = load_config(config_path(os.environ))
    for problem in config.problems:
        print(problem, file=sys.stderr)
    return config


def _unknown_agent(name: str, config: Config, registry: Registry) -> str:
    import difflib

    from acp_tui.agents import presets
    from acp_tui.agents.config import config_path, display_path

    custom = [n for n in config.agents if n not in presets.PRESETS]
    where = config.path if config.path is not None else config_path(os.environ)
    close = difflib.get_close_matches(name, [*config.names(), *registry.ids()], n=3)
    return (
        f"acp-tui: unknown agent {name!r}"
        + (f" (did you mean {', '.join(close)}?)" if close else "")
        + f"; presets: {', '.join(presets.PRESETS)}"
        + (f"; from the config file: {', '.join(custom)}" if custom else "")
        + f"\n  `acp-tui --list-agents {name}` searches the {len(registry.agents)} agents of"
        " the ACP registry too" + f"\n  (or: acp-tui -- COMMAND ARGS..., or add [agents.{name}] to"
        f" {display_path(where)})"
    )


def _resolve_named(name: str, config: Config, registry: Registry, *, can_ask: bool) -> AgentSpec:
    """``acp-tui NAME``: a config agent, a preset, or a registry agent (in that order)."""
    from acp_tui.agents import presets, registry_consent
    from acp_tui.agents.config import config_path, resolve

    if name in config.names():
        preset = presets.PRESETS.get(name)
        try:
            return resolve(name, config)
        except presets.AgentNotFound as missing:
            if preset is not None and name not in config.agents and preset.registry_id:
                twin = registry.get(preset.registry_id)
                missing.extra = registry_consent.twin_hints(preset, twin)
            raise
    agent = registry.get(name)
    assert agent is not None
    config_file = config.path if config.path is not None else config_path(os.environ)
    return registry_consent.launch(
        agent, config, config_file, ask=_ask_on_terminal if can_ask else None, out=sys.stderr
    )


def _ask_on_terminal(question: str) -> str:
    print(question, end="", file=sys.stderr, flush=True)
    return input()


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return EXIT_USAGE


def _print_version() -> int:
    print(f"acp-tui {__version__} ({ACP_HOST_VERSION})")
    return 0


def main(argv: list[str] | None = None) -> int:
    own, command = _split_command(list(sys.argv[1:] if argv is None else argv))
    if own == ["--version"] and command is None:
        return _print_version()
    if own and own[0] in HOST_COMMANDS and command is None:
        from acp_tui import host_cli

        return host_cli.main(own, _load_config())
    parser = _parser()
    args = parser.parse_args(own)
    if args.version:
        return _print_version()
    if not args.headless and not args.stdio and not args.connect and args.list_agents is None:
        import gc

        # Starting the TUI makes ~50,000 objects that live as long as it
        # does; collecting among them is a tenth of the time to the first
        # frame. The app freezes them and collects again once it has painted.
        gc.disable()
    from pathlib import Path

    config = _load_config()
    # The registry is for naming and listing agents.
    from acp_tui.agents.registry import load_registry
    from acp_tui.agents.registry_consent import RegistryUnavailable

    registry = load_registry()
    if args.list_agents is not None:
        import shutil

        from acp_tui.agents.listing import list_agents

        for problem in registry.problems:
            print(problem, file=sys.stderr)
        words = args.list_agents.split()
        columns = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        listing = list_agents(config, registry, words, columns)
        if not listing:
            print(f"acp-tui: no agent matches {' '.join(words)!r}", file=sys.stderr)
            return 1
        print(listing)
        return 0
    if command is not None and args.agent is not None:
        parser.error("give either an AGENT or -- COMMAND, not both")
    if command is not None and not command:
        parser.error("-- must be followed by a command")
    if args.stdio and not args.headless:
        args.headless = True
    if args.connect:
        if args.agent is not None or command is not None:
            parser.error("--connect takes no agent (connection.open names one)")
        from acp_tui.host_cli import run_connect

        return run_connect()
    if args.headless and not args.stdio:
        parser.error("--headless needs a transport: --stdio or --connect")
    known = {*config.names(), *registry.ids()}
    if args.resume is not None and args.agent is None and args.resume in known:
        # `acp-tui --resume claude`: the agent, not a session id.
        args.agent, args.resume = args.resume, RESUME_PICK
    if args.resume is not None and args.headless:
        parser.error("--resume/--continue are for the TUI (headless: session.list, session.load)")
    cwd = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if not cwd.is_dir():
        return _fail(f"acp-tui: --cwd is not a directory: {args.cwd}")
    for root in args.allow_root:
        if not Path(root).expanduser().is_dir():
            return _fail(f"acp-tui: --allow-root is not a directory: {root}")
    roots = [*config.allow_roots, *(Path(root).expanduser().resolve() for root in args.allow_root)]
    for root in args.add_dir:
        if not Path(root).expanduser().is_dir():
            return _fail(f"acp-tui: --add-dir is not a directory: {root}")
    add_dirs = [*config.add_dirs, *(Path(root).expanduser().resolve() for root in args.add_dir)]

    from acp_tui.agents import presets
    from acp_tui.agents.config import resolve
    from acp_tui.agents.host_setup import history_store
    from acp_tui.core import default_spill_root, prune_spill

    spec: AgentSpec | None
    try:
        if command is not None:
            spec = presets.resolve_command(command[0], command[1:])
        elif args.agent is not None:
            if args.agent not in known:
                return _fail(_unknown_agent(args.agent, config, registry))
            can_ask = not args.headless and sys.stdin.isatty() and sys.stderr.isatty()
            spec = _resolve_named(args.agent, config, registry, can_ask=can_ask)
        else:
            # Headless without an agent: connection.open must name one (the
            # config's default_agent is for people, not for embedding programs).
            spec = None if args.headless else resolve(config.default_agent, config)
    except (presets.AgentNotFound, RegistryUnavailable) as missing:
        return _fail(missing.explain())
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130

    prune_spill(default_spill_root(os.environ))  # (never raises)
    # [mcp_servers.NAME] for this agent (a bare command: those for every agent).
    named = (
        None
        if command is not None
        else args.agent or (None if args.headless else config.default_agent)
    )
    mcp_servers = config.mcp.for_agent(named)
    if args.headless:
        return run_headless(
            spec,
            cwd.resolve(),
            roots,
            history_store(config),
            config.timeouts,
            config.text_budget,
            checkpoints=config.checkpoints,
            add_dirs=add_dirs,
            mcp_servers=mcp_servers,
        )
    assert spec is not None
    if args.detachable or config.host.detaches(named):
        from acp_tui.ui.run import run_remote_tui

        return run_remote_tui(
            spec,
            cwd=cwd.resolve(),
            extra_roots=roots,
            add_dirs=add_dirs,
            theme=args.theme or config.theme,
            resume=args.resume,
            notices=config.problems,
            notifications=config.notifications,
            mcp_servers=mcp_servers,
            resolve_agent=lambda name: resolve(name, config),
        )
    from acp_tui.ui.run import run_tui  # Textual is imported only for the TUI

    return run_tui(
        spec,
        cwd=cwd.resolve(),
        extra_roots=roots,
        add_dirs=add_dirs,
        theme=args.theme or config.theme,
        resume=args.resume,
        history=history_store(config),
        notices=config.problems,
        timeouts=config.timeouts,
        text_budget=config.text_budget,
        checkpoints=config.checkpoints,
        notifications=config.notifications,
        mcp_servers=mcp_servers,
        resolve_agent=lambda name: resolve(name, config),
        detaches=config.host.detaches,
    )


def run_headless(
    spec: AgentSpec | None,
    cwd: Path,
    roots: list[Path],
    history: HistoryStore | None,
    timeouts: Timeouts | None,
    text_budget: int,
    *,
    checkpoints: CheckpointSettings | None = None,
    add_dirs: list[Path] | None = None,
    mcp_servers: list[dict[str, Any]] | None = None,
) -> int:
    # Imported here: --version and --list-agents start without them.
    import asyncio
    import logging

    logging.basicConfig(
        level=os.environ.get("ACP_TUI_LOG_LEVEL", "WARNING").upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    os.chdir(cwd)
    return asyncio.run(
        _serve(
            spec,
            roots,
            history,
            timeouts,
            text_budget,
            checkpoints,
            add_dirs or [],
            mcp_servers or [],
        )
    )


async def _serve(
    spec: AgentSpec | None,
    roots: list[Path],
    history: HistoryStore | None,
    timeouts: Timeouts | None,
    text_budget: int,
    checkpoints: CheckpointSettings | None,
    add_dirs: list[Path],
    mcp_servers: list[dict[str, Any]],
) -> int:
    import asyncio
    import contextlib
    import signal

    from acp_tui.core import READ_AHEAD, Host, logs_dir
    from acp_tui.server.methods import Methods
    from acp_tui.server.server import HeadlessServer
    from acp_tui.server.stdio import open_reader, open_sink

    host = Host(
        extra_roots=roots,
        add_dirs=add_dirs,
        history=history,
        timeouts=timeouts,
        text_budget=text_budget,
        logs=logs_dir(),
        checkpoints=checkpoints,
        mcp_servers=mcp_servers,
    )
    reader = await open_reader(sys.stdin.buffer, READ_AHEAD)
    sink = await open_sink(sys.stdout.buffer)
    server = HeadlessServer(host, Methods(host, spec), reader, sink)
    received: list[int] = []

    def on_signal(signum: int) -> None:
        received.append(signum)
        server.stop()

    loop = asyncio.get_running_loop()
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        sig = getattr(signal, name, None)
        if sig is not None:
            with contextlib.suppress(NotImplementedError):  # Windows event loops
                loop.add_signal_handler(sig, on_signal, int(sig))
    try:
        await server.serve()
    finally:
        host.kill_all_now()
    return 128 + received[0] if received else 0
