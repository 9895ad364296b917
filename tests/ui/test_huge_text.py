"""Issue 12, point 7: one huge single-line chunk does not freeze the TUI.

A 16 MB chunk without a line break used to take minutes to wrap, the app
frozen. Now its rows are made only when they are drawn: these tests show
the chunk in the log with a bounded number of rows ever made, keys still
reaching the prompt, and (on a real pty) Ctrl+Q ending the program while
the chunk is on its way.
"""

from __future__ import annotations

import math
from pathlib import Path

from acp_tui.core.host import Host
from acp_tui.core.model.entries import AssistantEntry, Chunk
from acp_tui.ui.app import AcpApp
from acp_tui.ui.render import EntryRenderer, RenderOptions, RenderStyles
from acp_tui.ui.render.long_text import LazyLines, LazyRows, row_starts
from tests.fake_agents import HOSTILE_AGENT, agent_spec
from tests.ui.helpers import PtyApp, idle, ready, send, until

SIXTEEN_MB = 16 * 1024 * 1024


def _shown(app: AcpApp) -> str:
    """The log's rows joined again (a row may end inside a word)."""
    log = app.log_view
    return "".join(log.render_line(y).text.strip() for y in range(log.size.height))


async def test_a_16_mb_chunk_is_shown_and_only_what_is_on_screen_is_made(
    tmp_path: Path,
) -> None:
    app = AcpApp(agent_spec(HOSTILE_AGENT), cwd=tmp_path, host=Host())
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, f"huge {SIXTEEN_MB}")
        await until(pilot, lambda: idle(app) and "END-OF-CHUNK" in _shown(app), timeout=90)
        log = app.log_view
        assert app.session is not None
        index = next(
            i for i, e in enumerate(app.session.thread.entries) if isinstance(e, AssistantEntry)
        )
        assert len(app.session.thread.entries[index].chunks[0].text) == SIXTEEN_MB
        rows = log.strips(index)
        assert isinstance(rows, LazyRows)
        assert len(rows) > 100_000  # some 140,000 rows at this width...
        assert rows.made <= 3 * log.size.height  # ...of which only those shown were made
        # Input is not blocked: a key shows in the prompt.
        await pilot.press("x")
        await until(pilot, lambda: app.prompt.text.endswith("x"))
        # The top of the chunk, then back to the end: still only screens' worth made.
        log.action_scroll_home()
        await pilot.pause()
        assert "lorem ipsum dolor" in _shown(app)
        log.action_scroll_end()
        await pilot.pause()
        assert "END-OF-CHUNK" in _shown(app)
        assert log.strips(index).made <= 8 * log.size.height  # type: ignore[attr-defined]


def test_rows_of_a_long_text_wrap_at_spaces_and_fold_long_words() -> None:
    text = "lorem ipsum dolor sit amet " * 10 + "x" * 25
    lines = LazyLines(text, 12, None)
    rows = ["".join(s.text for s in lines.line(i)) for i in range(len(lines))]
    assert all(len(row) == 12 for row in rows)
    assert rows[0] == "lorem ipsum " and rows[1] == "dolor sit   "
    assert rows[-3:] == ["x" * 12, "x" * 12, "x" + " " * 11]
    # Wide characters take two cells; a row never splits one.
    assert list(row_starts("漢字かな漢字", 5)) == [0, 2, 4]


def test_a_long_line_among_markdown_is_lazy_and_laid_out_like_the_rest() -> None:
    long_line = "word " * 10_000  # 50,000 characters, no line break
    entry = AssistantEntry(chunks=[Chunk("message", f"**intro**\n\n{long_line}\n\noutro", None)])
    rows = EntryRenderer().render(entry, RenderOptions(width=60, styles=RenderStyles.default()))
    assert isinstance(rows, LazyRows)
    text = ["".join(segment.text for segment in strip) for strip in rows]
    assert all(sum(s.cell_length for s in strip) == 60 for strip in rows)
    assert text[0].strip() == "intro"  # Markdown as before (bold, without the stars)
    body = [row for row in text if row.strip().startswith("word")]
    assert len(body) == math.ceil(50_000 / 55)  # rows of 57 cells: 11 words (55) each
    assert all(row.startswith("   word") for row in body)  # gutter and indent, as the rest
    assert text[-2].strip() == "outro" and not text[-1].strip()


def test_ctrl_q_ends_the_program_while_a_16_mb_chunk_arrives(tmp_path: Path) -> None:
    app = PtyApp(HOSTILE_AGENT, tmp_path)
    try:
        app.wait_for(b"is ready")
        app.type(f"huge {SIXTEEN_MB} solid\r".encode())
        app.read(1.0)  # the chunk is on its way (or being drawn)
        app.type(b"\x11")  # Ctrl+Q
        assert app.wait_gone(), "Ctrl+Q did not end the program"
    finally:
        app.kill()
