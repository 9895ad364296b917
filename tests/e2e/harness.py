"""The offline world the real Claude adapters run in: a loopback-only network
namespace holding the mock Anthropic API, and the agent command that joins it.

The host under test (pytest, or an ``acp-tui --headless`` child of it) stays
in the normal namespace: it talks to the agent over stdio pipes only. The
agent is started as

    nsenter --net=/proc/<mock pid>/ns/net -- env -i HOME=… PATH=… ANTHROPIC_BASE_URL=… node <entry>

so it, and every process it starts, sees only the namespace's loopback
interface, where the mock listens. ``env -i`` drops everything inherited
(``IS_SANDBOX``, proxies, stray ``ANTHROPIC_*`` / ``CLAUDE_*``).
Without root, ``unshare -rn`` (a user namespace too) and
``nsenter --user --net --preserve-credentials`` do the same.
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.provision import Adapter

HERE = Path(__file__).parent
MOCK = HERE / "mock_anthropic.py"
#: Every wait in these tests gives up after this long (a hang fails, not blocks).
WAIT = 30.0
ROOTLESS = hasattr(os, "geteuid") and os.geteuid() != 0


def missing_requirements() -> str | None:
    """Why the e2e tests cannot run here, or None."""
    if not sys.platform.startswith("linux"):
        return "needs Linux network namespaces"
    for tool in ("node", "npm", "unshare", "nsenter"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if ROOTLESS:
        probe = subprocess.run(
            ["unshare", "-rn", "true"], capture_output=True, text=True, check=False
        )
        if probe.returncode != 0:
            return (
                "not root and user namespaces are unavailable "
                f"(unshare -rn: {probe.stderr.strip()})"
            )
    return None


@dataclass(frozen=True)
class InstalledAdapter:
    adapter: Adapter
    version: str

    @property
    def minor(self) -> str:
        return self.adapter.minor

    @property
    def routes_tools_through_client(self) -> bool:
        """0.16 sends writes/reads to fs/* and Bash to terminal/*; 0.23 does its own I/O."""
        return self.minor == "0.16"


class MockApi:
    """The mock Anthropic API, alone in a fresh loopback-only network namespace."""

    def __init__(self, proc: subprocess.Popen[bytes], folder: Path, port: int) -> None:
        self.proc = proc
        self.folder = folder
        self.port = port
        self.log = folder / "requests.jsonl"

    @classmethod
    def start(cls, folder: Path) -> MockApi:
        port_file = folder / "port"
        log = folder / "requests.jsonl"
        log.touch()
        unshare = ["unshare", "-rn"] if ROOTLESS else ["unshare", "-n"]
        # unshare execs the interpreter itself: proc.pid is the mock, and
        # /proc/<pid>/ns/net its namespace.
        with open(folder / "mock.stderr", "wb") as stderr:
            proc = subprocess.Popen(
                [
                    *unshare,
                    sys.executable,
                    str(MOCK),
                    "--loopback-up",
                    "--port-file",
                    str(port_file),
                    "--log",
                    str(log),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        deadline = time.monotonic() + WAIT
        while not port_file.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                err = (folder / "mock.stderr").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"the mock API did not start: {err}")
            time.sleep(0.02)
        return cls(proc, folder, int(port_file.read_text()))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def netns(self) -> str:
        """The namespace's identity (``net:[inode]``), as /proc shows it."""
        return os.readlink(f"/proc/{self.proc.pid}/ns/net")

    def enter(self) -> list[str]:
        """A command prefix that runs the rest inside the mock's namespace."""
        nsenter = shutil.which("nsenter") or "nsenter"
        pid = self.proc.pid
        if ROOTLESS:
            return [
                nsenter,
                f"--user=/proc/{pid}/ns/user",
                f"--net=/proc/{pid}/ns/net",
                "--preserve-credentials",
                "--",
            ]
        return [nsenter, f"--net=/proc/{pid}/ns/net", "--"]

    def agent_command(self, adapter: InstalledAdapter, home: Path) -> list[str]:
        node = shutil.which("node") or "node"
        path = os.pathsep.join(
            dict.fromkeys([str(Path(node).parent), "/usr/local/bin", "/usr/bin", "/bin"])
        )
        env = {
            "HOME": str(home),
            "PATH": path,
            "SHELL": shutil.which("bash") or "/bin/sh",
            "LANG": "C.UTF-8",
            "TMPDIR": str(home / "tmp"),
            "ANTHROPIC_BASE_URL": self.base_url,
            "ANTHROPIC_API_KEY": "dummy",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        return [
            *self.enter(),
            "env",
            "-i",
            *(f"{k}={v}" for k, v in env.items()),
            node,
            str(adapter.adapter.entry),
        ]

    # -- what the agent asked ------------------------------------------------------

    def records(self) -> list[dict[str, Any]]:
        """Every request so far, with ``outcome`` merged in once its stream ended."""
        by_id: dict[int, dict[str, Any]] = {}
        records: list[dict[str, Any]] = []
        for line in self.log.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line being written right now
            if "outcome" in record and record.get("id") in by_id:
                by_id[record["id"]].update(record)
                continue
            if "id" in record:
                by_id[record["id"]] = record
            records.append(record)
        return records

    def messages(self, cwd: Path) -> list[dict[str, Any]]:
        """The Messages requests of sessions working in ``cwd`` (model turns)."""
        wanted = os.path.realpath(cwd)
        return [
            r
            for r in self.records()
            if str(r.get("path", "")).split("?", 1)[0] == "/v1/messages"
            and r.get("cwd") is not None
            and os.path.realpath(r["cwd"]) == wanted
        ]


def make_home(home: Path) -> Path:
    """A fresh HOME for an agent, seeded so Claude Code fetches nothing at start."""
    plugins = home / ".claude" / "plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    now = datetime.datetime.now(datetime.UTC).isoformat()
    (plugins / "blocklist.json").write_text(json.dumps({"fetchedAt": now, "plugins": []}))
    return home


# -- processes -----------------------------------------------------------------------


def _stat(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()


def children(pid: int) -> list[int]:
    """Live direct children of ``pid``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat(int(name))
            if fields and int(fields[1]) == pid and fields[0] not in (b"Z", b"X"):
                found.append(int(name))
    return found


def descendants(pid: int) -> list[int]:
    """Live descendants of ``pid`` (through any process group or session)."""
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat(int(name))
            if fields and fields[0] not in (b"Z", b"X"):
                kids.setdefault(int(fields[1]), []).append(int(name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] not in (b"Z", b"X")


def pgid_of(pid: int) -> int:
    fields = _stat(pid)
    assert fields is not None, f"no process {pid}"
    return int(fields[2])


def cmdline(pid: int) -> list[str]:
    """The process's argv ([] once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            raw = f.read()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def netns_of(pid: int) -> str:
    return os.readlink(f"/proc/{pid}/ns/net")


# -- reading what the host reported --------------------------------------------------


def assistant_text(entries: list[dict[str, Any]]) -> list[str]:
    """The message text of each assistant entry of a snapshot."""
    return [
        "".join(c["text"] for c in e["chunks"] if c["type"] == "message")
        for e in entries
        if e["kind"] == "assistant"
    ]


def tool_calls(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in entries if e["kind"] == "tool_call"]


def session_events(events: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    return [e for e in events if e.get("sessionId") == session_id]


def client_calls(
    events: list[dict[str, Any]], session_id: str, prefix: str
) -> list[dict[str, Any]]:
    """Requests the agent sent to the client (traced frames) for ``session_id``."""
    return [
        e["payload"]
        for e in events
        if e["type"] == "protocol-frame"
        and e["direction"] == "in"
        and str(e.get("method", "")).startswith(prefix)
        and e["payload"].get("params", {}).get("sessionId") == session_id
    ]


def replay(events: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    """A session's entries rebuilt from its events alone (what a front end does)."""
    entries: list[dict[str, Any]] = []
    for event in session_events(events, session_id):
        kind = event["type"]
        if kind == "entry-appended":
            assert event["index"] == len(entries), event
            entries.append(copy.deepcopy(event["entry"]))
        elif kind == "entry-updated":
            patch = event["patch"]
            if "entry" in patch:
                entries[event["index"]] = copy.deepcopy(patch["entry"])
            if "textDelta" in patch:
                delta = patch["textDelta"]
                chunks = entries[event["index"]]["chunks"]
                if delta["chunk"] == len(chunks):
                    chunks.append(
                        {
                            "type": delta["type"],
                            "text": delta["text"],
                            "messageId": delta.get("messageId"),
                        }
                    )
                else:
                    chunks[delta["chunk"]]["text"] += delta["text"]
        elif kind == "entries-removed":
            del entries[event["start"] : event["end"]]
    return entries


def check_consistent(
    events: list[dict[str, Any]], session_id: str, snapshot: dict[str, Any]
) -> None:
    """The events tell the snapshot's story: cursors 1, 2, 3, … without gaps
    (nothing was merged at this pace) up to the snapshot's, and replaying
    them gives the snapshot's entries."""
    cursors = [e["cursor"] for e in session_events(events, session_id)]
    assert cursors == list(range(1, len(cursors) + 1)), cursors
    assert snapshot["cursor"] == cursors[-1]
    assert replay(events, session_id) == snapshot["entries"]
