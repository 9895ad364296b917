"""`acp-tui AGENT_ID` for a registry agent that is not installed: it asks on the
terminal (a real pty) before the TUI starts, shows the exact npx command, runs
it (a fake `npx` on PATH that records its arguments and starts the scripted
agent), and remembers the answer by appending to config.toml."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ptyprocess import PtyProcess

from acp_tui.agents.config import load_config
from acp_tui.core.transport.process import group_members
from tests.conftest import REPO
from tests.fake_agents import SCRIPTED_AGENT
from tests.test_lifecycle import alive
from tests.waiting import wait_until

COMMAND = "npx --yes fake-acp-pkg@1.2.3 --acp"
QUESTION = "Run it? [y] yes, and remember"
#: The user's own config: comments and layout that must survive acp-tui's append.
USER_CONFIG = """\
# my acp-tui settings  (keep this comment!)
theme = "acp-light"   # light, please

[history]
max_sessions = 50
"""


def write_registry(path: Path) -> Path:
    agents: list[dict[str, Any]] = [
        {
            "id": "fake-acp",
            "name": "Fake Agent",
            "version": "1.2.3",
            "description": "A scripted ACP agent behind a fake npx",
            "website": "https://example.invalid/fake",
            "distribution": {
                "npx": {
                    "package": "fake-acp-pkg@1.2.3",
                    "args": ["--acp"],
                    "env": {"FAKE_MODE": "on"},
                }
            },
        },
        {
            "id": "only-binary",
            "name": "Only Binary",
            "description": "A download only",
            "distribution": {
                "binary": {
                    "linux-x86_64": {"archive": "https://example.invalid/ob.tgz", "cmd": "./ob"},
                    "darwin-aarch64": {"archive": "https://example.invalid/ob.zip", "cmd": "./ob"},
                }
            },
        },
    ]
    path.write_text(json.dumps({"version": "1.0.0", "agents": agents}))
    return path


class Setup:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.bin = root / "bin"
        self.bin.mkdir()
        self.args_file = root / "npx-args"
        npx = self.bin / "npx"
        npx.write_text(
            "#!/bin/sh\n"
            f'printf "%s\\n" "$FAKE_MODE" "$@" > "{self.args_file}"\n'
            f'exec "{sys.executable}" "{SCRIPTED_AGENT}"\n'
        )
        npx.chmod(0o755)
        self.config = root / "config" / "config.toml"
        self.config.parent.mkdir()
        self.config.write_text(USER_CONFIG)
        self.registry = write_registry(root / "registry.json")
        self.work = root / "work"
        self.work.mkdir()

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "TERM": "xterm-256color",
            "ACP_TUI_CONFIG": str(self.config),
            "ACP_TUI_REGISTRY": str(self.registry),
            # The fake npx, and the python the TUI needs; no real npx or agent.
            "PATH": f"{self.bin}{os.pathsep}{Path(sys.executable).parent}",
        }

    def npx_args(self) -> list[str]:
        return self.args_file.read_text().splitlines()


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


class Terminal:
    """acp-tui on a real pty; ``screen`` is everything it wrote so far."""

    def __init__(self, setup: Setup, *args: str) -> None:
        self.proc = PtyProcess.spawn(
            [sys.executable, "-m", "acp_tui", "--cwd", str(setup.work), *args],
            env=setup.env(),
            cwd=str(REPO),
            dimensions=(24, 80),
        )
        self.output = b""

    def drain(self) -> None:
        while select.select([self.proc.fd], [], [], 0)[0]:
            try:
                data = self.proc.read(65536)
            except (EOFError, OSError):
                return
            if not data:
                return
            self.output += data

    @property
    def screen(self) -> str:
        return self.output.decode(errors="replace")

    def wait(self, condition: Callable[[], bool], timeout: float = 30) -> None:
        def check() -> bool:
            self.drain()
            return condition()

        wait_until(
            check,
            timeout,
            poll=0.05,
            what=lambda: f"condition not reached; the terminal shows:\n{self.screen}",
        )

    def wait_for(self, text: str) -> None:
        self.wait(lambda: text in self.screen)

    def exit_code(self) -> int:
        self.wait(lambda: not self.proc.isalive())
        status = self.proc.exitstatus
        assert status is not None
        return status

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.kill(signal.SIGKILL)


@pytest.fixture
def terminals() -> Iterator[Callable[..., Terminal]]:
    opened: list[Terminal] = []

    def open_terminal(setup: Setup, *args: str) -> Terminal:
        terminal = Terminal(setup, *args)
        opened.append(terminal)
        return terminal

    yield open_terminal
    for terminal in opened:
        terminal.close()


def _children(pid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rfind(b")") + 2 :].split()[1]) == pid:
                found.append(int(name))
    return found


def test_yes_runs_it_through_npx_and_remembers_by_appending(
    setup: Setup, terminals: Callable[..., Terminal]
) -> None:
    tui = terminals(setup, "fake-acp")
    tui.wait_for(QUESTION)
    screen = tui.screen
    assert "'fake-acp' is in the ACP agent registry" in screen
    assert "Fake Agent: A scripted ACP agent behind a fake npx" in screen
    assert "downloads the npm package fake-acp-pkg@1.2.3" in screen
    assert f"FAKE_MODE=on {COMMAND}" in screen
    assert not setup.args_file.exists()  # nothing runs before the answer
    tui.proc.write(b"y\r")
    # The TUI starts on the agent npx started, with the registry's args and env.
    tui.wait(setup.args_file.exists)
    assert setup.npx_args() == ["on", "--yes", "fake-acp-pkg@1.2.3", "--acp"]
    agents: list[int] = []

    def agent_running() -> bool:
        agents[:] = [pid for pid in _children(tui.proc.pid) if alive(pid)]
        return bool(agents)

    tui.wait(agent_running)
    tui.wait(lambda: "Fake Agent (npx)" in tui.screen)  # the status line names it
    # The answer was appended; the user's text is untouched, byte for byte.
    text = setup.config.read_text()
    assert text.startswith(USER_CONFIG)
    added = text[len(USER_CONFIG) :]
    assert f"`acp-tui fake-acp` may run `FAKE_MODE=on {COMMAND}`" in added
    assert '[registry.fake-acp]\nrun = "npx"\npackage = "fake-acp-pkg"\n' in added
    config = load_config(setup.config)
    assert config.problems == [] and config.theme == "acp-light"
    assert config.history.max_sessions == 50
    assert config.registry["fake-acp"].allows("npx", "fake-acp-pkg")
    # Quitting reaps the agent (npx exec'd the scripted agent in its group).
    pgid = agents[0]
    tui.proc.write(b"\x11")  # ctrl+q
    assert tui.exit_code() == 0
    assert group_members(pgid) == []

    # The second time nothing is asked.
    setup.args_file.unlink()
    again = terminals(setup, "fake-acp")
    again.wait(setup.args_file.exists)
    assert QUESTION not in again.screen
    assert setup.config.read_text() == text  # nothing appended twice
    again.proc.write(b"\x11")
    assert again.exit_code() == 0


def test_once_runs_it_without_remembering(setup: Setup, terminals: Callable[..., Terminal]) -> None:
    tui = terminals(setup, "fake-acp")
    tui.wait_for(QUESTION)
    tui.proc.write(b"o\r")
    tui.wait(setup.args_file.exists)
    tui.proc.write(b"\x11")
    assert tui.exit_code() == 0
    assert setup.config.read_text() == USER_CONFIG


@pytest.mark.parametrize("reply", [b"\r", b"x\rn\r", b"\x04", b"\x03"])
def test_no_runs_nothing(setup: Setup, terminals: Callable[..., Terminal], reply: bytes) -> None:
    """Enter, EOF (ctrl+d) and ctrl+c run nothing and remember nothing; "n" (after
    a wrong answer, which asks again) remembers a no."""
    tui = terminals(setup, "fake-acp")
    tui.wait_for(QUESTION)
    tui.proc.write(reply)
    code = tui.exit_code()
    assert not setup.args_file.exists()
    assert "Traceback" not in tui.screen
    if reply == b"x\rn\r":
        assert "Please answer y, o or n." in tui.screen
        assert code == 2
        assert "run = false" in setup.config.read_text()
        assert setup.config.read_text().startswith(USER_CONFIG)
        # Remembered: the next run says so instead of asking.
        refused = terminals(setup, "fake-acp")
        assert refused.exit_code() == 2
        assert QUESTION not in refused.screen
        assert "you said no to running 'fake-acp' through npx" in refused.screen
        assert "delete that [registry.fake-acp] table" in refused.screen
    else:
        assert code == (130 if reply == b"\x03" else 2)
        assert setup.config.read_text() == USER_CONFIG


def test_without_a_terminal_it_never_asks_and_says_how_to_allow(setup: Setup) -> None:
    for args in (["fake-acp"], ["--headless", "--stdio", "fake-acp"]):
        result = subprocess.run(
            [sys.executable, "-m", "acp_tui", *args],
            env=setup.env(),
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2
        assert QUESTION not in result.stderr
        assert f"it would run: FAKE_MODE=on {COMMAND}" in result.stderr
        assert f"add to {setup.config}" in result.stderr
        assert '[registry.fake-acp]\n    run = "npx"\n    package = "fake-acp-pkg"' in result.stderr
        assert not setup.args_file.exists()
        assert setup.config.read_text() == USER_CONFIG


async def test_headless_runs_a_remembered_registry_agent(setup: Setup, headless: Any) -> None:
    with setup.config.open("a") as config:
        config.write('\n[registry.fake-acp]\nrun = "npx"\npackage = "fake-acp-pkg"\n')
    env = setup.env()
    client = await headless(
        "fake-acp",
        cwd=setup.work,
        ACP_TUI_CONFIG=env["ACP_TUI_CONFIG"],
        ACP_TUI_REGISTRY=env["ACP_TUI_REGISTRY"],
        PATH=env["PATH"],
    )
    opened = await client.result("connection.open", {"cwd": str(setup.work)})
    assert opened["agentInfo"]["name"] == "scripted"
    assert setup.npx_args() == ["on", "--yes", "fake-acp-pkg@1.2.3", "--acp"]


def test_an_answer_for_another_package_asks_again_and_is_not_appended(
    setup: Setup, terminals: Callable[..., Terminal]
) -> None:
    """The registry now names another package: acp-tui asks again; appending a
    second [registry.fake-acp] would break the file, so it says what to write."""
    old = USER_CONFIG + '\n[registry.fake-acp]\nrun = "npx"\npackage = "old-package"\n'
    setup.config.write_text(old)
    tui = terminals(setup, "fake-acp")
    tui.wait_for(QUESTION)
    tui.proc.write(b"y\r")
    tui.wait(setup.args_file.exists)
    tui.wait_for("the answer was not remembered")
    assert setup.config.read_text() == old
    tui.proc.write(b"\x11")
    assert tui.exit_code() == 0


def test_installed_registry_agents_run_from_path_and_downloads_are_explained(
    setup: Setup,
) -> None:
    env = setup.env()
    # A download only, not installed: where to get it, nothing asked.
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", "only-binary"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    if sys.platform == "linux" and os.uname().machine == "x86_64":
        assert "get it: https://example.invalid/ob.tgz" in result.stderr
        assert "then put `ob` on PATH" in result.stderr
    # npx missing too: what is needed.
    no_npx = {**env, "PATH": str(Path(sys.executable).parent)}
    result = subprocess.run(
        [sys.executable, "-m", "acp_tui", "fake-acp"],
        env=no_npx,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "needs `npx` on PATH" in result.stderr
    assert f"with Node.js (npm): FAKE_MODE=on {COMMAND}" in result.stderr
    assert "(looked for `fake-acp-pkg` on PATH)" in result.stderr


def test_a_missing_preset_gets_its_registry_twins_hints(setup: Setup) -> None:
    """Presets stay as they are (a missing one is an error), but the registry
    fills in how else to get them."""
    env = {**setup.env(), "ACP_TUI_REGISTRY": ""}  # the shipped snapshot
    for preset, hint in [
        ("claude", "or without installing it: acp-tui claude-acp  (runs npx --yes"
                   " @agentclientprotocol/claude-agent-acp@"),
        ("gemini", "or without installing it: acp-tui -- npx --yes @google/gemini-cli@"),
        ("goose", "or download the registry's build: https://github.com/block/goose/"),
    ]:  # fmt: skip
        result = subprocess.run(
            [sys.executable, "-m", "acp_tui", preset],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2
        assert f"the {preset!r} agent is not installed" in result.stderr
        if preset != "goose" or (sys.platform == "linux" and os.uname().machine == "x86_64"):
            assert hint in result.stderr, result.stderr
        assert QUESTION not in result.stderr
        assert not result.stderr.endswith("\n\n")
