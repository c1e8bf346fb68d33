"""Searching the neighbouring inputs of a Monte Carlo audit.

An audit certifies a bound on one set of pairs; a leak on a pair outside it is missed. Here the
pairs are searched, in three steps:

1. **Patterns.** The input families of the DP-testing literature: for query-answer vectors the
   patterns of StatDP (Ding et al. 2018, §5.1), which DP-Sniper reuses (Bichsel et al. 2021; its
   ``PatternGenerator``)
   (:func:`~dpledger.verify.audit.montecarlo.pairs.statdp_patterns`); for datasets of records
   over a domain, identical records with one record substituted by an extreme value, half
   low/half high records — the datasets where one record weighs most — and, for small domains,
   two records of every pair of values (equal or not) among background records, one of them
   substituted (``PAIR_DOMAIN``: triggers that need two records, two equal ones or a pair).
2. **Hill climbing.** From the best pairs so far, random local moves (one record or answer of
   both inputs changed, or set to the substituted record's old or new value; the substituted
   record's old or new value changed) screened again; the best
   ``keep`` survive each of ``rounds`` rounds — the search moves toward higher estimated loss.
3. **Certification** of the ``certify`` best screened pairs by one audit on fresh runs.

Every pair is scored by a *screening* audit (:func:`~dpledger.verify.audit.montecarlo.audit.audit`
with ``screen_samples`` runs per input, one stage, an infinitesimal claim): its real-number
lower bound ranks the pairs and nothing else.

Why the confidence need not be split over the pairs tried. The certifying audit draws its runs
from seeds disjoint from every screening seed (``SeedSequence([seed, 1])`` against
``SeedSequence([seed, 0, i])``), so its runs are independent of all screening runs. Conditionally
on the screening outcome the certified pairs are a fixed list, and the certifying audit is valid
at ``confidence`` for any fixed list of pairs (its own correction covers every event it estimates
on its held-out split, over all its pairs). So with probability ≥ ``confidence`` the reported
bound holds — however many pairs the screening tried: they only chose what to test, exactly as
the events compared on split 1 inside one audit. The screening runs are never reused for the
certified bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.audit import MonteCarloAuditResult, Progress, audit
from dpledger.verify.audit.montecarlo.mechanism import Mechanism
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair, identical_inputs, statdp_patterns

RELATIONS = ("substitute", "answers")
"""``substitute``: inputs are datasets of records over a domain, neighbours differ in one record;
``answers``: inputs are vectors of sensitivity-1 query answers, neighbours differ by ≤ 1 in every
coordinate (StatDP's and DP-Sniper's setting)."""

SCREEN_CLAIM = 1e-9
"""The claim of a screening audit: only its bound is used, never its verdict."""

PAIR_DOMAIN = 16
"""Domains of at most this many values also start from two-record patterns: for every pair of
values v ≤ w, records v and w among background records, v substituted by the background — a leak
triggered by two records together (two records equal to v, or a v beside a w) is then one pair
away, not two random moves. A domain of k values gives k(k + 1)/2 of them."""

ANSWER_VALUES = (0.0, 1.0, 2.0)
"""Values of a query answer in the ``answers`` search: StatDP's patterns use 0, 1, 2."""


@dataclass(frozen=True)
class Screened:
    """A pair and its screening bound (at the screening confidence, on runs never reused)."""

    pair: NeighbourPair
    score: float


@dataclass(frozen=True)
class SearchResult:
    """The certified audit of the best screened pairs and the screening that chose them."""

    result: MonteCarloAuditResult
    certified: tuple[Screened, ...]
    tried: int
    screen_samples: int

    def to_json(self) -> dict[str, Any]:
        return {
            **self.result.to_json(),
            "search": {
                "pairs_tried": self.tried,
                "screen_samples_per_input": self.screen_samples,
                "certified_pairs": [
                    {
                        "label": s.pair.label,
                        "a": _listed(s.pair.a),
                        "b": _listed(s.pair.b),
                        "screening_bound": s.score,
                    }
                    for s in self.certified
                ],
                "confidence_argument": "certified on fresh runs (seeds disjoint from the screening's): the pairs "
                "tried only chose which pairs to certify",
            },
        }


def _listed(value: Any) -> Any:
    return value.tolist() if isinstance(value, np.ndarray) else value


def pattern_pairs(relation: str, length: int, domain: Sequence[Any] | None = None) -> list[NeighbourPair]:
    """The starting pairs of a search (module docstring, step 1)."""
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if length < 1:
        raise ValueError(f"input length must be at least 1, got {length}")
    if relation == "answers":
        if length < 2:
            raise ValueError("the answers search needs at least 2 query answers")
        return statdp_patterns(length)
    values = _domain(domain)
    low, middle, high = values[0], values[len(values) // 2], values[-1]
    pairs = []
    for base, other in {(low, high), (high, low), (middle, low), (middle, high)}:
        if base != other:
            pairs.append(
                _substituted([base] * length, 0, other, f"identical records {base!r}, one -> {other!r}")
            )
    half = [low] * (length // 2) + [high] * (length - length // 2)
    if length >= 2:
        pairs.append(_substituted(half, 0, high, f"half {low!r} half {high!r}, one {low!r} -> {high!r}"))
    if 2 <= length and len(values) <= PAIR_DOMAIN:
        pairs += _two_record_pairs(values, length)
    return sorted(pairs, key=lambda pair: pair.label)


def _two_record_pairs(values: list[Any], length: int) -> list[NeighbourPair]:
    """For every pair of values v ≤ w (``PAIR_DOMAIN``): records v and w among background records,
    v substituted by the background — the background is the first of the lowest, the highest and
    the other values that is neither v nor w (a pair with no such value is skipped)."""
    order = [values[0], values[-1], *values[1:-1]]
    pairs = []
    for i, first in enumerate(values):
        for second in values[i:]:
            background = next((value for value in order if value not in (first, second)), None)
            if background is None:
                continue
            records = [first, second] + [background] * (length - 2)
            label = (
                f"two records {first!r}, one -> {background!r}"
                if first == second
                else f"records {first!r} and {second!r}, {first!r} -> {background!r}"
            )
            pairs.append(_substituted(records, 0, background, label))
    return pairs


def _domain(domain: Sequence[Any] | None) -> list[Any]:
    if domain is None or len(set(domain)) < 2:
        raise ValueError("a search over datasets needs a domain of at least 2 distinct record values")
    return sorted(set(domain))


def _substituted(records: list[Any], index: int, value: Any, label: str) -> NeighbourPair:
    other = list(records)
    other[index] = value
    return NeighbourPair(np.asarray(records), np.asarray(other), label)


def local_moves(
    pair: NeighbourPair, relation: str, domain: Sequence[Any] | None, rng: np.random.Generator, count: int
) -> list[NeighbourPair]:
    """``count`` random neighbours of ``pair`` in the space of neighbouring pairs (step 2)."""
    a, b = np.asarray(pair.a), np.asarray(pair.b)
    moves = []
    for _ in range(count):
        new_a, new_b = a.copy(), b.copy()
        j = int(rng.integers(len(a)))
        if relation == "answers":
            new_a[j] = ANSWER_VALUES[int(rng.integers(len(ANSWER_VALUES)))]
            allowed = [v for v in ANSWER_VALUES if abs(v - new_a[j]) <= 1]
            new_b[j] = allowed[int(rng.integers(len(allowed)))]
            if identical_inputs(new_a, new_b):
                continue  # nothing to audit
        else:
            values = _domain(domain)
            value = values[int(rng.integers(len(values)))]
            differing = np.flatnonzero(a != b)
            if differing.size and j == differing[0]:  # the substituted record: change its old or new value
                if rng.integers(2):
                    new_a[j] = value
                else:
                    new_b[j] = value
            elif (
                differing.size and rng.integers(3) == 0
            ):  # another record copies the substituted one's old or new value
                source = (a, b)[int(rng.integers(2))][differing[0]]
                new_a[j] = new_b[j] = source
            else:  # another record: changed in both inputs
                new_a[j] = new_b[j] = value
            if np.count_nonzero(new_a != new_b) != 1:
                continue
        moves.append(NeighbourPair(new_a, new_b, f"{_listed(new_a)} vs {_listed(new_b)}"))
    return moves


def search_inputs(
    mechanism: Mechanism,
    claimed_epsilon: float,
    *,
    relation: str = "substitute",
    length: int,
    domain: Sequence[Any] | None = None,
    given: Sequence[NeighbourPair] = (),
    delta: float = 0.0,
    samples: int = 100_000,
    screen_samples: int = 10_000,
    screen_confidence: float = 0.5,
    rounds: int = 3,
    moves: int = 6,
    keep: int = 3,
    certify: int = 3,
    confidence: float = 0.95,
    seed: int = 0,
    executor: Executor | None = None,
    on_progress: Callable[[str], Progress | None] | None = None,
    timeout: float | None = None,
    network: bool = False,
) -> SearchResult:
    """Search neighbouring inputs of ``mechanism`` and certify the best (module docstring): the
    pattern pairs and ``given`` ones screened with ``screen_samples`` runs per input, ``rounds``
    of ``moves`` local moves from each of the ``keep`` best, then one audit of the ``certify``
    best on ``samples`` fresh runs per input at ``confidence`` (``network``: with the perceptron's
    events, in the screening and the certifying audits alike)."""
    if min(rounds, moves, keep, certify) < 0 or certify < 1 or keep < 1:
        raise ValueError("rounds and moves must be ≥ 0, keep and certify ≥ 1")
    if screen_samples < 2 or not 0 < screen_confidence < 1:
        raise ValueError("screen_samples must be ≥ 2 and screen_confidence in (0, 1)")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2]))
    seen: dict[tuple[str, str], Screened] = {}

    def screen(pairs: Sequence[NeighbourPair]) -> None:
        for pair in pairs:
            key = (repr(_listed(pair.a)), repr(_listed(pair.b)))
            if key in seen:
                continue
            result = audit(
                mechanism,
                [pair],
                SCREEN_CLAIM,
                claimed_delta=delta,
                samples=screen_samples,
                confidence=screen_confidence,
                seed=_seed(seed, 0, len(seen)),
                executor=executor,
                stages=1,
                timeout=timeout,
                network=network,
                on_progress=on_progress(f"screen {len(seen) + 1}") if on_progress else None,
            )
            seen[key] = Screened(pair, max(result.real_epsilon_lower, 0.0))

    def best(count: int) -> list[Screened]:
        return sorted(seen.values(), key=lambda s: -s.score)[:count]

    screen([*given, *pattern_pairs(relation, length, domain)])
    for _ in range(rounds):
        screen(
            [move for start in best(keep) for move in local_moves(start.pair, relation, domain, rng, moves)]
        )
    chosen = tuple(best(certify))
    result = audit(
        mechanism,
        [s.pair for s in chosen],
        claimed_epsilon,
        claimed_delta=delta,
        samples=samples,
        confidence=confidence,
        seed=_seed(seed, 1),
        executor=executor,
        timeout=timeout,
        network=network,
        on_progress=on_progress("certify") if on_progress else None,
    )
    return SearchResult(result, chosen, len(seen), screen_samples)


def _seed(*words: int) -> int:
    """An audit seed from a SeedSequence of ``words``: distinct words give independent streams."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0] >> 1)


def search_work(
    relation: str, length: int, domain: Sequence[Any] | None, given: int, rounds: int, moves: int, keep: int
) -> int:
    """An upper bound on the pairs a search screens."""
    return given + len(pattern_pairs(relation, length, domain)) + rounds * keep * moves
