"""Tool calls as text, one home for every surface (acp_tui.core.model.tool_text)."""

from __future__ import annotations

from acp_tui.core.model.entries import ToolCallEntry
from acp_tui.core.model.tool_text import (
    KIND_ICONS,
    diff_lines,
    exit_label,
    kind_icon,
    kind_label,
)
from acp_tui.core.storage.transcript import to_markdown


def test_diff_hunks_of_a_change_a_new_file_and_no_change() -> None:
    assert diff_lines("a\nb\nc\n", "a\nB\nc\n") == [
        "@@ -1,3 +1,3 @@\n",
        " a\n",
        "-b\n",
        "+B\n",
        " c\n",
    ]
    assert diff_lines(None, "new\n") == ["@@ -0,0 +1 @@\n", "+new\n"]
    assert diff_lines(None, "") == []
    assert diff_lines("same\n", "same\n") == []


def test_a_missing_last_newline_is_said_as_git_says_it() -> None:
    assert diff_lines("x\n", "x\ny") == [
        "@@ -1 +1,2 @@\n",
        " x\n",
        "+y\n",
        "\\ No newline at end of file\n",
    ]


def test_diff_text_is_cleaned_first() -> None:
    lines = diff_lines("", "\x1b[31mred\x1b[0m\r\nbell\x07\n")
    assert lines == ["@@ -0,0 +1,2 @@\n", "+red\n", "+bell␇\n"]


def test_exit_labels() -> None:
    assert exit_label(None) == "still running"
    assert exit_label({"exitCode": 0, "signal": None}) == "exit 0"
    assert exit_label({"exitCode": 2}) == "exit 2"
    assert exit_label({"exitCode": None, "signal": "SIG\x1b[2JTERM"}) == "killed by SIGTERM"
    assert exit_label({}) == "exited"


def test_every_kind_has_one_icon_and_a_label_and_others_fall_back() -> None:
    assert set(KIND_ICONS) >= {"read", "edit", "delete", "execute", "other"}
    assert kind_icon("no-such-kind") == KIND_ICONS["other"]
    assert kind_label("switch_mode") == "switch mode" and kind_label("x") == "tool"
    assert all(len(icon) == 1 for icon in KIND_ICONS.values())


def test_the_export_uses_the_same_icon_diff_and_exit_label() -> None:
    call = ToolCallEntry(
        tool_call_id="t1",
        title="Edit and run",
        tool_kind="edit",
        status="completed",
        content=[
            {"type": "diff", "path": "/w/a.txt", "oldText": "a\n", "newText": "b\n"},
            {
                "type": "terminal",
                "terminalId": "x",
                "output": "ok\n",
                "exitStatus": {"exitCode": 3},
            },
        ],
    )
    text = to_markdown([call], title="t", agent="a", cwd="/w")
    assert f"### {kind_icon('edit')} Edit and run — completed" in text
    assert "".join(diff_lines("a\n", "b\n")) in text
    assert "*exit 3*" in text
