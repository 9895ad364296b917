"""The entry renderers' layout: exact widths, user prompts, notices, the selection, themes."""

from __future__ import annotations

import pytest
from textual.theme import BUILTIN_THEMES

from acp_tui.core.model.entries import (
    Entry,
    NoticeEntry,
    UserEntry,
)
from acp_tui.ui.render import (
    EntryRenderer,
    RenderStyles,
)
from tests.ui.render_helpers import (
    ALL_ENTRIES,
    STYLES,
    WIDTHS,
    assistant,
    diff_entry,
    plain,
    render,
    segments,
    segments_with,
    terminal,
    text_of,
    tool,
    user,
)

# -- widths -----------------------------------------------------------------------------


@pytest.mark.parametrize("width", [*WIDTHS, 1, 5, 13])
@pytest.mark.parametrize("expanded", [False, True])
@pytest.mark.parametrize("selected", [False, True])
def test_every_strip_is_exactly_the_width(width: int, expanded: bool, selected: bool) -> None:
    renderer = EntryRenderer()
    for entry in ALL_ENTRIES:
        strips = render(entry, width, renderer, expanded=expanded, selected=selected)
        assert strips, entry
        for strip in strips:
            assert strip.cell_length == width
            assert sum(segment.cell_length for segment in strip) == width
            assert all("\n" not in segment.text for segment in strip)


def test_every_entry_has_content_then_a_blank_separator() -> None:
    for entry in ALL_ENTRIES:
        lines = plain(render(entry))
        assert len(lines) >= 2
        assert lines[-1] == ""


@pytest.mark.parametrize("width", WIDTHS)
def test_wide_characters_keep_exact_widths(width: int) -> None:
    wide = "表示幅の確認 🎉🎉 emoji ✨ and 中文字符 mixed " * 6
    entries: list[Entry] = [
        user(wide),
        assistant(("thought", wide), ("message", f"# {wide}\n\n{wide}\n\n```\n{wide}\n```")),
        terminal(wide + "\n" + wide, exitStatus={"exitCode": 0, "signal": None}),
        diff_entry(wide, wide + "x"),
        tool(title=wide, tool_kind="read", status="completed", locations=[{"path": wide}]),
        NoticeEntry("error", wide + "\n" + wide),
    ]
    renderer = EntryRenderer()
    for entry in entries:
        for expanded in (False, True):
            for strip in render(entry, width, renderer, expanded=expanded):
                assert sum(segment.cell_length for segment in strip) == width
    assert "🎉" in text_of(entries[0], width)


def test_control_characters_never_reach_the_screen() -> None:
    entries: list[Entry] = [
        user("hi \x1b[2J there\x07"),
        assistant(("message", "evil \x1b]0;title\x07 text\x00")),
        tool(
            title="t\x1b[H",
            content=[{"type": "diff", "path": "p", "oldText": "", "newText": "\x1bx"}],
        ),
        terminal("\x1b[2Jclear\x1b[10;10Hmoved\x00\x1b"),
        NoticeEntry("info", "a\x1b[31mred"),
    ]
    for entry in entries:
        text = "".join(segment.text for segment in segments(render(entry, expanded=True)))
        assert not any(ord(char) < 32 or 0x7F <= ord(char) <= 0x9F for char in text), text


# -- user -----------------------------------------------------------------------------------


def test_user_text_wraps_under_the_marker() -> None:
    strips = render(user("alpha beta gamma delta epsilon zeta eta theta iota kappa"), 30)
    lines = plain(strips)[:-1]
    assert len(lines) > 1
    assert lines[0].startswith(" ❯ alpha")
    text_column = lines[0].index("alpha")
    for line in lines[1:]:
        assert line[:text_column].strip() == ""
        assert line[text_column] != " "
    assert segments_with(strips, "❯")[0].style.color == STYLES.user_marker.color  # type: ignore[union-attr]


def test_user_background_spans_the_full_width() -> None:
    strips = render(user("short"), 40)
    for strip in strips[:-1]:
        assert all(
            seg.style and seg.style.bgcolor == STYLES.user_background.bgcolor for seg in strip
        )
    assert not any(seg.style and seg.style.bgcolor for seg in strips[-1])


def test_user_attachments_are_chips_on_a_line_below() -> None:
    entry = UserEntry(
        content=[
            {"type": "text", "text": "look at"},
            {"type": "resource_link", "uri": "file:///repo/src/main.py", "name": "main.py"},
            {"type": "resource", "resource": {"uri": "file:///repo/README.md", "text": "..."}},
            {"type": "image", "data": "", "mimeType": "image/png"},
        ]
    )
    text = text_of(entry)
    assert text.splitlines()[:2] == [" ❯ look at", "   ↳ main.py  README.md  [image]"]
    assert segments_with(render(entry), "main.py")[0].style.color == STYLES.chip.color  # type: ignore[union-attr]


def test_user_multiline_prompt_keeps_lines() -> None:
    lines = plain(render(user("one\ntwo\n\nfour")))
    assert lines[:4] == [" ❯ one", "   two", "", "   four"]


# -- notices ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "icon", "style_name"),
    [
        ("info", "ℹ", "notice_info"),
        ("warning", "⚠", "notice_warning"),
        ("error", "✗", "notice_error"),
    ],
)
def test_notice_levels(level: str, icon: str, style_name: str) -> None:
    strips = render(NoticeEntry(level, "Something happened"))  # type: ignore[arg-type]
    assert plain(strips)[0] == f" {icon} Something happened"
    style = segments_with(strips, "Something")[0].style
    assert style is not None and style.color == getattr(STYLES, style_name).color


def test_notice_tail_is_muted_and_indented() -> None:
    entry = NoticeEntry("error", "Agent exited (code 1)\n\x1b[31mTraceback\x1b[0m:\n  File x")
    strips = render(entry)
    lines = plain(strips)
    assert lines[:3] == [" ✗ Agent exited (code 1)", "     Traceback:", "       File x"]
    style = segments_with(strips, "Traceback")[0].style
    assert style is not None and style.color == STYLES.muted.color


# -- selection ---------------------------------------------------------------------------------


def test_selected_entry_has_a_marker_and_background() -> None:
    strips = render(NoticeEntry("info", "hello"), selected=True)
    assert plain(strips)[0].startswith("▌")
    assert all(seg.style and seg.style.bgcolor == STYLES.selection.bgcolor for seg in strips[0])
    assert not plain(render(NoticeEntry("info", "hello")))[0].startswith("▌")


# -- themes -----------------------------------------------------------------------------------


def theme_styles(name: str) -> RenderStyles:
    theme = BUILTIN_THEMES[name]
    return RenderStyles.from_theme_variables(theme.to_color_system().generate(), theme.dark)


def test_styles_from_dark_and_light_themes_differ() -> None:
    dark = theme_styles("textual-dark")
    light = theme_styles("textual-light")
    assert dark.dark and not light.dark
    assert dark.diff_add != light.diff_add
    assert dark.diff_remove != light.diff_remove
    assert dark.code_theme != light.code_theme
    for styles in (dark, light):
        for entry in ALL_ENTRIES:
            assert render(entry, 60, styles=styles)


@pytest.mark.parametrize("name", sorted(BUILTIN_THEMES))
def test_every_builtin_theme_resolves(name: str) -> None:
    styles = theme_styles(name)
    assert styles.text.color is not None
    assert styles.diff_add.bgcolor is not None


def test_missing_variables_fall_back() -> None:
    styles = RenderStyles.from_theme_variables({}, dark=True)
    assert styles.text.color is not None and styles.diff_add.bgcolor is not None
    odd = RenderStyles.from_theme_variables(
        {"background": "transparent", "foreground": "not a colour", "primary": "#ff0000 50%"},
        dark=False,
    )
    assert odd.status_running.color is not None


def test_theme_change_restyles() -> None:
    renderer = EntryRenderer()
    entry = diff_entry("a\n", "b\n")
    dark = render(entry, renderer=renderer, styles=theme_styles("textual-dark"))
    light = render(entry, renderer=renderer, styles=theme_styles("textual-light"))
    assert segments_with(dark, "+b")[0].style != segments_with(light, "+b")[0].style


def test_default_styles_are_shared() -> None:
    assert RenderStyles.default() is RenderStyles.default()
    assert RenderStyles.default(dark=False) is not RenderStyles.default()
