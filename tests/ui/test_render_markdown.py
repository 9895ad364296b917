"""Replies as Markdown: blocks and their cache, thoughts, the reveal, long blocks cut in pieces."""

from __future__ import annotations

import time

import pytest

import acp_tui.ui.render.markdown as markdown_module
from acp_tui.core.model.entries import (
    AssistantEntry,
    Chunk,
)
from acp_tui.ui.render import (
    EntryRenderer,
    RenderOptions,
    RenderStyles,
)
from acp_tui.ui.render.markdown import split_blocks
from tests.ui.render_helpers import (
    MARKDOWN,
    STYLES,
    assistant,
    diff_entry,
    plain,
    render,
    segments_with,
    text_of,
)

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
