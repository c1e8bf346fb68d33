"""Laws of the input search: it reaches pairs that substituting one record of a
given input cannot, certifies on fresh runs, and refuses searches it cannot define."""

from __future__ import annotations

import numpy as np
import pytest

from dpledger.verify.audit.montecarlo import InProcessExecutor, audit, substitute_one
from dpledger.verify.audit.montecarlo.input_search import local_moves, pattern_pairs, search_inputs
from dpledger.verify.audit.montecarlo.pairs import NeighbourPair

GRID = 1024.0


def leaky_count(data, n, rng):
    """Laplace on the count of records equal to 2 at scale 1 (ε = 1), but at scale 0.1 once two records
    are 2: a leak no substitute-one neighbour of [0, 0, 0] reaches."""
    count = float(np.sum(np.asarray(data) == 2))
    scale = 0.1 if count >= 2 else 1.0
    return np.round((count + rng.laplace(0.0, scale, n)) * GRID) / GRID


def count(data, n, rng):
    """The correct mechanism: Laplace(1) on the count of 2s, ε = 1."""
    return np.round((float(np.sum(np.asarray(data) == 2)) + rng.laplace(0.0, 1.0, n)) * GRID) / GRID


@pytest.mark.slow
def test_substitute_one_neighbours_of_a_base_miss_the_leak_the_search_finds():
    base_pairs = substitute_one([0, 0, 0], [0, 1, 2])
    missed = audit(leaky_count, base_pairs, 1.0, samples=20_000, executor=InProcessExecutor(), seed=0)
    found = search_inputs(
        leaky_count,
        1.0,
        length=3,
        domain=[0, 1, 2],
        samples=20_000,
        screen_samples=2_000,
        executor=InProcessExecutor(),
        seed=0,
    )
    assert not missed.violation
    assert found.result.violation and found.result.real_epsilon_lower > 3.0
    assert all(np.count_nonzero(np.asarray(s.pair.a) != np.asarray(s.pair.b)) == 1 for s in found.certified)


@pytest.mark.slow
def test_search_of_a_correct_mechanism_certifies_no_more_than_its_epsilon():
    found = search_inputs(
        count,
        1.0,
        length=3,
        domain=[0, 1, 2],
        samples=20_000,
        screen_samples=2_000,
        executor=InProcessExecutor(),
        seed=1,
    )
    assert not found.result.violation and found.result.real_epsilon_lower <= 1.0
    assert found.tried > len(
        pattern_pairs("substitute", 3, [0, 1, 2])
    )  # the hill climbing screened new pairs


def test_search_is_reproducible_from_its_seed():
    runs = [
        search_inputs(
            count,
            1.0,
            length=3,
            domain=[0, 1, 2],
            samples=4_000,
            screen_samples=2_000,
            rounds=1,
            executor=InProcessExecutor(),
            seed=5,
        )
        for _ in range(2)
    ]
    assert runs[0].to_json()["epsilon_lower"] == runs[1].to_json()["epsilon_lower"]
    assert [s.pair.label for s in runs[0].certified] == [s.pair.label for s in runs[1].certified]


def test_local_moves_stay_substitute_one_neighbours_over_the_domain():
    rng = np.random.default_rng(0)
    start = NeighbourPair(np.array([0, 1, 2, 2]), np.array([0, 1, 2, 0]), "start")
    moves = local_moves(start, "substitute", [0, 1, 2], rng, 200)
    assert len(moves) > 100
    for pair in moves:
        assert np.count_nonzero(pair.a != pair.b) == 1 and set(pair.a) | set(pair.b) <= {0, 1, 2}


def test_local_moves_of_answer_vectors_move_each_answer_by_at_most_one():
    rng = np.random.default_rng(0)
    moves = local_moves(pattern_pairs("answers", 5)[0], "answers", None, rng, 200)
    assert moves and all(np.max(np.abs(pair.a - pair.b)) <= 1 for pair in moves)


def test_statdp_patterns_start_the_answers_search():
    labels = {pair.label for pair in pattern_pairs("answers", 4)}
    assert {"one above", "all below", "x shape"} <= labels


@pytest.mark.parametrize(
    "relation, length, domain, message",
    [
        ("substitute", 3, None, "domain"),
        ("substitute", 3, [1, 1], "domain"),
        ("answers", 1, None, "at least 2"),
        ("neighbours", 3, [0, 1], "relation"),
    ],
)
def test_pattern_pairs_refuse_undefined_searches(relation, length, domain, message):
    with pytest.raises(ValueError, match=message):
        pattern_pairs(relation, length, domain)


def leaky_threes(data, n, rng):
    """Laplace(1) on the number of records ≥ 5 (ε = 1), but at scale 0.1 once two records are 3."""
    records = np.asarray(data)
    scale = 0.1 if np.sum(records == 3) >= 2 else 1.0
    return np.round((float(np.sum(records >= 5)) + rng.laplace(0.0, scale, n)) * GRID) / GRID


def test_small_domains_start_from_two_equal_records_one_of_them_substituted():
    pairs = pattern_pairs("substitute", 4, list(range(10)))
    threes = [(np.sum(np.asarray(p.a) == 3), np.sum(np.asarray(p.b) == 3)) for p in pairs]
    assert (2, 1) in threes and len(pairs) == len({p.label for p in pairs})


def test_small_domains_start_from_every_pair_of_values_once_with_a_background_of_neither():
    pairs = [
        p
        for p in pattern_pairs("substitute", 4, list(range(10)))
        if p.label.startswith(("two records", "records "))
    ]
    assert sorted(tuple(sorted(np.asarray(p.a)[:2].tolist())) for p in pairs) == [
        (v, w) for v in range(10) for w in range(v, 10)
    ]
    for pair in pairs:
        a, b = np.asarray(pair.a), np.asarray(pair.b)
        assert np.count_nonzero(a != b) == 1 and b[0] == a[2] and a[2] not in a[:2]


def leaky_two_and_seven(data, n, rng):
    """Laplace(1) on the number of records ≥ 5 (ε = 1), but at scale 0.1 once a 2 and a 7 are both in."""
    records = np.asarray(data)
    scale = 0.1 if 2 in records and 7 in records else 1.0
    return np.round((float(np.sum(records >= 5)) + rng.laplace(0.0, scale, n)) * GRID) / GRID


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", [leaky_threes, leaky_two_and_seven], ids=["two 3s", "a 2 beside a 7"])
def test_search_finds_a_leak_that_needs_two_records_over_a_domain_of_10(mechanism):
    found = search_inputs(
        mechanism,
        1.0,
        length=4,
        domain=list(range(10)),
        samples=20_000,
        screen_samples=2_000,
        executor=InProcessExecutor(),
        seed=0,
    )
    assert found.result.violation and found.result.real_epsilon_lower > 3.0
