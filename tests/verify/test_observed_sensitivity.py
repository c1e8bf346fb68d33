"""verify/audit/sensitivity.py on toy mechanisms whose true sensitivities are known: the norms of
noisy releases, parallel releases moved one at a time, a data-dependent shape refused, grouped
scores compared exactly, and bad input."""

from fractions import Fraction

import numpy as np
import pytest

from dpledger.learners import releases
from dpledger.learners.exponential_mechanism import (
    exponential_mechanism_counted_release,
    exponential_mechanism_ordered_release,
)
from dpledger.learners.noise import gaussian_noise, laplace_noise
from dpledger.learners.randomness import Sampled
from dpledger.verify.audit.sensitivity import change, observed_sensitivity


def substitutions(data, values):
    for j in range(len(data)):
        for v in values:
            if v != data[j]:
                yield (*data[:j], v, *data[j + 1 :])


def two_halves(data):
    """Two Laplace releases of the sums of disjoint halves (parallel composition), sensitivity 1."""
    rng = Sampled(0)
    half = len(data) // 2
    for block in (data[:half], data[half:]):
        laplace_noise(float(sum(block)), 4.0, 1, rng)


def test_parallel_releases_move_one_at_a_time_and_reach_their_sensitivity():
    data = (0, 1, 1, 0)
    report = observed_sensitivity(two_halves, data, substitutions(data, (0, 1)))
    assert report.compared == 4 and report.mismatches == 0 and report.exceeded == ()
    assert [r.observed for r in report.releases] == [1.0, 1.0] and report.ratio() == 1.0
    assert sorted(report.moved) == [(0,), (0,), (1,), (1,)]  # no record is read by both


def test_a_release_declaring_half_its_l2_sensitivity_is_exceeded():
    def vector(data):
        gaussian_noise(np.array(data, dtype=float), 2.0, Fraction(1, 2), 1e-6, Sampled(0))

    data = (0.0, 0.0, 1.0)
    report = observed_sensitivity(vector, data, substitutions(data, (0.0, 1.0)))
    assert [r.ratio for r in report.exceeded] == [pytest.approx(2.0)]


def test_a_shape_that_depends_on_the_data_is_counted_as_a_mismatch_never_compared():
    def data_dependent(data):
        for _ in range(1 + sum(data)):
            laplace_noise(0.0, 1.0, 1, Sampled(0))

    report = observed_sensitivity(data_dependent, (0, 0), [(0, 1), (0, 0)])
    assert report.mismatches == 1 and report.compared == 1


def ordered(breakpoints, scores):
    with releases.record() as made:
        exponential_mechanism_ordered_release(breakpoints, scores, 1, 1, Sampled(0))
    return made[0]


def test_runs_are_compared_on_the_common_refinement_of_their_breakpoints():
    # score 0 on [0, 4), 2 on [4, 8)  vs  1 on [0, 6), 2 on [6, 8): largest change 1 on [0, 4), 1 on [4, 6)
    assert change(ordered([0, 4, 8], [0, 2]), ordered([0, 6, 8], [1, 2])) == 1
    assert change(ordered([0, 4, 8], [0, 2]), ordered([0, 5, 8], [0, 2])) == 2  # x = 4: 2 against 0


def test_score_levels_give_the_sorted_matching():
    def levels(scores, counts):
        with releases.record() as made:
            exponential_mechanism_counted_release(scores, counts, 1, 1, Sampled(0), lambda group: group)
        return made[0]

    assert change(levels([0, 1], [2, 2]), levels([0, 1], [2, 2])) == 0
    assert change(levels([0, 1], [1, 3]), levels([0, 1], [3, 1])) == 1
    assert change(levels([0, 3], [1, 1]), levels([1, 2], [1, 1])) == 1


def test_a_run_without_private_releases_is_refused():
    with pytest.raises(ValueError, match="no private release"):
        observed_sensitivity(lambda data: None, (0,), [(1,)])
