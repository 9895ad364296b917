"""The ``acp-tui`` command: parses arguments and picks a front end, nothing else.

acp-tui                         the built-in demo agent in the TUI
acp-tui claude                  a preset (claude, codex, gemini, qwen, opencode, goose, demo)
acp-tui -- COMMAND ARGS...      any ACP agent
acp-tui --headless --stdio [AGENT | -- COMMAND ARGS...]
                                the host core as NDJSON (acp-host-jsonl-v1)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from pathlib import Path

from acp_tui import ACP_HOST_VERSION, __version__
from acp_tui.agents import presets
from acp_tui.core.connection import AgentSpec

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-tui",
        description="A terminal client for ACP coding agents.",
        epilog="Run any ACP agent with: acp-tui [options] -- COMMAND ARGS...",
    )
    parser.add_argument(
        "agent",
        nargs="?",
        metavar="AGENT",
        help=f"an agent preset: {', '.join(presets.PRESETS)} (default: demo)",
    )
    parser.add_argument("--headless", action="store_true", help="run the host without the TUI")
    parser.add_argument(
        "--stdio", action="store_true", help="with --headless: speak acp-host-jsonl-v1 on stdio"
    )
    parser.add_argument("--list-agents", action="store_true", help="list presets and exit")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--cwd", metavar="DIR", help="the session's working directory")
    parser.add_argument(
        "--allow-root",
        metavar="DIR",
        action="append",
        default=[],
        help="an extra directory the agent may read and write (repeatable)",
    )
    parser.add_argument("--theme", metavar="NAME", help="the TUI theme")
    return parser


def _split_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    if "--" in argv:
        at = argv.index("--")
        return argv[:at], argv[at + 1 :]
    return argv, None


def list_agents() -> str:
    rows = []
    for preset in presets.PRESETS.values():
        spec = presets.find(preset)
        if preset.builtin:
            status, detail = "built in", "python -m acp_tui.agents.demo"
        elif spec is not None:
            status, detail = "found", " ".join([spec.command, *spec.args])
        else:
            status, detail = "missing", f"looked for {preset.looked_for()}; {preset.install}"
        rows.append((preset.name, status, detail))
    width = max(len(name) for name, _, _ in rows)
    lines = [f"{name:<{width}}  {status:<8}  {detail}" for name, status, detail in rows]
    return "\n".join(lines)


def _fail(message: str) -> int:
    print(message, file=sys.stderr)
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    own, command = _split_command(list(sys.argv[1:] if argv is None else argv))
    parser = _parser()
    args = parser.parse_args(own)
    if args.version:
        print(f"acp-tui {__version__} ({ACP_HOST_VERSION})")
        return 0
    if args.list_agents:
        print(list_agents())
        return 0
    if command is not None and args.agent is not None:
        parser.error("give either an AGENT preset or -- COMMAND, not both")
    if command is not None and not command:
        parser.error("-- must be followed by a command")
    if args.stdio and not args.headless:
        args.headless = True
    if args.headless and not args.stdio:
        parser.error("--headless needs a transport: --stdio")
    cwd = Path(args.cwd).expanduser() if args.cwd else Path.cwd()
    if not cwd.is_dir():
        return _fail(f"acp-tui: --cwd is not a directory: {args.cwd}")
    for root in args.allow_root:
        if not Path(root).expanduser().is_dir():
            return _fail(f"acp-tui: --allow-root is not a directory: {root}")
    roots = [Path(root).expanduser().resolve() for root in args.allow_root]

    spec: AgentSpec | None
    try:
        if command is not None:
            spec = presets.resolve_command(command[0], command[1:])
        elif args.agent is not None:
            if args.agent not in presets.PRESETS:
                return _fail(
                    f"acp-tui: unknown agent {args.agent!r}; presets: "
                    f"{', '.join(presets.PRESETS)} (or: acp-tui -- COMMAND ARGS...)"
                )
            spec = presets.resolve(args.agent)
        else:
            spec = None if args.headless else presets.resolve("demo")
    except presets.AgentNotFound as missing:
        return _fail(missing.explain())

    if args.headless:
        return run_headless(spec, cwd.resolve(), roots)
    assert spec is not None
    from acp_tui.ui.app import run_tui  # Textual is imported only for the TUI

    return run_tui(spec, cwd=cwd.resolve(), extra_roots=roots, theme=args.theme)


def run_headless(spec: AgentSpec | None, cwd: Path, roots: list[Path]) -> int:
    logging.basicConfig(
        level=os.environ.get("ACP_TUI_LOG_LEVEL", "WARNING").upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    os.chdir(cwd)
    return asyncio.run(_serve(spec, roots))


async def _serve(spec: AgentSpec | None, roots: list[Path]) -> int:
    from acp_tui.core.framing import READ_AHEAD
    from acp_tui.core.host import Host
    from acp_tui.server.methods import Methods
    from acp_tui.server.server import HeadlessServer
    from acp_tui.server.stdio import open_reader, open_sink

    host = Host(extra_roots=roots)
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
