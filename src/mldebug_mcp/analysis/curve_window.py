"""The median of a large window of floats that slides in batches, in O(log n) a value.

The window is split into its smaller and its larger half, each a SortedBlocks: sorted arrays of
a few hundred doubles (the layout of sortedcontainers), so that adding or removing a value costs
a bisection and a short memmove, and the median is read off the ends of the two halves. The
per-value work runs inside map() over C functions (bisect, insort, array.pop), not in bytecode.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Sequence
from itertools import repeat

BLOCK = 512  # values per block: long enough for few blocks, short enough for a cheap memmove


class SortedBlocks:
    """A sorted multiset of floats as arrays of BLOCK to 2 * BLOCK values; `maxes` holds the last
    value of each block, so a bisection over it finds the block of a value."""

    def __init__(self, ordered: Sequence[float] = ()) -> None:
        self._fill(ordered)

    def _fill(self, ordered: Sequence[float]) -> None:
        self.blocks = [array("d", ordered[k : k + BLOCK]) for k in range(0, len(ordered), BLOCK)]
        self.maxes = [block[-1] for block in self.blocks]
        self.size = len(ordered)

    def _blocks_of(self, xs: Sequence[float]) -> list[int]:
        last = len(self.maxes) - 1
        return [min(b, last) for b in map(bisect_left, repeat(self.maxes), xs)]

    def add(self, xs: Sequence[float]) -> None:
        if not xs:
            return
        if not self.blocks:
            self._fill(sorted(xs))
            return
        where = self._blocks_of(xs)
        for _ in map(insort, map(self.blocks.__getitem__, where), xs):
            pass
        self.maxes[-1] = self.blocks[-1][-1]  # a value above every block went to the last one
        for b in sorted(set(where), reverse=True):
            if len(self.blocks[b]) > 2 * BLOCK:
                self._split(b)
        self.size += len(xs)

    def _split(self, b: int) -> None:
        block = self.blocks[b]
        parts = [block[k : k + BLOCK] for k in range(0, len(block), BLOCK)]
        self.blocks[b : b + 1] = parts
        self.maxes[b : b + 1] = [part[-1] for part in parts]

    def remove(self, xs: Sequence[float]) -> None:
        """Remove values that are in the multiset (each as often as it is listed)."""
        distinct = list(dict.fromkeys(xs))
        self._remove_distinct(distinct)
        if len(distinct) < len(xs):  # a repeated value may span two blocks: one copy at a time
            for x in (Counter(xs) - Counter(distinct)).elements():
                self._remove_distinct([x])

    def _remove_distinct(self, xs: list[float]) -> None:
        """Remove distinct values: each is found in its block before any is removed."""
        if not xs:
            return
        where = self._blocks_of(xs)
        at = list(map(bisect_left, map(self.blocks.__getitem__, where), xs))
        # from the back of each block forward, so that no deletion moves a position still to come
        order = sorted(zip(where, at), reverse=True)
        for _ in map(array.pop, [self.blocks[b] for b, _ in order], [p for _, p in order]):
            pass
        for b in sorted(set(where), reverse=True):
            if self.blocks[b]:
                self.maxes[b] = self.blocks[b][-1]
            else:
                del self.blocks[b], self.maxes[b]
        self.size -= len(xs)

    def first(self) -> float:
        return self.blocks[0][0]

    def last(self) -> float:
        return self.maxes[-1]

    def pop_first(self) -> float:
        block = self.blocks[0]
        x = block.pop(0)
        if not block:
            del self.blocks[0], self.maxes[0]
        self.size -= 1
        return x

    def pop_last(self) -> float:
        block = self.blocks[-1]
        x = block.pop()
        if block:
            self.maxes[-1] = block[-1]
        else:
            del self.blocks[-1], self.maxes[-1]
        self.size -= 1
        return x


class MedianWindow:
    """A multiset of floats whose median is asked for between batches of additions and removals.

    Every value of `low` is <= every value of `high`; after balancing, `low` holds the middle value
    (or the lower of the two middle ones)."""

    def __init__(self, ordered: Sequence[float] = ()) -> None:
        middle = (len(ordered) + 1) // 2
        self.low, self.high = SortedBlocks(ordered[:middle]), SortedBlocks(ordered[middle:])

    def add(self, xs: Sequence[float]) -> None:
        if self.low.size:
            pivot = self.low.last()
            self.low.add([x for x in xs if x <= pivot])
            self.high.add([x for x in xs if x > pivot])
        else:  # only `high` holds values, if any: the smaller ones go below it
            pivot = self.high.first() if self.high.size else math.inf
            self.low.add([x for x in xs if x < pivot])
            self.high.add([x for x in xs if x >= pivot])

    def remove(self, xs: Sequence[float]) -> None:
        """Remove values that are in the window."""
        if not self.low.size:
            self.high.remove(xs)
            return
        pivot = self.low.last()
        below = [x for x in xs if x < pivot]
        above = [x for x in xs if x > pivot]
        self.low.remove(below)
        self.high.remove(above)
        for _ in range(len(xs) - len(below) - len(above)):  # copies of the pivot: low holds its top ones
            if self.low.size and self.low.last() == pivot:
                self.low.pop_last()
            else:
                self.high.remove([pivot])

    def median(self) -> float:
        low, high = self.low, self.high
        while low.size > high.size + 1:
            high.add([low.pop_last()])
        while high.size > low.size:
            low.add([high.pop_first()])
        return low.last() if low.size > high.size else (low.last() + high.first()) / 2
