"""The entry renderers: widths, layout, Markdown block cache, tool calls, themes."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

import pytest
from rich.color import Color
from rich.segment import Segment
from textual.strip import Strip
from textual.theme import BUILTIN_THEMES

import acp_tui.ui.render.markdown as markdown_module
from acp_tui.core.entries import (
    AssistantEntry,
    Chunk,
    Entry,
    NoticeEntry,
    ToolCallEntry,
    UserEntry,
)
from acp_tui.ui.render import (
    KIND_ICONS,
    SPINNER_FRAMES,
    EntryRenderer,
    RenderOptions,
    RenderStyles,
)
from acp_tui.ui.render.markdown import split_blocks

STYLES = RenderStyles.default()
WIDTHS = (20, 60, 120)


def plain(strips: Iterable[Strip]) -> list[str]:
    return ["".join(segment.text for segment in strip).rstrip() for strip in strips]


def render(
    entry: Entry, width: int = 80, renderer: EntryRenderer | None = None, **kw: Any
) -> list[Strip]:
    renderer = renderer or EntryRenderer()
    return renderer.render(entry, RenderOptions(width=width, styles=kw.pop("styles", STYLES), **kw))


def text_of(entry: Entry, width: int = 80, **kw: Any) -> str:
    return "\n".join(plain(render(entry, width, **kw)))


def segments(strips: Iterable[Strip]) -> list[Segment]:
    return [segment for strip in strips for segment in strip]


def segments_with(strips: Iterable[Strip], needle: str) -> list[Segment]:
    return [segment for segment in segments(strips) if needle in segment.text]


def user(text: str, *extra: dict[str, Any]) -> UserEntry:
    return UserEntry(content=[{"type": "text", "text": text}, *extra])


def assistant(*chunks: tuple[str, str]) -> AssistantEntry:
    return AssistantEntry(chunks=[Chunk(kind, text, "m1") for kind, text in chunks])  # type: ignore[arg-type]


def tool(**kw: Any) -> ToolCallEntry:
    kw.setdefault("tool_call_id", "call-1")
    return ToolCallEntry(**kw)


def terminal(output: str | None = None, **kw: Any) -> ToolCallEntry:
    item: dict[str, Any] = {"type": "terminal", "terminalId": "term-1", **kw}
    if output is not None:
        item["output"] = output
    return tool(title="Run", tool_kind="execute", status="in_progress", content=[item])


def diff_entry(old: str | None, new: str, path: str = "/repo/src/app.py") -> ToolCallEntry:
    item = {"type": "diff", "path": path, "oldText": old, "newText": new}
    return tool(title="Edit app.py", tool_kind="edit", status="completed", content=[item])


MARKDOWN = (
    "# Big title\n\nSome *text*.\n\n- first item\n- second item\n\n"
    "```python\ndef hello():\n    return 42\n```\n"
)

ALL_ENTRIES: list[Entry] = [
    user("Hello there, please fix the failing tests in the project and explain what went wrong."),
    user("", {"type": "image", "data": "", "mimeType": "image/png"}),
    UserEntry(content=[]),
    assistant(("thought", "Let me think\nabout it"), ("message", MARKDOWN * 2)),
    AssistantEntry(),
    tool(
        title="Run the whole test suite with coverage and a very long title",
        tool_kind="execute",
        status="in_progress",
        locations=[{"path": "/very/long/path/" * 8 + "file.py", "line": 12}],
        content=[
            {"type": "content", "content": {"type": "text", "text": "Result: **ok**"}},
            {"type": "content", "content": {"type": "image", "data": "", "mimeType": "image/png"}},
            {
                "type": "terminal",
                "terminalId": "t",
                "output": "\x1b[31mred\x1b[0m " * 40 + "\nok\n",
            },
            {"type": "diff", "path": "/a/b.py", "oldText": "x = 1\n", "newText": "x = 2\n" * 3},
        ],
        raw_input={"command": "pytest -q --cov", "cwd": "/repo"},
        raw_output="passed",
        permission={"options": []},
    ),
    tool(title="", tool_kind="nonsense", status="pending"),
    NoticeEntry("info", "Agent started"),
    NoticeEntry("warning", "Slow"),
    NoticeEntry("error", "Agent exited with code 1\nTraceback (most recent call last):\n  boom"),
]


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


# -- assistant ------------------------------------------------------------------------------


def test_markdown_heading_list_and_code() -> None:
    strips = render(assistant(("message", MARKDOWN)), 60)
    text = "\n".join(plain(strips))
    assert "Big title" in text
    assert "# Big title" not in text  # rendered, not shown as source
    assert "• first item" in text and "• second item" in text
    assert "def hello():" in text and "return 42" in text
    assert "```" not in text
    # Code is highlighted: "def" has a colour different from plain text.
    def_segment = segments_with(strips, "def")[0]
    assert def_segment.style is not None and def_segment.style.color != STYLES.text.color
    assert def_segment.style.bgcolor is not None


def test_markdown_numbered_list_and_blocks_are_separated_by_one_blank_line() -> None:
    lines = plain(render(assistant(("message", "Para one.\n\n\n\n1. a\n2. b\n\nPara two."))))
    assert lines[:6] == ["   Para one.", "", "    1. a", "    2. b", "", "   Para two."]


def test_thought_is_folded_to_one_line_by_default() -> None:
    thought = "First I will read the file\nthen edit it\nthen run the tests"
    lines = plain(render(assistant(("thought", thought), ("message", "Done."))))
    assert lines[0] == " ∴ Thinking · First I will read the file  (+2 lines)"
    assert lines[1] == ""
    assert lines[2] == "   Done."
    assert not any("then edit it" in line for line in lines)


def test_thought_folded_line_is_truncated_to_the_width() -> None:
    strips = render(assistant(("thought", "word " * 50 + "\nmore")), 40)
    lines = plain(strips)
    assert len(lines) == 2
    assert "…" in lines[0] and lines[0].endswith("(+1 lines)")


def test_thought_expanded_shows_everything_dimmed() -> None:
    thought = "First I will read the file\nthen edit it\nthen run the tests"
    strips = render(assistant(("thought", thought)), expanded=True)
    lines = plain(strips)
    assert lines[:4] == [
        " ∴ Thinking",
        "   First I will read the file",
        "   then edit it",
        "   then run the tests",
    ]
    style = segments_with(strips, "then edit it")[0].style
    assert style is not None and style.italic and style.color == STYLES.thought.color


def test_reveal_shows_only_the_first_code_points() -> None:
    entry = assistant(("message", "Hello wonderful world"))
    assert "Hello won" in text_of(entry, reveal={0: 9})
    assert "wonderful" not in text_of(entry, reveal={0: 9})
    assert "Hello wonderful world" in text_of(entry, reveal=None)
    assert "Hello wonderful world" in text_of(entry, reveal={})


def test_reveal_zero_hides_the_chunk() -> None:
    entry = assistant(("thought", "pondering"), ("message", "Answer"))
    text = text_of(entry, reveal={0: 9, 1: 0})
    assert "pondering" in text and "Answer" not in text
    lines = plain(render(entry, reveal={0: 0, 1: 0}))
    assert lines == ["", ""]


def test_reveal_counts_code_points_of_wide_text() -> None:
    entry = assistant(("message", "日本語のテキスト"))
    assert "日本語" in text_of(entry, reveal={0: 3})
    assert "日本語の" not in text_of(entry, reveal={0: 3})


def test_markdown_block_cache() -> None:
    renderer = EntryRenderer()
    paragraphs = [f"Paragraph number {i} with **bold** words." for i in range(50)]
    text = "\n\n".join(paragraphs)
    render(assistant(("message", text)), 80, renderer)
    assert renderer.markdown_renders == 50
    render(assistant(("message", text)), 80, renderer)
    assert renderer.markdown_renders == 50
    render(assistant(("message", text + " more")), 80, renderer)
    assert renderer.markdown_renders == 51
    render(assistant(("message", text + " more and more")), 80, renderer)
    assert renderer.markdown_renders == 52
    render(assistant(("message", text + " more and more")), 100, renderer)
    assert renderer.markdown_renders == 102


def test_markdown_block_cache_while_streaming_with_reveal() -> None:
    renderer = EntryRenderer()
    text = "\n\n".join(f"Para {i}." for i in range(20))
    entry = assistant(("message", text))
    render(entry, 80, renderer, reveal={0: len(text) - 3})
    before = renderer.markdown_renders
    render(entry, 80, renderer, reveal={0: len(text) - 2})
    render(entry, 80, renderer, reveal={0: len(text)})
    assert renderer.markdown_renders == before + 2


def test_clear_drops_the_cache() -> None:
    renderer = EntryRenderer()
    entry = assistant(("message", "a\n\nb"))
    render(entry, 80, renderer)
    renderer.clear()
    render(entry, 80, renderer)
    assert renderer.markdown_renders == 4


def test_block_cache_is_bounded_and_streaming_does_not_flood_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(markdown_module, "BLOCK_CACHE_SIZE", 10)
    renderer = EntryRenderer()
    cache = renderer._markdown._blocks
    render(assistant(("message", "\n\n".join(f"Block {i}" for i in range(30)))), 80, renderer)
    assert len(cache) == 10
    cache.clear()
    text = "First block.\n\n" + "streaming words " * 40
    for end in range(len("First block.\n\n") + 1, len(text), 7):
        render(assistant(("message", text[:end])), 80, renderer)
    assert list(key[0] for key in cache) == ["First block."]


@pytest.mark.parametrize(
    "block",
    [
        "Plain prose that wraps over several lines of the narrow width we use here.",
        "A paragraph\nwith a soft break and  two spaces inside.",
        "“Quoted” text, (parenthesised) and 日本語の文章も。",
        "# Title",
        "## Heading with closing hashes ##",
        "###### Small",
    ],
)
def test_plain_blocks_render_exactly_like_rich_markdown(
    block: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert markdown_module.simple_block(block) is not None
    fast = render(assistant(("message", block)), 30)
    monkeypatch.setattr(markdown_module, "simple_block", lambda _block: None)
    slow = render(assistant(("message", block)), 30)
    assert [list(strip) for strip in fast] == [list(strip) for strip in slow]


@pytest.mark.parametrize(
    "block",
    [
        "- item",
        "1. item",
        "a\n- b",
        "Title\n===",
        "a  \nb",
        "#tag",
        "a `b`",
        "    code",
        "> q",
        "a | b",
        "**bold**",
        "a_b",
        "[x](y)",
        "&amp;",
        "<b>x</b>",
        "~~s~~",
        "a\\b",
        "2024 was a year",
    ],
)
def test_markdown_syntax_is_never_taken_as_plain(block: str) -> None:
    assert markdown_module.simple_block(block) is None


def test_split_blocks_respects_fences_and_continuations() -> None:
    assert split_blocks("a\n\nb\n\n\nc") == ["a", "b", "c"]
    fenced = "```py\nx = 1\n\ny = 2\n```"
    assert split_blocks(f"intro\n\n{fenced}\n\nafter") == ["intro", fenced, "after"]
    assert split_blocks("~~~\none\n\ntwo") == ["~~~\none\n\ntwo"]  # unclosed: to the end
    assert split_blocks("````\n```\n\n```\n````\n\nz") == ["````\n```\n\n```\n````", "z"]
    assert split_blocks("1. item\n\n   more of the item\n\n2. next") == [
        "1. item\n\n   more of the item",
        "2. next",
    ]
    assert split_blocks("") == [] and split_blocks("\n\n") == []


def test_streaming_an_unclosed_code_fence_renders_as_code() -> None:
    text = text_of(assistant(("message", "Look:\n\n```python\nprint('hi')\n\nprint('there')")))
    assert "print('hi')" in text and "print('there')" in text and "```" not in text


# -- tool calls ---------------------------------------------------------------------------------

STATUS_LABELS = {
    "pending": "○ pending",
    "in_progress": "running",
    "completed": "✓ done",
    "failed": "✗ failed",
    "canceled": "⊘ canceled",
    "rejected": "✗ rejected",
    "waiting_for_confirmation": "? waiting for you",
}


@pytest.mark.parametrize(("status", "label"), STATUS_LABELS.items())
def test_tool_call_header_shows_icon_title_and_status(status: str, label: str) -> None:
    entry = tool(title="Read config.toml", tool_kind="read", status=status)
    header = plain(render(entry))[0]
    assert header.startswith(f" {KIND_ICONS['read']} Read config.toml")
    assert header.rstrip().endswith(label)
    badge = segments_with(render(entry), label.split()[-1])[0].style
    assert badge is not None
    expected = {
        "completed": STYLES.status_done,
        "failed": STYLES.status_failed,
        "waiting_for_confirmation": STYLES.waiting_badge,
    }.get(status)
    if expected is not None:
        assert badge.color == expected.color


def test_pending_permission_shows_waiting_status_and_line() -> None:
    entry = tool(title="Edit", tool_kind="edit", status="pending", permission={"options": []})
    strips = render(entry)
    lines = plain(strips)
    assert "? waiting for you" in lines[0]
    assert "   ⚠ Waiting for your decision — answer in the dialog" in lines
    style = segments_with(strips, "Waiting for your decision")[0].style
    assert style is not None and style.color == STYLES.status_waiting.color


def test_every_kind_has_an_icon_of_one_cell() -> None:
    for kind, icon in KIND_ICONS.items():
        header = plain(render(tool(title="x", tool_kind=kind)))[0]
        assert header.startswith(f" {icon} x")
    assert plain(render(tool(title="x", tool_kind="bogus")))[0].startswith(
        f" {KIND_ICONS['other']} x"
    )


def test_spinner_frame_changes_the_running_glyph() -> None:
    entry = tool(title="Run", tool_kind="execute", status="in_progress")
    first = plain(render(entry, spinner_frame=0))[0]
    second = plain(render(entry, spinner_frame=1))[0]
    assert f"{SPINNER_FRAMES[0]} running" in first
    assert f"{SPINNER_FRAMES[1]} running" in second
    assert f"{SPINNER_FRAMES[3]} running" in plain(render(entry, spinner_frame=13))[0]


def test_long_title_is_truncated_and_shown_in_full_when_expanded() -> None:
    title = "Run a command with a really long title " * 3
    lines = plain(render(tool(title=title, tool_kind="execute", status="completed"), 50))
    assert lines[0].endswith("✓ done") and "…" in lines[0]
    expanded = "\n".join(plain(render(tool(title=title), 200, expanded=True)))
    assert title.strip() in expanded


def test_narrow_header_puts_the_badge_below() -> None:
    lines = plain(render(tool(title="Read something", status="waiting_for_confirmation"), 20))
    assert lines[0].startswith(" ◆ Read something")
    assert "waiting" in lines[1]


def test_locations_are_listed_and_long_paths_shortened_from_the_left() -> None:
    long_path = "/home/user/projects/" + "deep/" * 20 + "target.py"
    entry = tool(
        title="Read",
        tool_kind="read",
        locations=[{"path": "src/a.py", "line": 3}, {"path": long_path}],
    )
    lines = plain(render(entry, 60))
    assert "   src/a.py:3" in lines
    shortened = next(line for line in lines if "target.py" in line)
    assert shortened.strip().startswith("…") and shortened.endswith("deep/target.py")


def test_text_content_is_markdown_and_other_blocks_are_chips() -> None:
    entry = tool(
        title="Fetch",
        tool_kind="fetch",
        content=[
            {
                "type": "content",
                "content": {"type": "text", "text": "Found **3** results:\n\n- a\n- b"},
            },
            {"type": "content", "content": {"type": "image", "data": "", "mimeType": "image/png"}},
            {
                "type": "content",
                "content": {"type": "resource_link", "uri": "https://x/y/z.html", "name": "z.html"},
            },
        ],
    )
    lines = plain(render(entry))
    assert "   Found 3 results:" in lines
    assert any("• a" in line for line in lines)
    assert "   [image]" in lines and "   @z.html" in lines


def test_diff_shows_coloured_added_and_removed_lines() -> None:
    strips = render(diff_entry("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\n"))
    lines = plain(strips)
    assert lines[1].startswith("   /repo/src/app.py")
    assert "+1" in lines[1] and "−1" in lines[1]
    assert "   @@ -1,3 +1,3 @@" in lines
    assert "   -b = 2" in lines and "   +b = 20" in lines and "    a = 1" in lines
    added = segments_with(strips, "+b = 20")[0].style
    removed = segments_with(strips, "-b = 2")[0].style
    hunk = segments_with(strips, "@@")[0].style
    assert added is not None and added.color == STYLES.diff_add.color
    assert added.bgcolor == STYLES.diff_add.bgcolor
    assert removed is not None and removed.color == STYLES.diff_remove.color
    assert hunk is not None and hunk.color == STYLES.diff_hunk.color
    # The added line's background runs to the right edge.
    row = strips[lines.index("   +b = 20")]
    assert list(row)[-1].style.bgcolor == STYLES.diff_add.bgcolor  # type: ignore[union-attr]


def test_diff_of_a_new_file() -> None:
    lines = plain(render(diff_entry(None, "print('hi')\n")))
    assert "new file" in lines[1]
    assert "   +print('hi')" in lines
    assert not any(line.strip().startswith(("---", "+++")) for line in lines)


def test_diff_missing_trailing_newline() -> None:
    lines = plain(render(diff_entry("x\n", "x\ny")))
    assert "   +y" in lines
    assert "   \\ No newline at end of file" in lines


def test_diff_without_changes() -> None:
    assert "no changes" in plain(render(diff_entry("same\n", "same\n")))[1]


def test_long_diff_is_bounded_unless_expanded() -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    new = "".join(f"LINE {i}\n" for i in range(100))
    entry = diff_entry(old, new)
    lines = plain(render(entry))
    diff_lines = [line for line in lines if line.startswith(("   +", "   -", "   @"))]
    assert len(diff_lines) == 40
    assert f"   … {201 - 40} more lines (expand to see all)" in lines
    expanded = plain(render(entry, expanded=True))
    assert "   +LINE 99" in expanded
    assert not any("more lines" in line for line in expanded)


def test_terminal_keeps_ansi_colours() -> None:
    strips = render(terminal("plain \x1b[31mred text\x1b[0m done\n"))
    red = segments_with(strips, "red text")[0].style
    assert red is not None and red.color is not None
    assert red.color.number == Color.parse("red").number == 1
    assert "   │ plain red text done" in plain(strips)


def test_terminal_shows_the_last_lines_unless_expanded() -> None:
    output = "".join(f"out {i}\n" for i in range(30))
    entry = terminal(output, exitStatus={"exitCode": 0, "signal": None})
    lines = plain(render(entry))
    assert "   │ … 18 more lines" in lines
    assert "   │ out 29" in lines and "   │ out 18" in lines and "   │ out 17" not in lines
    expanded = plain(render(entry, expanded=True))
    assert "   │ out 0" in expanded and not any("more lines" in line for line in expanded)


def test_terminal_carriage_return_keeps_the_last_drawing() -> None:
    lines = plain(render(terminal("progress 10%\rprogress 100%\r\nnext\n")))
    assert "   │ progress 100%" in lines and "   │ next" in lines


@pytest.mark.parametrize(
    ("exit_status", "label", "style_name"),
    [
        ({"exitCode": 0, "signal": None}, "exit 0", "status_done"),
        ({"exitCode": 3, "signal": None}, "exit 3", "status_failed"),
        ({"exitCode": None, "signal": "SIGTERM"}, "killed by SIGTERM", "status_failed"),
        (None, "running…", "status_running"),
    ],
)
def test_terminal_exit_status(
    exit_status: Mapping[str, Any] | None, label: str, style_name: str
) -> None:
    extra = {"exitStatus": exit_status} if exit_status is not None else {}
    strips = render(terminal("hello\n", **extra))
    lines = plain(strips)
    assert lines[-2].startswith("   ╰ ") and label in lines[-2]
    style = segments_with(strips, label.split()[-1])[0].style
    assert style is not None and style.color == getattr(STYLES, style_name).color


def test_terminal_truncated_note() -> None:
    lines = plain(
        render(terminal("x\n", truncated=True, exitStatus={"exitCode": 0, "signal": None}))
    )
    assert "exit 0 (output truncated)" in lines[-2]


def test_terminal_output_not_available() -> None:
    lines = plain(render(terminal(None)))
    assert "   terminal term-1: output not available" in lines


def test_terminal_with_empty_output() -> None:
    lines = plain(render(terminal("", exitStatus={"exitCode": 0, "signal": None})))
    assert lines[1].strip() == "exit 0"


def test_raw_input_folded_and_expanded() -> None:
    entry = tool(
        title="Run",
        tool_kind="execute",
        raw_input={"command": "ls", "args": ["-la"]},
        raw_output={"exitCode": 0},
    )
    lines = plain(render(entry))
    assert '   ▸ input: {"command": "ls", "args": ["-la"]}' in lines
    assert '   ▸ output: {"exitCode": 0}' in lines
    narrow = plain(render(entry, 30))
    folded = next(line for line in narrow if "input" in line)
    assert folded.endswith("…")
    expanded = plain(render(entry, expanded=True))
    assert "   ▾ input:" in expanded
    assert '       "command": "ls",' in expanded
    assert "   ▾ output:" in expanded


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


# -- performance ---------------------------------------------------------------------------------


def test_rendering_is_fast_enough() -> None:
    reply = "\n\n".join(
        f"## Step {i}\n\nWe change `module_{i}` so that **it** works, see [docs](http://x/{i}).\n\n"
        f"```python\ndef f_{i}(x):\n    return x + {i}\n```"
        for i in range(14)
    )
    assert len(reply) > 1500
    old = "".join(f"line {i} = {i}\n" for i in range(300))
    edit = diff_entry(old, old.replace("line 150", "LINE 150"))
    renderer = EntryRenderer()
    render(assistant(("message", reply)), 100, renderer)  # warm lexers and themes
    start = time.perf_counter()
    for i in range(10):
        render(assistant(("message", reply + f" {i}")), 100, renderer)
        render(edit, 100 + i, renderer)
    streaming = (time.perf_counter() - start) / 10
    start = time.perf_counter()
    for _ in range(5):
        renderer.clear()
        render(assistant(("message", reply)), 100, renderer)
    cold = (time.perf_counter() - start) / 5
    # Generous bounds for slow CI; typically ~1 ms streaming and ~5 ms cold.
    assert streaming < 0.05
    assert cold < 0.1


def test_paths_inside_the_working_directory_are_shown_relative() -> None:
    from acp_tui.ui.render.tools import display_path

    assert display_path("/work/app/src/x.py", "/work/app") == "src/x.py"
    assert display_path("/work/app/src/x.py", "/work/app/") == "src/x.py"
    assert display_path("/work/application/x.py", "/work/app") == "/work/application/x.py"
    assert display_path("/etc/passwd", "/work/app") == "/etc/passwd"
    assert display_path("/work/app", "/work/app") == "/work/app"
    assert display_path("C:\\proj\\a.py", "C:\\proj") == "a.py"
    assert display_path("/x/y", None) == "/x/y"


def test_long_blocks_are_cut_into_pieces_at_line_boundaries() -> None:
    from acp_tui.ui.render.markdown import split_long

    paragraph = "\n".join(f"line {n:04d}" for n in range(1000))
    pieces = split_long(paragraph, limit=1000)
    assert all(len(p) <= 1000 for p in pieces)
    assert "\n".join(pieces) == paragraph
    code = "```python\n" + "\n".join(f"x = {n}" for n in range(500)) + "\n```"
    code_pieces = split_long(code, limit=1000)
    assert len(code_pieces) > 1
    assert all(p.startswith("```python\n") and p.endswith("\n```") for p in code_pieces)
    body = "\n".join(p.split("\n", 1)[1].rsplit("\n", 1)[0] for p in code_pieces)
    assert body == "\n".join(f"x = {n}" for n in range(500))
    assert split_long("short") == ["short"]


def test_a_streaming_reply_without_blank_lines_re_renders_only_its_last_piece() -> None:
    renderer = EntryRenderer()
    options = RenderOptions(width=80, styles=RenderStyles.default())
    text = "".join(f"{n:>19}\n" for n in range(5000))
    entry = AssistantEntry(chunks=[Chunk("message", text, None)])
    renderer.render(entry, options)
    before = renderer.markdown_renders
    entry.chunks[0].append("more\n")
    entry.version += 1
    lines = renderer.render(entry, options)
    assert renderer.markdown_renders - before == 1
    assert "more" in "".join(seg.text for seg in lines[-2])
