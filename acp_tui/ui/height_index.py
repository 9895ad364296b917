"""Prefix sums of entry heights, for mapping a screen row to (entry, line).

A Fenwick (binary indexed) tree: appending an entry, changing one entry's
height, the y offset of an entry, and finding the entry at a given y are
all O(log n). The log changes one height at a time (the streaming entry,
an entry measured when it scrolls into view), so a 100,000-entry log costs
the same per frame as a 10-entry one.
"""

from __future__ import annotations

from collections.abc import Iterable


class HeightIndex:
    def __init__(self, heights: Iterable[int] = ()) -> None:
        self._heights: list[int] = []
        self._tree: list[int] = [0]
        self.reset(heights)

    def reset(self, heights: Iterable[int]) -> None:
        """Rebuild from scratch in O(n)."""
        self._heights = list(heights)
        tree = [0, *self._heights]
        size = len(tree)
        for i in range(1, size):
            parent = i + (i & -i)
            if parent < size:
                tree[parent] += tree[i]
        self._tree = tree

    def __len__(self) -> int:
        return len(self._heights)

    def height(self, index: int) -> int:
        return self._heights[index]

    def append(self, height: int) -> None:
        index = len(self._heights) + 1  # 1-based position of the new node
        # The node covers (index - lowbit, index]: its own height plus the
        # nodes already summed below it.
        total = height + self._prefix(index - 1) - self._prefix(index - (index & -index))
        self._heights.append(height)
        self._tree.append(total)

    def extend(self, heights: list[int]) -> None:
        """Append many heights: O(n) rebuild when that is cheaper than appends."""
        if len(heights) > 64:
            self.reset([*self._heights, *heights])
        else:
            for height in heights:
                self.append(height)

    def set(self, index: int, height: int) -> None:
        delta = height - self._heights[index]
        if not delta:
            return
        self._heights[index] = height
        position = index + 1
        size = len(self._tree)
        while position < size:
            self._tree[position] += delta
            position += position & -position

    def _prefix(self, count: int) -> int:
        total = 0
        tree = self._tree
        while count > 0:
            total += tree[count]
            count -= count & -count
        return total

    def offset(self, index: int) -> int:
        """The y of the first line of entry ``index`` (the sum of heights before it)."""
        return self._prefix(index)

    def total(self) -> int:
        return self._prefix(len(self._heights))

    def locate(self, y: int) -> tuple[int, int]:
        """(entry index, line within it) for content row ``y``.

        ``y`` past the end gives (len, y - total); an empty index gives (0, y).
        """
        position = 0
        remaining = y
        tree = self._tree
        size = len(tree)
        step = 1 << (size.bit_length())
        while step:
            following = position + step
            if following < size and tree[following] <= remaining:
                position = following
                remaining -= tree[following]
            step >>= 1
        return position, remaining
