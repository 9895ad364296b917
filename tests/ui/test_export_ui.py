"""/export and the palette's export entry write the conversation as Markdown."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandPalette

from tests.fake_agents import agent_spec
from tests.ui.helpers import idle, make_app, ready, send, turn, until


async def test_slash_export_writes_markdown_and_is_not_sent(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        session = app.session
        assert session is not None
        entries_before = len(session.thread)
        await send(pilot, "/export notes/chat.md")  # notes/ does not exist: a clear error
        await until(
            pilot, lambda: any("Export failed" in str(n.message) for n in app._notifications)
        )
        (tmp_path / "notes").mkdir()
        await send(pilot, "/export notes/chat.md")
        written = tmp_path / "notes" / "chat.md"
        await until(pilot, written.exists)
        text = written.read_text()
        assert text.startswith("# ")
        assert "> **You**" in text and "showcase" in text
        assert "```diff" in text and "+def greet(name: str) -> str:" in text
        assert "2 passed" in text
        assert len(session.thread) == entries_before  # nothing went to the agent
        assert idle(app)


async def test_the_palette_exports_to_a_file_named_after_the_session(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "echo hello")
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"export")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await until(pilot, lambda: any(tmp_path.glob("acp-tui-*.md")))
        [written] = tmp_path.glob("acp-tui-*.md")
        assert "hello" in written.read_text()
        assert app.focused is app.prompt
