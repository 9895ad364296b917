"""The smooth-reveal formula and its state (AC-18, AC-21), as pure functions."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.core.model.entries import Chunk
from acp_tui.ui.reveal import RevealState, is_boundary, reveal_count, safe_cut


@pytest.mark.parametrize(
    ("backlog", "expected"),
    [(0, 0), (1, 1), (5, 1), (12, 1), (13, 2), (100, 8), (1000, 80), (1001, 81)],
)
def test_reveal_count_is_ceil_of_8_percent_at_least_one(backlog: int, expected: int) -> None:
    assert reveal_count(backlog) == expected


def test_a_burst_drains_in_a_bounded_number_of_frames() -> None:
    state = RevealState()
    state.set_target(0, "x" * 1000)
    frames = 0
    while state.step():
        frames += 1
    # Geometric decay (x0.92 a frame) down to 12 characters, then one a frame.
    geometric = math.ceil(math.log(12.5 / 1000) / math.log(0.92))
    assert geometric <= frames <= geometric + 13
    assert state.revealed == [1000]


CLUSTERS = {
    "combining acute": "e\u0301",
    "family ZWJ sequence": "👨\u200d👩\u200d👧\u200d👦",
    "skin tone": "👍🏽",
    "flag pair": "🇫🇷",
    "variation selector": "❤\ufe0f",
    "CRLF": "\r\n",
    "subdivision flag": "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",
    "devanagari spacing mark": "\u0915\u093f",
}


@pytest.mark.parametrize("cluster", list(CLUSTERS.values()), ids=list(CLUSTERS))
def test_cuts_never_split_a_cluster(cluster: str) -> None:
    text = "ab" + cluster + "cd"
    for inside in range(3, 2 + len(cluster)):
        assert not is_boundary(text, inside)
        assert safe_cut(text, inside) == 2 + len(cluster)
    assert is_boundary(text, 2) and is_boundary(text, 2 + len(cluster))


def test_two_flags_in_a_row_split_between_the_pairs() -> None:
    text = "🇫🇷🇩🇪"
    assert is_boundary(text, 2)
    assert not is_boundary(text, 1) and not is_boundary(text, 3)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", " ", "é", "e\u0301", "👍🏽", "🇫🇷", "👨\u200d👩\u200d👧", "漢", "\n"]),
        max_size=40,
    )
)
def test_every_frame_shows_whole_clusters(pieces: list[str]) -> None:
    text = "".join(pieces)
    boundaries = {0}
    position = 0
    for piece in pieces:
        position += len(piece)
        boundaries.add(position)
    state = RevealState()
    state.set_target(0, text)
    while state.step():
        assert state.revealed[0] in boundaries
    assert state.revealed[0] == len(text)


def test_ac21_snapshot_prefix_adds_only_the_suffix() -> None:
    state = RevealState()
    state.set_target(0, "Hello")
    state.flush()
    state.set_target(0, "Hello world")
    assert state.revealed == [5]
    assert state.backlog == len(" world")


def test_ac21_unrelated_text_replaces() -> None:
    state = RevealState()
    state.set_target(0, "Hello")
    state.step()
    state.set_target(0, "Goodbye")
    assert state.revealed == [7] and state.backlog == 0


def test_ac21_identical_text_does_nothing() -> None:
    state = RevealState()
    state.set_target(0, "Hello")
    state.step()
    before = list(state.revealed)
    state.set_target(0, "Hello")
    assert state.revealed == before


def test_a_new_chunk_flushes_the_ones_before_it() -> None:
    state = RevealState()
    state.set_target(0, "thinking about it")
    state.step()
    state.set_target(1, "answer")
    assert state.revealed[0] == len("thinking about it")
    assert state.revealed[1] == 0


def test_flush_shows_everything() -> None:
    state = RevealState()
    state.set_target(0, "x" * 500)
    assert state.flush() is True
    assert state.done and state.flush() is False


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    pieces=st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=700),
    starts=st.lists(st.integers(min_value=-3, max_value=30_000), min_size=1, max_size=6),
)
def test_a_chunks_end_reads_as_its_whole_text(pieces: list[str], starts: list[int]) -> None:
    """``Chunk.text_from(n)`` is ``text[n:]`` and ``length`` its length, however
    the pieces were folded into blocks (FOLD) and whether or not it was read whole."""
    chunk = Chunk("message", pieces[0], None)
    whole = pieces[0]
    for number, piece in enumerate(pieces[1:]):
        chunk.append(piece)
        whole += piece
        if number % 300 == 299:
            assert chunk.text == whole  # (folds the blocks into one)
    assert chunk.length == len(whole)
    for start in [*starts, len(whole) - 1, len(whole), 0]:
        assert chunk.text_from(start) == whole[max(start, 0) :]


def test_following_a_growing_chunk_reveals_what_it_grew_by() -> None:
    chunk = Chunk("message", "Hello", None)
    state = RevealState()
    state.follow(0, chunk.length, chunk.text_from)
    assert state.targets == [5] and state.revealed == [0]
    state.flush()
    chunk.append(", world")
    state.follow(0, chunk.length, chunk.text_from)
    assert state.targets == [12] and state.backlog == 7
    state.follow(0, chunk.length, chunk.text_from)  # nothing new: nothing changes
    assert state.backlog == 7
    while state.step():
        pass
    assert state.revealed == [12]


def test_following_a_shorter_text_replaces_it() -> None:
    state = RevealState()
    state.set_target(0, "a long first text")
    state.follow(0, 3, lambda start: "new"[start:])
    assert state.targets == [3] and state.done


def test_a_reveal_that_caught_up_goes_on_from_what_it_showed() -> None:
    """A stream that pauses long enough for its reveal to catch up (and end)
    goes on from what the entry showed: never from nothing (which hid the
    reply for a frame, then rendered all of it again)."""
    from acp_tui.ui.widgets.log_reveal import LogReveal

    chunk = Chunk("message", "x" * 5000, None)
    log = LogReveal()
    log.followed(3, [chunk])
    while not log.step()[1]:  # until it ends (caught up)
        pass
    assert 3 not in log.reveals and log.shown(3) == {0: 5000}
    chunk.append("y" * 10)
    log.followed(3, [chunk])
    assert log.shown(3) == {0: 5000}  # (the ten new characters come next frames)
    assert log.reveals[3].backlog == 10
    while not log.step()[1]:
        pass
    assert log.shown(3) == {0: 5010}
