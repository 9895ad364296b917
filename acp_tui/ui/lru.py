"""Textual's LRU cache, with ``set`` that replaces and iteration over its keys.

``textual.cache.LRUCache.set`` keeps the value of a key already there; here
it replaces it. Iterating gives the keys (tests look at what is cached).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TypeVar

from textual.cache import LRUCache

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class LRU(LRUCache[Key, Value]):
    __slots__ = ()

    def set(self, key: Key, value: Value) -> None:
        self.discard(key)
        super().set(key, value)

    def __setitem__(self, key: Key, value: Value) -> None:
        self.set(key, value)

    def __iter__(self) -> Iterator[Key]:
        return iter(list(self.keys()))
