"""Issue 15, ``!`` shell mode: the user's own command in the session's folder,
on a real pty, its output live in the log, no agent turn; the agent gets it
with the next prompt unless it was dropped; Esc stops it.

The real app, the real host core, the echo agent (a real subprocess that
writes every prompt's blocks to a file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp_tui.core import Host, ToolCallEntry, UserEntry
from acp_tui.ui.app import AcpApp
from tests.fake_agents import ECHO_AGENT, agent_spec
from tests.ui.helpers import idle, painted, ready, send, until


def make_app(tmp_path: Path) -> tuple[AcpApp, Path]:
    blocks = tmp_path / "blocks.jsonl"
    spec = agent_spec(ECHO_AGENT, ECHO_BLOCKS_FILE=str(blocks))
    return AcpApp(spec, cwd=tmp_path, host=Host(cancel_grace=2.0)), blocks


def prompts(blocks: Path) -> list[list[dict[str, Any]]]:
    if not blocks.exists():
        return []
    return [json.loads(line) for line in blocks.read_text().splitlines()]


def shells(app: AcpApp) -> list[ToolCallEntry]:
    view = app.conversation.current
    entries = view.entries if view else []
    return [e for e in entries if isinstance(e, ToolCallEntry) and e.title.startswith("! ")]


def ended(app: AcpApp, count: int) -> bool:
    done = [e for e in shells(app) if e.status in ("completed", "failed")]
    return len(done) >= count and not app.shell.running


async def test_a_command_runs_in_the_folder_and_goes_to_the_agent_next(tmp_path: Path) -> None:
    app, blocks = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "!pwd; printf 'one\\ntwo\\n'; printf '\\033[31mred\\033[0m\\n'; exit 3")
        await until(pilot, lambda: ended(app, 1))
        entry = shells(app)[0]
        assert entry.status == "failed" and entry.tool_kind == "execute"
        terminal = next(c for c in entry.content if c.get("type") == "terminal")
        assert terminal["exitStatus"]["exitCode"] == 3
        assert f"{tmp_path}\none\ntwo\n" in terminal["output"]
        # No agent turn: no prompt reached the agent, no user entry.
        view = app.conversation.current
        assert view is not None and not [e for e in view.entries if isinstance(e, UserEntry)]
        assert prompts(blocks) == []
        await until(pilot, lambda: "exit 3" in painted(app) and "d in the log" in painted(app))
        assert "red" in painted(app) and "\x1b" not in painted(app)

        await send(pilot, "what did it print?")
        await until(pilot, lambda: idle(app) and len(prompts(blocks)) == 1)
        first, *rest = prompts(blocks)[0]
        assert first["text"].startswith("[acp-tui: the user ran a shell command in ")
        assert "(exit 3)" in first["text"] and "one\ntwo\nred\n" in first["text"]
        assert rest == [{"type": "text", "text": "what did it print?"}]
        await send(pilot, "and now?")  # given once
        await until(pilot, lambda: idle(app) and len(prompts(blocks)) == 2)
        assert prompts(blocks)[1] == [{"type": "text", "text": "and now?"}]


async def test_d_drops_the_output_and_esc_stops_a_command(tmp_path: Path) -> None:
    app, blocks = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "!echo secret-words")
        await until(pilot, lambda: ended(app, 1))
        await pilot.press("ctrl+l", "k", "d")
        await until(pilot, lambda: "the agent will not see this" in painted(app).lower())
        await send(pilot, "!sleep 30")
        await until(pilot, lambda: any(e.status == "in_progress" for e in shells(app)))
        app.prompt.focus()
        await pilot.press("escape")
        await until(pilot, lambda: ended(app, 2), timeout=10)
        stopped = shells(app)[1]
        assert stopped.status == "failed"
        await send(pilot, "hello")
        await until(pilot, lambda: idle(app) and len(prompts(blocks)) == 1)
        sent = json.dumps(prompts(blocks)[0])
        assert "secret-words" not in sent and "sleep 30" in sent


async def test_a_command_the_terminals_refuse_says_why(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        view = app.conversation.current
        assert view is not None and app.host is not None
        await app.host.session(view.session_id).tools.terminals.close()  # refuses from now on
        await send(pilot, "!echo never")
        await until(
            pilot, lambda: any("terminals are closed" in str(n.message) for n in app._notifications)
        )
        assert not shells(app) and not app.shell.running
