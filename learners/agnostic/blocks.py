"""Value-independent partition of a sample into disjoint blocks (Algorithms 1–4).

The blocks are consecutive runs of a uniformly random permutation of range(n): the assignment
depends on n only, never on the data values. Under substitute-one neighbours (same n) a changed
record therefore lands in exactly one block, which is what parallel composition
(``ParallelComposition``; McSherry 2009) needs: the whole learner is (max_b ε_b, max_b δ_b)-DP.
Records left over after the blocks (fewer than the number of blocks) are not used.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from dpledger.learners import releases
from dpledger.learners.randomness import Randomness


def partition(n: int, sizes: Sequence[int], rng: Randomness) -> list[np.ndarray]:
    """Disjoint index blocks of the given sizes from a random permutation of range(n)."""
    if any(size < 1 for size in sizes):
        raise ValueError(f"every block needs at least one record, got sizes {list(sizes)} (increase n)")
    if sum(sizes) > n:
        raise ValueError(f"blocks of total size {sum(sizes)} do not fit in n={n} records")
    order = rng.permutation(n)
    edges = np.cumsum([0, *sizes])
    blocks = [order[start:stop] for start, stop in itertools.pairwise(edges)]
    releases.note_partition(blocks)
    return blocks


def equal_blocks(total: int, count: int, minimum: int, name: str) -> int:
    """⌊total/count⌋, refusing (naming ``name``) when it is below ``minimum``."""
    size = total // count
    if size < minimum:
        raise ValueError(
            f"{name}: {total} records give blocks of {size} < {minimum}; increase n or lower the block count"
        )
    return size


def weighted_blocks(total: int, weights: Sequence[float], minimum: int, name: str) -> list[int]:
    """⌊total·w_b/Σw⌋ for every weight w_b (public), refusing (naming ``name``) when a block is below
    ``minimum``."""
    scale = total / sum(weights)
    sizes = [int(scale * weight) for weight in weights]
    if min(sizes) < minimum:
        raise ValueError(
            f"{name}: {total} records give a block of {min(sizes)} < {minimum}; increase n or lower the block count"
        )
    return sizes
