"""Textual's LRU cache, iterable over its keys (for looking at it in tests).

``textual.cache.LRUCache.set`` keeps the value of a key already there: to
replace a value, ``discard`` the key first.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TypeVar

from textual.cache import LRUCache

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class LRU(LRUCache[Key, Value]):
    __slots__ = ()

    def __iter__(self) -> Iterator[Key]:
        return iter(list(self.keys()))
