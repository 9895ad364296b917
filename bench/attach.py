"""What the background host's socket costs a surface, beside the same work in-process.

    python bench/attach.py [--entries 10000] [--behind 100] [--chunks 50000]
                           [--rounds 15] [--flood-rounds 5]

One run, two hosts, both built as ``acp-tui host`` builds its core (the
default config, history on, in temporary XDG folders), both on
bench/flood_agent.py:

* socket: ``python -m acp_tui host`` in a subprocess (XDG_RUNTIME_DIR a
  short private temp dir), driven by surfaces on its Unix socket that parse
  every line they read (json.loads);
* in-process: a Host in this process, with the same RetainedEvents listener
  the background host keeps, driven through the same Methods table.

Rounds alternate (socket, in-process, socket, ...) so the machine's noise
hits both, with a gc.collect() before each sample of 1 and 2; figures are
medians. Three ratios, socket / in-process:

1. Snapshot attach to a session of ENTRIES entries: ``session.attach`` with
   no cursor, from the request's write until its answer is parsed, against
   ``host.snapshot(session_id)`` (the bare call), and against that call plus
   the wire's JSON (encode_frame of the answer, then json.loads of the line).
2. Attach BEHIND events behind: ``session.attach`` with ``afterCursor =
   cursor - BEHIND``, until the answer that follows the replayed events is
   parsed, against what the background host does for it in-process:
   RetainedEvents.after, SurfaceChannel.replay, then BEHIND ``get()``s of
   Event objects (and, again, plus each event's JSON there and back).
3. A CHUNKS-chunk flood (``flood CHUNKS``, a fresh session each round) from
   the prompt until the turn's end (``status-changed`` to idle) is read:
   chunks/s through a surface attached on the socket, against a consumer
   of an in-process EventChannel (Event objects, no JSON).

Prints figures only (timing is never a test).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
AGENT = {"command": sys.executable, "args": [str(BENCH / "flood_agent.py")]}
LIMIT = 256 * 1024 * 1024

Frame = dict[str, Any]


def xdg_env(home: Path, runtime: Path | None = None) -> dict[str, str]:
    """A home of its own: no user config read, no user history written."""
    env = {
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "ACP_TUI_CONFIG": str(home / "no-config.toml"),
    }
    if runtime is not None:
        env["XDG_RUNTIME_DIR"] = str(runtime)
    return env


def is_turn_end(frame: Frame, session_id: str) -> bool:
    event = frame.get("event")
    return (
        event is not None
        and event.get("type") == "status-changed"
        and event.get("sessionId") == session_id
        and event.get("status") == "idle"
    )


# -- the socket side ------------------------------------------------------------------


class Surface:
    """One connection to the host's socket; reads only when asked to."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.next_id = 1
        self.resyncs = 0

    @classmethod
    async def open(cls, socket_path: Path) -> Surface:
        reader, writer = await asyncio.open_unix_connection(str(socket_path), limit=LIMIT)
        return cls(reader, writer)

    def send(self, method: str, params: dict[str, Any] | None = None) -> int:
        rpc_id, self.next_id = self.next_id, self.next_id + 1
        frame = {"version": 1, "id": rpc_id, "method": method, "params": params or {}}
        self.writer.write(json.dumps(frame).encode() + b"\n")
        return rpc_id

    async def read_until(self, done: Callable[[Frame], bool]) -> tuple[Frame, int]:
        """Parse lines until one is ``done``: (that frame, events read before it)."""
        events = 0
        while line := await self.reader.readline():
            frame = json.loads(line)
            if done(frame):
                return frame, events
            if "event" in frame:
                events += 1
                event = frame["event"]
                if event.get("type") == "resync":  # it lagged: attach again after it
                    self.resyncs += 1
                    self.send(
                        "session.attach",
                        {"sessionId": event["sessionId"], "afterCursor": event["afterCursor"]},
                    )
        raise RuntimeError("the host closed the socket")

    async def result(self, method: str, params: dict[str, Any] | None = None) -> Frame:
        rpc_id = self.send(method, params)
        frame, _ = await self.read_until(lambda f: f.get("id") == rpc_id)
        if "error" in frame:
            raise RuntimeError(f"{method}: {frame['error']}")
        result: Frame = frame["result"]
        return result

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.wait_closed()


class HostProcess:
    def __init__(self, runtime: Path, home: Path) -> None:
        self.socket = runtime / "acp-tui" / "host.sock"
        home.mkdir(parents=True, exist_ok=True)
        self.log = home / "host.log"
        env = {**os.environ, **xdg_env(home, runtime)}
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "acp_tui", "host", "--idle-timeout", "600"],
                env=env,
                cwd=REPO,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    async def listening(self) -> None:
        deadline = time.monotonic() + 30
        while not self.socket.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the host did not listen: {self.log.read_text()[-2000:]}")
            await asyncio.sleep(0.05)

    async def stop(self, surface: Surface | None) -> None:
        if surface is not None and self.proc.poll() is None:
            with contextlib.suppress(TimeoutError, ConnectionError, OSError):
                surface.send("host.stop")
                await asyncio.wait_for(surface.writer.drain(), 5)
        try:
            await asyncio.to_thread(self.proc.wait, 15)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(self.proc.wait, 15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


async def socket_session(surface: Surface, cwd: Path) -> str:
    opened = await surface.result("connection.open", {"agent": AGENT, "cwd": str(cwd)})
    created = await surface.result(
        "session.create", {"connectionId": opened["connectionId"], "cwd": str(cwd)}
    )
    return str(created["sessionId"])


async def socket_snapshot(surface: Surface, session_id: str) -> tuple[float, int]:
    started = time.perf_counter()
    answer = await surface.result("session.attach", {"sessionId": session_id})
    elapsed = time.perf_counter() - started
    return elapsed, len(answer["snapshot"]["entries"])


async def socket_behind(surface: Surface, session_id: str, after: int) -> tuple[float, int]:
    started = time.perf_counter()
    rpc_id = surface.send("session.attach", {"sessionId": session_id, "afterCursor": after})
    frame, events = await surface.read_until(lambda f: f.get("id") == rpc_id)
    elapsed = time.perf_counter() - started
    if frame["result"].get("replayed") != events:
        raise RuntimeError(f"replayed {frame['result']} but {events} events were read")
    return elapsed, events


async def socket_flood(surface: Surface, cwd: Path, chunks: int) -> tuple[float, int]:
    session_id = await socket_session(surface, cwd)  # followed from its first event
    started = time.perf_counter()
    rpc_id = surface.send("session.prompt", {"sessionId": session_id, "text": f"flood {chunks}"})
    _, events = await surface.read_until(lambda f: is_turn_end(f, session_id))
    elapsed = time.perf_counter() - started
    await surface.read_until(lambda f: f.get("id") == rpc_id)
    await surface.result("session.detach", {"sessionId": session_id})
    return chunks / elapsed, events


# -- the in-process side ----------------------------------------------------------------


class InProcess:
    """A host core in this process, set up as ``acp-tui host`` sets up its own."""

    def __init__(self) -> None:
        from acp_tui.agents.config import load_config
        from acp_tui.agents.host_setup import build_host
        from acp_tui.core import RetainedEvents
        from acp_tui.server.methods import Methods

        self.host = build_host(load_config(Path(os.environ["ACP_TUI_CONFIG"])))
        self.methods = Methods(self.host)
        self.retained = RetainedEvents()
        self.host.hub.subscribe(self.retained.on_event)

    async def call(self, method: str, params: dict[str, Any]) -> Frame:
        return await self.methods.table[method](params)

    async def session(self, cwd: Path) -> str:
        opened = await self.call("connection.open", {"agent": AGENT, "cwd": str(cwd)})
        created = await self.call(
            "session.create", {"connectionId": opened["connectionId"], "cwd": str(cwd)}
        )
        return str(created["sessionId"])

    async def fill(self, session_id: str, entries: int) -> None:
        await self.call("session.prompt", {"sessionId": session_id, "text": f"entries {entries}"})

    def snapshot(self, session_id: str, wire: bool) -> tuple[float, int]:
        from acp_tui.core import encode_frame

        started = time.perf_counter()
        snapshot = self.host.snapshot(session_id)
        if wire:
            cursor = self.host.session(session_id).cursor
            line = encode_frame({"version": 1, "id": 1, "result": {"cursor": cursor, **snapshot}})
            snapshot = json.loads(line)["result"]
        elapsed = time.perf_counter() - started
        return elapsed, len(snapshot["entries"])

    async def behind(self, session_id: str, after: int, wire: bool) -> tuple[float, int]:
        from acp_tui.core import SurfaceChannel, encode_frame

        channel = SurfaceChannel()
        started = time.perf_counter()
        events = self.retained.after(session_id, after)
        assert events is not None, "the retained log does not reach back that far"
        channel.replay(events)
        channel.follow(session_id, self.host.session(session_id).cursor)
        for _ in events:
            event = await channel.get()
            if wire:
                json.loads(encode_frame({"version": 1, "event": event.to_wire()}))
        elapsed = time.perf_counter() - started
        return elapsed, len(events)

    async def flood(self, cwd: Path, chunks: int) -> tuple[float, int]:
        session_id = await self.session(cwd)
        channel = self.host.attach()

        async def consume() -> int:
            events = 0
            while True:
                event = await channel.get()
                if (
                    event.type == "status-changed"
                    and event.session_id == session_id
                    and event.data.get("status") == "idle"
                ):
                    return events
                events += 1

        started = time.perf_counter()
        consumer = asyncio.ensure_future(consume())
        prompt = asyncio.ensure_future(
            self.call("session.prompt", {"sessionId": session_id, "text": f"flood {chunks}"})
        )
        events = await consumer
        elapsed = time.perf_counter() - started
        await prompt
        self.host.detach(channel)
        return chunks / elapsed, events

    async def close(self) -> None:
        await self.host.shutdown()
        self.host.kill_all_now()


# -- the run ------------------------------------------------------------------------------


def med(values: list[float]) -> float:
    return statistics.median(values)


async def run(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="acpb-", dir="/tmp"))  # short: a socket path < 108 bytes
    os.chmod(root, 0o700)
    runtime, cwd = root / "run", root / "cwd"
    runtime.mkdir(mode=0o700)
    cwd.mkdir()
    os.environ.update(xdg_env(root / "inproc"))  # the in-process host's home
    started = time.perf_counter()
    control: Surface | None = None
    local: InProcess | None = None
    background = HostProcess(runtime, root / "socket")
    try:
        await background.listening()
        control = await Surface.open(background.socket)
        local = InProcess()

        # A session of ENTRIES entries on each side (``entries N``: 2N entries).
        big = await socket_session(control, cwd)
        await control.result(
            "session.prompt", {"sessionId": big, "text": f"entries {args.entries // 2}"}
        )
        await control.result("session.detach", {"sessionId": big})
        local_big = await local.session(cwd)
        await local.fill(local_big, args.entries // 2)
        attacher = await Surface.open(background.socket)

        # 1. Snapshot attach.
        sock, bare, wire = [], [], []
        for _ in range(args.rounds):
            gc.collect()  # before each sample, on both sides: no collection left owing
            elapsed, entries = await socket_snapshot(attacher, big)
            sock.append(elapsed)
            gc.collect()
            bare.append(local.snapshot(local_big, wire=False)[0])
            gc.collect()
            elapsed, local_entries = local.snapshot(local_big, wire=True)
            wire.append(elapsed)
        if entries != local_entries:
            raise RuntimeError(f"{entries} entries on the socket, {local_entries} in-process")
        print(f"1. snapshot attach, a session of {entries:,} entries ({args.rounds} rounds)")
        print(f"   socket session.attach          {med(sock) * 1000:8.2f} ms")
        print(f"   in-process host.snapshot       {med(bare) * 1000:8.2f} ms")
        print(f"   in-process snapshot + JSON     {med(wire) * 1000:8.2f} ms")
        print(f"   socket / in-process            {med(sock) / med(bare):8.2f}")
        print(f"   socket / in-process + JSON     {med(sock) / med(wire):8.2f}")

        # 2. Attach BEHIND events behind.
        listed = (await control.result("host.sessions"))["sessions"]
        cursor = next(s["cursor"] for s in listed if s["sessionId"] == big)
        local_cursor = local.host.session(local_big).cursor
        rounds = args.rounds * 4
        sock, bare, wire = [], [], []
        for _ in range(rounds):
            gc.collect()
            elapsed, replayed = await socket_behind(attacher, big, cursor - args.behind)
            sock.append(elapsed)
            gc.collect()
            bare.append((await local.behind(local_big, local_cursor - args.behind, False))[0])
            gc.collect()
            elapsed, local_replayed = await local.behind(
                local_big, local_cursor - args.behind, True
            )
            wire.append(elapsed)
        print(
            f"\n2. attach {replayed} events behind ({local_replayed} in-process, {rounds} rounds)"
        )
        print(f"   socket session.attach          {med(sock) * 1000:8.3f} ms")
        print(f"   in-process replay + get()      {med(bare) * 1000:8.3f} ms")
        print(f"   in-process ... + JSON          {med(wire) * 1000:8.3f} ms")
        print(f"   socket / in-process            {med(sock) / med(bare):8.2f}")
        print(f"   socket / in-process + JSON     {med(sock) / med(wire):8.2f}")
        await attacher.close()

        # 3. A flood through an attached surface.
        flooder = await Surface.open(background.socket)
        sock, bare = [], []
        sock_events, local_events = [], []
        for _ in range(args.flood_rounds):
            rate, events = await socket_flood(flooder, cwd, args.chunks)
            sock.append(rate)
            sock_events.append(events)
            rate, events = await local.flood(cwd, args.chunks)
            bare.append(rate)
            local_events.append(events)
        print(f"\n3. a {args.chunks:,}-chunk flood ({args.flood_rounds} rounds, a session each)")
        print(
            f"   socket, a surface attached     {med(sock):10,.0f} chunks/s"
            f"  ({med(sock_events):,.0f} events read, {flooder.resyncs} resyncs)"
        )
        print(
            f"   in-process EventChannel        {med(bare):10,.0f} chunks/s"
            f"  ({med(local_events):,.0f} events read)"
        )
        print(f"   socket / in-process            {med(sock) / med(bare):10.2f}")
        await flooder.close()
    finally:
        if local is not None:
            await local.close()
        await background.stop(control)
        if control is not None:
            await control.close()
        shutil.rmtree(root, ignore_errors=True)
    print(
        f"\n(the run took {time.perf_counter() - started:.0f} s; the host exited with "
        f"{background.proc.returncode})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--behind", type=int, default=100)
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--flood-rounds", type=int, default=5)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
