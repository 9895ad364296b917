"""``acp-tui host``, ``acp-tui ls`` and ``acp-tui --headless --connect``: the background host.

acp-tui host [--idle-timeout S]   run the background host here, in the foreground
acp-tui host --stop               end the running host (every agent reaped)
acp-tui ls [--json]               the host's sessions
acp-tui --headless --connect      acp-host-jsonl-v1 on stdio, bridged to the host
                                  (started on demand)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acp_tui.agents.config import Config


NO_HOST = "acp-tui: no host is running (acp-tui AGENT --detachable starts one)"


def main(argv: list[str], config: Config) -> int:
    name, rest = argv[0], argv[1:]
    if name == "host":
        return _host(rest, config)
    if name == "attach":
        return _attach(rest, config)
    return _ls(rest)


def _host(argv: list[str], config: Config) -> int:
    parser = argparse.ArgumentParser(prog="acp-tui host", description=__doc__.splitlines()[0])
    parser.add_argument("--stop", action="store_true", help="end the running host")
    parser.add_argument(
        "--idle-timeout",
        type=float,
        metavar="SECONDS",
        help="end after this long with no session and no surface (default: the config's"
        " [host] idle_timeout, else 600)",
    )
    args = parser.parse_args(argv)
    if args.stop:
        return _stop()
    idle = args.idle_timeout if args.idle_timeout is not None else config.host.idle_timeout
    import asyncio
    import logging

    logging.basicConfig(
        level=os.environ.get("ACP_TUI_LOG_LEVEL", "INFO").upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return asyncio.run(_run_host(config, idle))


async def _run_host(config: Config, idle_timeout: float) -> int:
    import asyncio
    import contextlib
    import signal

    from acp_tui.agents.host_setup import build_host
    from acp_tui.server.background import AlreadyRunning, BackgroundHost

    host = build_host(config)
    background = BackgroundHost(host, idle_timeout=idle_timeout)
    try:
        background.lock()
    except AlreadyRunning as running:
        print(f"acp-tui: {running}", file=sys.stderr)
        return 0
    loop = asyncio.get_running_loop()
    for name in ("SIGTERM", "SIGINT"):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(getattr(signal, name), background.stop)
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGHUP, lambda: None)  # no terminal to lose
    print(f"acp-tui host {os.getpid()} listening at {background.socket_path}", file=sys.stderr)
    try:
        await background.run()
    finally:
        host.kill_all_now()
    return 0


def _request(method: str, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """One request to the running host; None when none runs."""
    import asyncio

    from acp_tui.core import host_socket

    async def ask() -> dict[str, Any] | None:
        try:
            reader, writer = await host_socket.connect()
        except host_socket.HostUnreachable:
            return None
        message = {"version": 1, "id": 1, "method": method, "params": params or {}}
        writer.write(json.dumps(message).encode() + b"\n")
        await writer.drain()
        try:
            while line := await reader.readline():
                frame = json.loads(line)
                if frame.get("id") == 1:
                    if "error" in frame:
                        raise SystemExit(f"acp-tui: {frame['error'].get('message')}")
                    result: dict[str, Any] = frame["result"]
                    return result
                event = frame.get("event") or {}
                if event.get("code") == "forbidden":
                    raise SystemExit(f"acp-tui: {event.get('message')}")
            return None
        finally:
            writer.close()

    return asyncio.run(ask())


def _stop() -> int:
    if _request("host.stop") is None:
        print("acp-tui: no host is running", file=sys.stderr)
        return 1
    print("acp-tui: the host was stopped", file=sys.stderr)
    return 0


def _ls(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="acp-tui ls", description="the background host's sessions"
    )
    parser.add_argument("--json", action="store_true", help="as JSON (one array)")
    args = parser.parse_args(argv)
    answer = _request("host.sessions")
    sessions: list[dict[str, Any]] = answer["sessions"] if answer is not None else []
    if args.json:
        print(json.dumps(sessions, indent=2))
        return 0
    if answer is None:
        print(NO_HOST)
        return 0
    if not sessions:
        print("acp-tui: the host holds no session")
        return 0
    print(format_sessions(sessions, time.time()))
    return 0


def _attach(argv: list[str], config: Config) -> int:
    parser = argparse.ArgumentParser(
        prog="acp-tui attach",
        description="attach to a session of the background host: the most recent,"
        " or the one named (when several wait for you, you pick)",
    )
    parser.add_argument("session", nargs="?", metavar="ID", help="a session id (acp-tui ls)")
    parser.add_argument("--theme", metavar="NAME", help="the TUI theme")
    args = parser.parse_args(argv)
    answer = _request("host.sessions")
    if answer is None:
        print(NO_HOST, file=sys.stderr)
        return 1
    sessions: list[dict[str, Any]] = answer["sessions"]
    if not sessions:
        print("acp-tui: the host holds no session", file=sys.stderr)
        return 1
    chosen = _choose(sessions, args.session)
    if chosen is None:
        return 1
    info = _request("connection.info", {"connectionId": chosen["connectionId"]}) or {}
    from pathlib import Path

    from acp_tui.agents.config import resolve
    from acp_tui.core import AgentSpec
    from acp_tui.ui.run import run_remote_tui

    agent = info.get("agent") or {}
    spec = AgentSpec.of(
        str(agent.get("command") or "agent"),
        list(agent.get("args") or []),
        dict(agent.get("env") or {}),
        name=str(info.get("agentName") or agent.get("name") or ""),
    )
    return run_remote_tui(
        spec,
        cwd=Path(str(chosen.get("cwd") or os.getcwd())),
        extra_roots=list(config.allow_roots),
        add_dirs=list(config.add_dirs),
        theme=args.theme or config.theme,
        attach=str(chosen["sessionId"]),
        notices=config.problems,
        notifications=config.notifications,
        resolve_agent=lambda name: resolve(name, config),
    )


def _choose(sessions: list[dict[str, Any]], wanted: str | None) -> dict[str, Any] | None:
    """The session named (by id or its start), else the most recent one; when
    several wait for the user, they pick from a numbered list."""
    if wanted:
        found = [s for s in sessions if str(s["sessionId"]).startswith(wanted)]
        if len(found) != 1:
            what = "no" if not found else "more than one"
            print(f"acp-tui: {what} session matches {wanted!r} (acp-tui ls)", file=sys.stderr)
            return None
        return found[0]
    waiting = [s for s in sessions if s.get("state") == "needs-you"]
    if len(waiting) < 2 or not sys.stdin.isatty():
        return (waiting or sessions)[0]
    header, *rows = format_sessions(waiting, time.time()).splitlines()
    print("   " + header)
    for number, row in enumerate(rows, 1):
        print(f"{number:<3}{row}")
    while True:
        try:
            text = input(f"Several sessions need you: attach to which (1-{len(waiting)})? [1] ")
        except (EOFError, KeyboardInterrupt):
            print()
            return None
        choice = text.strip() or "1"
        if choice.isdigit() and 1 <= int(choice) <= len(waiting):
            return waiting[int(choice) - 1]


def format_sessions(sessions: list[dict[str, Any]], now: float) -> str:
    from acp_tui.core import one_line, shown_path

    rows = [("ID", "AGENT", "STATE", "ATTACHED", "ACTIVE", "CWD", "TITLE")]
    for s in sessions:
        rows.append(
            (
                str(s["sessionId"]),
                one_line(str(s.get("agent", "")))[:20],
                str(s.get("state", "")),
                str(s.get("surfaces", 0)),
                _ago(now - float(s.get("lastActivity") or now)),
                shown_path(str(s.get("cwd", ""))),
                one_line(str(s.get("title") or ""))[:40],
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + row[-1]
        for row in rows
    )


def _ago(seconds: float) -> str:
    if seconds < 60:
        return f"{int(seconds)}s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    return f"{int(seconds // 3600)}h ago"


def run_connect() -> int:
    """``--headless --connect``: stdin to the host's socket, the socket to stdout."""
    import asyncio

    return asyncio.run(_bridge())


async def _bridge() -> int:
    from acp_tui.core import READ_AHEAD, host_socket
    from acp_tui.server.stdio import open_reader, open_sink

    try:
        reader, writer = await host_socket.connect_or_start()
    except (host_socket.HostUnreachable, OSError) as exc:
        print(f"acp-tui: {exc}", file=sys.stderr)
        return 1
    stdin = await open_reader(sys.stdin.buffer, READ_AHEAD)
    stdout = await open_sink(sys.stdout.buffer)

    async def upstream() -> None:
        while data := await stdin.read(1 << 16):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()  # the host answers what was asked, then closes

    import asyncio

    up = asyncio.ensure_future(upstream())
    try:
        while data := await reader.read(1 << 16):
            await stdout.write(data)
    except (ConnectionError, OSError):
        pass
    finally:
        up.cancel()
        writer.close()
    return 0
