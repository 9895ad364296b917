"""Tool calls: header, status and icon, locations, content, diffs, terminals, raw input."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from rich.color import Color

from acp_tui.ui.render import (
    KIND_ICONS,
    SPINNER_FRAMES,
)
from tests.ui.render_helpers import (
    STYLES,
    diff_entry,
    plain,
    render,
    segments_with,
    terminal,
    tool,
)

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


def test_paths_inside_the_working_directory_are_shown_relative() -> None:
    from acp_tui.ui.render.tools import display_path

    assert display_path("/work/app/src/x.py", "/work/app") == "src/x.py"
    assert display_path("/work/app/src/x.py", "/work/app/") == "src/x.py"
    assert display_path("/work/application/x.py", "/work/app") == "/work/application/x.py"
    assert display_path("/etc/passwd", "/work/app") == "/etc/passwd"
    assert display_path("/work/app", "/work/app") == "/work/app"
    assert display_path("C:\\proj\\a.py", "C:\\proj") == "a.py"
    assert display_path("/x/y", None) == "/x/y"
