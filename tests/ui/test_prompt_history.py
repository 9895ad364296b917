"""The prompt's history: Up/Down recall, drafts kept, the history's bounds."""

from __future__ import annotations

import pytest

from acp_tui.ui.history import HistoryBrowser, PromptHistory
from tests.ui.prompt_harness import prompt_app, type_text

# ----------------------------------------------------------------- history


async def test_history_up_down_restores_the_draft() -> None:
    async with prompt_app() as (app, pilot):
        for text in ("one", "two"):
            await type_text(pilot, text)
            await pilot.press("enter")
        await type_text(pilot, "draft")
        prompt = app.prompt

        await pilot.press("up")
        assert prompt.text == "two"
        assert prompt.cursor_location == (0, 3)
        await pilot.press("up")
        assert prompt.text == "one"
        await pilot.press("up")  # oldest: stays
        assert prompt.text == "one"
        await pilot.press("down")
        assert prompt.text == "two"
        assert prompt.cursor_location == (0, 3)
        await pilot.press("down")
        assert prompt.text == "draft"
        assert prompt.cursor_location == (0, 5)
        await pilot.press("down")  # already at the draft: nothing to recall
        assert prompt.text == "draft"
        assert app.submitted and app.texts == ["one", "two"]


async def test_history_keeps_edits_to_recalled_entries() -> None:
    async with prompt_app(history=PromptHistory(["one", "two"])) as (app, pilot):
        prompt = app.prompt
        await pilot.press("up")
        await type_text(pilot, "!")
        assert prompt.text == "two!"
        await pilot.press("up", "down")
        assert prompt.text == "two!"
        await pilot.press("down")
        assert prompt.text == ""
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.texts == ["two!"]
        assert prompt.prompt_history.entries == ["one", "two", "two!"]
        await pilot.press("up", "up")
        assert prompt.text == "two"  # the edit was not written into the history


async def test_up_in_middle_of_multiline_draft_moves_cursor() -> None:
    async with prompt_app(history=PromptHistory(["old"])) as (app, pilot):
        prompt = app.prompt
        await type_text(pilot, "l1")
        await pilot.press("ctrl+j")
        await type_text(pilot, "l2")
        await pilot.press("ctrl+j")
        await type_text(pilot, "l3")
        assert prompt.cursor_location == (2, 2)
        await pilot.press("up")
        assert prompt.text == "l1\nl2\nl3"
        assert prompt.cursor_location == (1, 2)
        await pilot.press("down")
        assert prompt.cursor_location == (2, 2)
        await pilot.press("down")  # last line, not browsing: plain cursor movement
        assert prompt.text == "l1\nl2\nl3"
        await pilot.press("up", "up")  # now on the first line
        assert prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == "old"
        await pilot.press("down")
        assert prompt.text == "l1\nl2\nl3"


async def test_down_in_middle_of_recalled_multiline_entry_moves_cursor() -> None:
    async with prompt_app(history=PromptHistory(["a\nb\nc"])) as (app, pilot):
        prompt = app.prompt
        await pilot.press("up")
        assert prompt.text == "a\nb\nc"
        assert prompt.cursor_location == (2, 1)
        await pilot.press("up")  # not the first line: cursor moves
        assert prompt.cursor_location == (1, 1)
        await pilot.press("down", "down")  # back to the last line, then past it
        assert prompt.text == ""


async def test_shift_up_selects_instead_of_recalling() -> None:
    async with prompt_app(history=PromptHistory(["old"])) as (app, pilot):
        await type_text(pilot, "abc")
        await pilot.press("shift+up")
        await pilot.pause()
        assert app.prompt.text == "abc"
        assert app.prompt.selected_text == "abc"


async def test_up_with_empty_history_keeps_text() -> None:
    async with prompt_app() as (app, pilot):
        await type_text(pilot, "abc")
        await pilot.press("up")
        assert app.prompt.text == "abc"
        assert app.prompt.cursor_location == (0, 0)


def test_prompt_history_bounds_and_dedupes() -> None:
    history = PromptHistory(limit=3)
    for text in ("a", "a", "b", "  ", "", "c", "d", "d"):
        history.add(text)
    assert history.entries == ["b", "c", "d"]
    assert len(history) == 3
    history.add("b")
    assert history.entries == ["c", "d", "b"]
    assert PromptHistory(["x", "x", "y"]).entries == ["x", "y"]
    with pytest.raises(ValueError):
        PromptHistory(limit=0)


def walking(browser: HistoryBrowser) -> bool:
    return browser.browsing


def test_history_browser_snapshot_survives_new_entries() -> None:
    history = PromptHistory(["one", "two"])
    browser = HistoryBrowser(history)
    assert browser.newer("draft") is None
    assert browser.older("draft") == "two"
    assert walking(browser)
    history.add("three")  # e.g. another input sharing the history
    assert browser.older("two") == "one"
    assert browser.older("one") is None
    assert browser.newer("one") == "two"
    assert browser.newer("two") == "draft"
    assert not walking(browser)
    assert browser.older("draft") == "three"  # a new walk sees the new entry
    browser.reset()
    assert not walking(browser)
