"""The synthetic agnostic halfspace data (learners/agnostic/data.py): a test set drawn with the training
sample's tilt comes from the training distribution."""

from __future__ import annotations

import numpy as np
import pytest

from dpledger.learners.agnostic.data import far_flips, halfspace_data, labelled_sample
from dpledger.learners.randomness import Sampled


@pytest.mark.parametrize("noise_model", ["adversarial", "two-sided"])
def test_test_set_flips_follow_the_training_samples_tilt(noise_model) -> None:
    rng = Sampled(11)
    train = halfspace_data(4000, 5, 0.1, noise_model, rng)
    test = labelled_sample(4000, train.w, train.t, 0.1, noise_model, rng, tilt=train.tilt)
    assert test.tilt is train.tilt and train.tilt is not None
    assert abs(train.tilt @ train.w) < 1e-12 and np.linalg.norm(train.tilt) == pytest.approx(1.0)
    margin = test.X @ test.w - test.t
    expected = far_flips(margin, test.X @ train.tilt, 400, two_sided=noise_model == "two-sided")
    flipped = np.flatnonzero(test.y != np.where(margin >= 0, 1.0, -1.0))
    assert np.array_equal(np.sort(expected), flipped)


def test_a_fresh_tilt_is_drawn_when_none_is_given() -> None:
    rng = Sampled(12)
    train = halfspace_data(4000, 5, 0.1, "adversarial", rng)
    fresh = labelled_sample(4000, train.w, train.t, 0.1, "adversarial", rng)
    assert fresh.tilt is not None and train.tilt is not None
    assert abs(fresh.tilt @ train.tilt) < 0.999


def test_random_noise_has_no_tilt() -> None:
    assert halfspace_data(1000, 3, 0.1, "random", Sampled(13)).tilt is None
