"""The TUI driven from the keyboard against real agents (demo and scripted)."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.widgets import Static

from acp_tui.core.model.entries import AssistantEntry, NoticeEntry, ToolCallEntry
from acp_tui.ui.screens.permission import PermissionScreen
from tests.fake_agents import agent_spec, demo_spec
from tests.ui.helpers import make_app, painted, ready, screen_text, send, submit, turn, until


def replies(app) -> list[str]:  # type: ignore[no-untyped-def]
    assert app.session is not None
    return [
        "".join(c.text for c in e.chunks if c.type == "message")
        for e in app.session.thread.entries
        if isinstance(e, AssistantEntry)
    ]


async def test_streamed_multi_turn_chat_with_the_demo(tmp_path: Path) -> None:
    app = make_app(demo_spec(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        assert "Say hi for a guided tour" in screen_text(app)
        await turn(pilot, "what can you do")
        session = app.session
        assert session is not None
        first_connection = app.connection
        await turn(pilot, "and markdown?")
        assert app.session is session and app.connection is first_connection
        texts = replies(app)
        assert len(texts) == 2
        assert "what can you do" in texts[1]  # the demo remembers turn 1
        shown = screen_text(app)
        assert "Last time you asked" in shown
        assert app.log_view.following


async def test_reveal_runs_during_the_stream_and_finishes_after(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        submit(app, "burst 3000 3")
        log = app.log_view
        await until(pilot, lambda: any(state.revealed for state in log.reveals.values()))
        state = next(iter(log.reveals.values()))
        shown: list[int] = []
        await until(pilot, lambda: shown.append(state.revealed[0]) or shown[-1] > 1000)
        assert shown[0] < 3000, "text appears gradually, not at once"
        assert shown == sorted(shown)
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        assert not log.revealing  # all of it was revealed before the turn ended
        assert "lorem ipsum" in screen_text(app)


async def test_follow_tail_pauses_on_scroll_up_and_resumes_at_the_end(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 20)) as pilot:
        await ready(pilot)
        await turn(pilot, "flood 200")
        log = app.log_view
        assert log.following and log.scroll_y == log.max_scroll_y
        await send(pilot, "slow 400 0.05")
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        # Enough below the view that one page up leaves the bottom (a race otherwise).
        await until(pilot, lambda: log.max_scroll_y > log.size.height)
        await pilot.press("pageup")  # an app-level key: works while typing in the prompt
        await pilot.pause()
        assert not log.following
        assert not log.revealing  # scrolling away flushes the reveal
        stopped_at = log.scroll_y
        await until(pilot, lambda: log.new_output_below)
        await pilot.pause(0.3)
        assert log.scroll_y == stopped_at  # new output did not move the view
        assert "new output" in screen_text(app)
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert log.following and log.scroll_y == log.max_scroll_y
        lines = len(replies(app)[-1])
        await until(pilot, lambda: len(replies(app)[-1]) > lines + 20)
        await pilot.pause(0.1)
        assert log.following and log.scroll_y == log.max_scroll_y  # following again
        await pilot.press("escape")
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")


async def _edit_with_key(tmp_path: Path, key: str) -> tuple[str | None, str]:
    app = make_app(demo_spec(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/edit")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        await pilot.press(key)
        await until(
            pilot, lambda: app.session is not None and app.session.status == "idle", timeout=20
        )
        assert not isinstance(app.screen, PermissionScreen)
        assert app.focused is app.prompt
        note = tmp_path / "demo-notes.md"
        entry = next(e for e in app.session.thread.entries if isinstance(e, ToolCallEntry))
        return (note.read_text() if note.exists() else None), entry.status


async def test_permission_allow_once_with_y(tmp_path: Path) -> None:
    written, status = await _edit_with_key(tmp_path, "y")
    assert written is not None and "Demo notes" in written
    assert status == "completed"


async def test_permission_allow_always_with_a(tmp_path: Path) -> None:
    written, _status = await _edit_with_key(tmp_path, "a")
    assert written is not None


async def test_permission_reject_with_n(tmp_path: Path) -> None:
    written, status = await _edit_with_key(tmp_path, "n")
    assert written is None
    assert status in ("failed", "rejected")


async def test_permission_escape_rejects(tmp_path: Path) -> None:
    written, _status = await _edit_with_key(tmp_path, "escape")
    assert written is None


async def test_escape_cancels_the_running_turn(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "slow 500 0.05")
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        await until(pilot, lambda: bool(replies(app)))
        await pilot.press("escape")
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        assert app.session is not None and app.session.last_stop_reason == "cancelled"
        assert "line 499" not in replies(app)[-1]


async def test_the_draft_survives_a_stream_and_a_modal(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        submit(app, f"permission-when {gate}")
        await until(pilot, lambda: bool(replies(app)))  # the agent is streaming
        await pilot.press(*"half a thought")
        await pilot.press("left", "left", "shift+left")
        before = (app.prompt.text, app.prompt.selection)
        assert before[0] == "half a thought"
        gate.touch()  # now the agent asks permission: a modal over the draft
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        assert (app.prompt.text, app.prompt.selection) == before
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        # A doubled key must not reach the draft. Both come at once, as from a
        # finger (Pilot's press would wait for the reply's reveal in between).
        for _ in range(2):
            app.post_message(events.Key("y", "y"))
        await until(pilot, lambda: not isinstance(app.screen, PermissionScreen))
        assert app.focused is app.prompt
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        assert '"optionId": "allow"' in replies(app)[-1]
        assert (app.prompt.text, app.prompt.selection) == before


async def test_prompts_sent_during_a_turn_are_queued_then_sent(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "hang")
        await until(pilot, lambda: app.session is not None and app.session.status == "running")
        await send(pilot, "echo queued one")
        await pilot.pause()
        assert app.queued == ["echo queued one"]
        assert "queued: echo queued one" in painted(app)
        assert "1 queued" in str(app.query_one("#status").render())
        await pilot.press("escape")
        await until(pilot, lambda: bool(replies(app)) and replies(app)[-1] == "queued one ")
        assert not app.queued


async def test_history_recall_with_up_and_down(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await turn(pilot, "echo first")
        await turn(pilot, "echo second")
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.prompt.text == "echo second"
        await pilot.press("up")
        assert app.prompt.text == "echo first"
        await pilot.press("down", "down")
        assert app.prompt.text == "draft"


async def test_agent_death_shows_an_error_and_the_next_prompt_restarts(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        first = app.connection
        await send(pilot, "die 9")
        await until(pilot, lambda: app.session is not None and app.session.status == "closed")
        await pilot.pause()
        notices = [e for e in app.session.thread.entries if isinstance(e, NoticeEntry)]
        assert "exit code 9" in notices[-1].text
        assert "fatal: scripted death" in notices[-1].text
        assert "exit code 9" in screen_text(app)
        assert not app.prompt.disabled
        await send(pilot, "echo back again")
        await until(pilot, lambda: app.connection is not first and app.connection is not None)
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        await until(pilot, lambda: bool(replies(app)) and replies(app)[-1] == "back again ")
        assert "exit code 9" in "".join(
            e.text for e in app.source._segments[0] if isinstance(e, NoticeEntry)
        )


async def test_ac19_an_update_re_renders_only_that_entry(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 30)) as pilot:
        await ready(pilot)
        await turn(pilot, "flood 30 EVERY 3")
        log = app.log_view
        await pilot.pause()
        session = app.session
        assert session is not None and len(session.thread) > 15
        found = session.thread.tool_call("mark-30")
        assert found is not None
        index, entry = found
        entry.title = "renamed"
        session.commit(session.thread.touch(index))
        await pilot.pause()
        before = log.render_count
        cached_before = {i: log._cache[i] for i in log._cache if i != index}
        await pilot.pause()
        log.entry_changed(index)
        app.refresh()
        await pilot.pause()
        assert log.render_count - before == 1
        for i, cached in cached_before.items():
            assert log._cache.get(i) is cached, f"entry {i} was re-rendered"


async def test_copy_the_last_reply_from_the_log(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await turn(pilot, "echo copy me")
        await pilot.press("ctrl+l")
        assert app.focused is app.log_view
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == "copy me "


async def test_shift_tab_cycles_modes(tmp_path: Path) -> None:
    app = make_app(demo_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        session = app.session
        assert session is not None and session.modes is not None
        assert session.modes["currentModeId"] == "ask"
        await pilot.press("shift+tab")
        await until(pilot, lambda: session.modes["currentModeId"] == "auto")  # type: ignore[index]
        assert app.focused is app.prompt
        await pilot.press("shift+tab")
        await until(pilot, lambda: session.modes["currentModeId"] == "ask")  # type: ignore[index]


async def test_ctrl_c_clears_then_quits_and_reaps(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert app.connection is not None and app.connection.process is not None
        pid = app.connection.process.pid
        await pilot.press(*"some draft")
        await pilot.press("ctrl+c")
        assert app.prompt.text == ""
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await until(pilot, lambda: not app.is_running, timeout=10)
    from tests.test_lifecycle import alive

    assert not alive(pid)


async def test_theme_switch_rerenders_with_new_colours(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path, theme="acp-dark")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await turn(pilot, "echo colours")
        before = app.log_view.styles_for_render
        app.theme = "acp-light"
        await pilot.pause()
        after = app.log_view.styles_for_render
        assert before.generation != after.generation
        assert before.dark and not after.dark
        assert "colours" in screen_text(app)


async def test_the_theme_asked_for_is_the_first_frames(tmp_path: Path) -> None:
    """The config's (or --theme's) theme is set before the CSS is first parsed:
    the first frame has its colours and classes, and no theme change makes
    Textual re-parse all the CSS (a tenth of the time to the first frame)."""
    from textual.color import Color
    from textual.css.stylesheet import Stylesheet

    reparses: list[Stylesheet] = []
    reparse = Stylesheet.reparse

    def counted(sheet: Stylesheet) -> None:
        reparses.append(sheet)
        reparse(sheet)

    app = make_app(agent_spec(), tmp_path, theme="acp-light")
    Stylesheet.reparse = counted  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            assert app.screen.styles.background == Color.parse("#fbfbf8")
            assert {"-theme-acp-light", "-light-mode"} <= set(app.classes)
            assert "-dark-mode" not in app.classes
            assert not app.log_view.styles_for_render.dark
            assert reparses == []
            app.theme = "acp-dark"  # (a theme picked later still re-parses)
            await pilot.pause()
            assert len(reparses) == 1
            assert app.screen.styles.background != Color.parse("#fbfbf8")
    finally:
        Stylesheet.reparse = reparse  # type: ignore[method-assign]


async def test_collection_off_while_starting_is_back_on_once_painted(tmp_path: Path) -> None:
    """cli.py turns the garbage collector off for the start (its objects live
    as long as the app); the app freezes them and turns it back on when its
    first frame is painted, so a long session is collected as usual."""
    import gc

    app = make_app(agent_spec(), tmp_path)
    gc.disable()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot)
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0
    finally:
        gc.enable()
        gc.unfreeze()


async def test_unknown_theme_falls_back_with_a_notice(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path, theme="no-such-theme")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert app.theme == "acp-dark"


async def test_status_line_shows_usage_title_and_config(tmp_path: Path) -> None:
    import json

    updates = [
        {"sessionUpdate": "usage_update", "used": 12_345, "size": 200_000},
        {"sessionUpdate": "session_info_update", "title": "Fixing the greeting"},
    ]
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(140, 24)) as pilot:
        await ready(pilot)
        status = str(app.query_one("#status").render())
        assert "Model" in status and "Fast model" in status
        await turn(pilot, "updates " + json.dumps(updates))
        status = str(app.query_one("#status").render())
        assert "12.3k/200.0k (6%) tokens" in status
        assert "Fixing the greeting" in status


async def test_log_cursor_expands_a_folded_thought(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(110, 60)) as pilot:
        await ready(pilot)
        await turn(pilot, "showcase")
        assert "∴ Thinking · Checking the greeting code first." in screen_text(app)
        await pilot.press("ctrl+l")
        log = app.log_view
        await pilot.press("home")
        await pilot.press("j")  # the first entry (the prompt)
        assert log.cursor == 0
        await pilot.press("j")  # the reply with the thought
        assert log.cursor == 1
        await pilot.press("enter")
        await pilot.pause()
        assert 1 in log.expanded
        assert "Thinking · Checking" not in screen_text(app)
        assert "Checking the greeting code first." in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert 1 not in log.expanded
        await pilot.press("k")
        assert log.cursor == 0


async def test_slash_completion_offers_the_agents_commands(tmp_path: Path) -> None:
    app = make_app(demo_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(pilot, lambda: bool(app.prompt.commands))
        await pilot.press("slash", "t")
        await pilot.pause()
        assert app.prompt.completion_open
        await pilot.press("tab")
        assert app.prompt.text.startswith("/tour")
        await pilot.press("escape")
        assert not app.prompt.completion_open


async def test_two_pending_permissions_queue_one_dialog_at_a_time(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        submit(app, "permission-pair")
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await until(pilot, lambda: app.screen.total == 2)  # type: ignore[attr-defined]
        # The counter is drawn from the total at the dialog's next refresh.
        await until(
            pilot,
            lambda: (
                "1 of 2" in str(app.screen.query_one("#counter", Static).content)
                if app.screen.query("#counter")
                else False
            ),
        )
        first = app.permissions.showing
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        await pilot.press("y")
        await until(
            pilot,
            lambda: isinstance(app.screen, PermissionScreen) and app.permissions.showing != first,
        )
        await until(pilot, lambda: app.screen.armed)  # type: ignore[attr-defined]
        await pilot.press("n")
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        outcomes = replies(app)[-1]
        assert '"optionId": "allow"' in outcomes and '"optionId": "reject"' in outcomes


async def test_keys_typed_as_a_dialog_opens_go_to_the_draft_not_the_dialog(
    tmp_path: Path,
) -> None:
    gate = tmp_path / "gate"
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        submit(app, f"permission-when {gate}")
        await until(pilot, lambda: bool(replies(app)))
        await pilot.press(*"I was sa")
        gate.touch()
        await until(pilot, lambda: isinstance(app.screen, PermissionScreen))
        screen = app.screen
        assert not screen.armed  # type: ignore[attr-defined]
        await pilot.press(*"ying")  # "y" would be "allow" if the dialog were armed
        assert app.screen is screen, "typing did not answer the dialog"
        assert app.prompt.text == "I was saying"
        await until(pilot, lambda: screen.armed)  # type: ignore[attr-defined]
        await pilot.press("n")
        await until(pilot, lambda: app.session is not None and app.session.status == "idle")
        assert '"optionId": "reject"' in replies(app)[-1]
        assert app.prompt.text == "I was saying"


async def test_the_log_keeps_its_last_line_in_view_when_it_gets_shorter(tmp_path: Path) -> None:
    app = make_app(agent_spec(), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await turn(pilot, "echo " + " ".join(f"word{n}" for n in range(300)))
        log = app.log_view
        height = log.size.height
        assert log.following and log.scroll_y == log.max_scroll_y > 0
        app.prompt.insert("one\ntwo\nthree\nfour")  # the prompt grows, the log shrinks
        await until(pilot, lambda: log.size.height < height)
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y
        assert "word299" in screen_text(app)
