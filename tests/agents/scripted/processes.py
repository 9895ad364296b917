"""Commands about the agent's process: dying, failing, children, stderr, deaf stdin."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from typing import Any

import acp
from acp.schema import PromptResponse

from tests.agents.scripted.base import AgentBase


class ProcessCommands(AgentBase):
    async def do_die(self, sid: str, rest: str, text: str) -> None:
        await self.say(sid, "about to die")
        await asyncio.sleep(0.05)
        sys.stderr.write("fatal: scripted death\n")
        sys.stderr.flush()
        os._exit(int(rest or "3"))

    async def do_grandchild(self, sid: str, rest: str, text: str) -> PromptResponse:
        # "grandchild own-session": the child leaves the agent's process group,
        # as Claude Code's Bash commands do.
        child = subprocess.Popen(
            ["sleep", "1000"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=rest.strip() == "own-session",
        )
        await self.say(sid, f"pid={child.pid}")
        return await self.wait_cancel(sid)

    async def do_spawn_tree(self, sid: str, rest: str, text: str) -> None:
        quiet: Any = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL}
        in_group = subprocess.Popen(["sleep", "1000"], **quiet)
        own_session = subprocess.Popen(["sleep", "1000"], start_new_session=True, **quiet)
        # The middle process prints the orphan's pid and exits at once.
        orphan_line = "import subprocess; print(subprocess.Popen(['sleep', '1000'],"
        orphan_line += " start_new_session=True, stdin=subprocess.DEVNULL,"
        orphan_line += " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid)"
        middle = subprocess.run(
            [sys.executable, "-c", orphan_line], capture_output=True, text=True, check=True
        )
        pids = [in_group.pid, own_session.pid, int(middle.stdout)]
        if rest.strip():
            tree = {"agent": os.getpid(), "group": os.getpgrp(), "children": pids}
            with open(rest.strip() + ".tmp", "w") as f:
                json.dump(tree, f)
            os.replace(rest.strip() + ".tmp", rest.strip())
        await self.say(sid, "pids=" + ",".join(map(str, pids)))

    async def do_deaf(self, sid: str, rest: str, text: str) -> None:
        def block() -> None:
            with open(rest.strip() + ".deaf", "w"):
                pass
            while not os.path.exists(rest.strip()):
                time.sleep(0.02)

        asyncio.get_running_loop().call_later(0.05, block)

    async def do_fail(self, sid: str, rest: str, text: str) -> None:
        sys.stderr.write(f"fatal: {rest}\n")
        sys.stderr.flush()
        raise acp.RequestError(-32603, "Internal error", {"details": rest})

    async def do_close_stdout(self, sid: str, rest: str, text: str) -> None:
        os.close(1)
        await asyncio.sleep(3600)

    async def do_stderr(self, sid: str, rest: str, text: str) -> None:
        remaining = int(rest)
        block = ("x" * 1023 + "\n").encode()
        while remaining > 0:
            piece = block[: min(len(block), remaining)]
            sys.stderr.buffer.write(piece)
            remaining -= len(piece)
        sys.stderr.flush()
        await self.say(sid, "done")
