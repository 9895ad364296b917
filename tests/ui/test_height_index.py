"""The log's height index agrees with naive prefix sums, whatever the edits."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_tui.ui.height_index import HeightIndex


def naive_locate(heights: list[int], y: int) -> tuple[int, int]:
    start = 0
    for index, height in enumerate(heights):
        if y < start + height:
            return index, y - start
        start += height
    return len(heights), y - start


operations = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 50)),
        st.tuples(st.just("set"), st.integers(0, 10_000), st.integers(0, 50)),
    ),
    max_size=60,
)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 50), max_size=40), operations)
def test_matches_naive_prefix_sums(initial: list[int], ops: list[tuple[object, ...]]) -> None:
    index = HeightIndex(initial)
    heights = list(initial)
    for op in ops:
        if op[0] == "append":
            index.append(int(op[1]))  # type: ignore[call-overload]
            heights.append(int(op[1]))  # type: ignore[call-overload]
        elif heights:
            position = int(op[1]) % len(heights)  # type: ignore[call-overload]
            index.set(position, int(op[2]))  # type: ignore[call-overload]
            heights[position] = int(op[2])  # type: ignore[call-overload]
    assert len(index) == len(heights)
    assert index.total() == sum(heights)
    for i in range(len(heights) + 1):
        assert index.offset(i) == sum(heights[:i])
    for y in range(sum(heights) + 3):
        assert index.locate(y) == naive_locate(heights, y)


def test_a_large_index_is_cheap_to_build_and_query() -> None:
    index = HeightIndex([3] * 100_000)
    assert index.total() == 300_000
    assert index.locate(299_999) == (99_999, 2)
    index.set(0, 10)
    assert index.locate(10) == (1, 0)
    assert index.offset(99_999) == 10 + 3 * 99_998
