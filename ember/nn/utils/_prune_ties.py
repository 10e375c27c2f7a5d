"""Which entries torch's ``topk`` picks where scores tie: the masks of ``prune``'s L1/Ln and
global methods are the sets topk picks, so they equal torch's only if the ties go the same way.
"""

from __future__ import annotations

import ember
from ember.tensor import Tensor


# A mask is the set of entries topk picks. Where the k-th score is tied with scores left out,
# which of the tied entries torch picks is decided by its CPU kernel: std::partial_sort when
# k * 64 <= n, else std::nth_element, over (score, index) pairs compared by score alone (NaN
# above everything). ember's topk partitions differently, so on such ties the choice below
# replays those two libstdc++ algorithms (the GCC build torch ships for Linux) step by step.
def topk_indices(scores: Tensor, k: int, largest: bool) -> Tensor:
    """The indices of the ``k`` largest (or smallest) entries of the 1-d ``scores``, the same
    set torch's ``topk`` gives, ties included."""
    picked = ember.topk(scores, k, largest=largest, sorted=False)
    n = scores.numel()
    if k == 0 or k == n or scores.device.type == "meta":
        return picked.indices  # one possible set (a meta tensor holds no values to compare)
    edge = picked.values.min() if largest else picked.values.max()
    if edge.isnan():
        # NaN ranks highest: the edge is NaN only when picking smallest with NaNs picked
        tied_total, tied_picked = scores.isnan().sum(), picked.values.isnan().sum()
    else:
        tied_total, tied_picked = (scores == edge).sum(), (picked.values == edge).sum()
    if int(tied_total) == int(tied_picked):
        return picked.indices  # no tie crosses the cut: the set is unique
    values = scores.tolist()
    distinct = sorted({v for v in values if v == v})
    rank = {v: i for i, v in enumerate(distinct)}
    nan_rank = len(distinct)
    keys = [rank[v] if v == v else nan_rank for v in values]
    if largest:
        keys = [-key for key in keys]  # selecting the smallest keys throughout
    chosen = _libstdcxx_select(keys, k)
    return ember.tensor(sorted(chosen), dtype=ember.int64, device=scores.device)


def _libstdcxx_select(keys: list, k: int) -> list:
    """The indices that end in the first ``k`` places when libstdc++ selects the ``k``
    smallest ``keys`` the way torch's topk calls it."""
    items = [(key, i) for i, key in enumerate(keys)]
    if k * 64 <= len(items):
        _heap_select(items, 0, k, len(items))  # std::partial_sort's selection step
    else:
        _nth_element(items, k - 1)
    return [i for _, i in items[:k]]


def _sift(a: list, first: int, hole: int, length: int, item) -> None:
    # std::__adjust_heap (a max-heap on the key): move the hole to a leaf along the larger
    # children, then push `item` back up from there
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if a[first + child][0] < a[first + child - 1][0]:
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and a[first + parent][0] < item[0]:
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = item


def _heap_select(a: list, first: int, middle: int, last: int) -> None:
    # std::__heap_select: heapify [first, middle), then swap in each later item smaller than
    # the heap's top
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _sift(a, first, parent, length, a[first + parent])
    for i in range(middle, last):
        if a[i][0] < a[first][0]:
            item = a[i]
            a[i] = a[first]
            _sift(a, first, 0, length, item)


def _nth_element(a: list, nth: int) -> None:
    # std::nth_element = std::__introselect: median-of-three quickselect, falling back to a
    # heap select past 2*log2(n) rounds, and an insertion sort on the last <= 3 items
    first, last = 0, len(a)
    depth = 2 * (last.bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        x, y, z = first + 1, first + (last - first) // 2, last - 1
        kx, ky, kz = a[x][0], a[y][0], a[z][0]
        if kx < ky:
            median = y if ky < kz else (z if kx < kz else x)
        else:
            median = x if kx < kz else (z if ky < kz else y)
        a[first], a[median] = a[median], a[first]
        pivot = a[first][0]
        lo, hi = first + 1, last
        while True:  # std::__unguarded_partition around a[first]
            while a[lo][0] < pivot:
                lo += 1
            hi -= 1
            while pivot < a[hi][0]:
                hi -= 1
            if lo >= hi:
                break
            a[lo], a[hi] = a[hi], a[lo]
            lo += 1
        if lo <= nth:
            first = lo
        else:
            last = lo
    for i in range(first + 1, last):  # std::__insertion_sort
        item = a[i]
        if item[0] < a[first][0]:
            a[first + 1 : i + 1] = a[first:i]
            a[first] = item
        else:
            j = i
            while item[0] < a[j - 1][0]:
                a[j] = a[j - 1]
                j -= 1
            a[j] = item
