"""DP-SGD accounting (accountant/dp_sgd.py) and PLD calibration (accountant/pld_calibration.py):
every result states its sampling, shuffled batches and bad sizes are refused, a calibrated noise
multiplier is certified and a slightly smaller one is not, and gaussian_sigma is bounded on
extreme input."""

import time

import pytest

from dpledger.accountant import account
from dpledger.accountant import events as ev
from dpledger.accountant.dp_sgd import dp_sgd_epsilon, dp_sgd_noise, run
from dpledger.accountant.mechanism_calibration import composition_noise, gaussian_sigma


def test_poisson_runs_are_certified_under_add_remove_and_fixed_size_under_substitution():
    poisson = dp_sgd_epsilon(1000, 10, "1.2", "1e-5", steps=50)
    fixed = dp_sgd_epsilon(1000, 10, "1.2", "1e-5", steps=50, sampling="fixed")
    assert poisson.guarantee.relation == "add_remove"
    assert fixed.guarantee.relation == "substitute"
    assert "Poisson" in poisson.run.assumes and "without replacement" in fixed.run.assumes
    assert 0 < poisson.guarantee.epsilon_upper < fixed.guarantee.epsilon_upper


def test_epochs_count_the_ceiling_of_epochs_times_n_over_b():
    assert run(1000, 300, epochs=2).steps == 7


@pytest.mark.parametrize(
    "arguments, message",
    [
        (dict(dataset_size=10, batch_size=11, steps=1), "batch_size"),
        (dict(dataset_size=10, batch_size=2, steps=1, sampling="shuffle"), "shuffled batches"),
        (dict(dataset_size=10, batch_size=2), "either epochs or steps"),
        (dict(dataset_size=10, batch_size=2, steps=0), "steps"),
        (dict(dataset_size=10, batch_size=2, epochs="-1"), "epochs"),
    ],
)
def test_bad_runs_are_refused_with_a_value_error(arguments, message):
    with pytest.raises(ValueError, match=message):
        run(**arguments)


def test_the_calibrated_noise_multiplier_is_certified_and_a_smaller_one_is_not():
    result = dp_sgd_noise(1000, 10, "1", "1e-5", steps=50)
    assert account(result.event).guarantee.meets("1", "1e-5").holds
    assert not account(result.event_for(result.value * (1 - 2**-9))).guarantee.meets("1", "1e-5").holds


def test_pld_noise_for_poisson_sampling_is_far_below_the_amplified_pairs():
    pld = composition_noise("gaussian", 1, 1, "1e-5", k=20, poisson_rate="0.05", method="pld")
    pairs = composition_noise("gaussian", 1, 1, "1e-5", k=20, poisson_rate="0.05", method="advanced")
    assert pld.value < pairs.value / 1.5
    assert any("privacy-loss distributions" in note for note in pld.notes)


@pytest.mark.parametrize("mechanism", ["gaussian", "laplace", "discrete-laplace"])
@pytest.mark.parametrize("sampling", [{"poisson_rate": "0.05"}, {"sample_size": 50, "population_size": 1000}])
def test_optimal_calibration_of_a_subsampled_mechanism_composes_its_privacy_loss_distributions(
    mechanism, sampling
):
    default = composition_noise(mechanism, 1, 1, "1e-5", k=20, **sampling)
    pld = composition_noise(mechanism, 1, 1, "1e-5", k=20, method="pld", **sampling)
    assert default.value == pld.value
    assert any("privacy-loss distributions are composed" in note for note in default.notes)
    assert account(default.event).guarantee.meets(1, "1e-5").holds


def test_optimal_composition_of_subsampled_gaussians_reports_the_tighter_distributions():
    step = ev.PoissonSubsample(ev.Gaussian(1, "1e-8", relation="add_remove"), "0.01")
    optimal = account(ev.Composition((step,), method="optimal", target_delta="1e-5", repeat=1000))
    pld = account(ev.Composition((step,), method="pld", target_delta="1e-5", repeat=1000))
    assert optimal.guarantee.epsilon_upper == pld.guarantee.epsilon_upper < 2
    assert "the tightest here; optimal composition of the children: ε ≤" in optimal.rule


def test_optimal_composition_unreachable_by_amplified_pairs_is_certified_by_distributions():
    step = ev.PoissonSubsample(ev.Gaussian(1, "1e-5", relation="add_remove"), "0.01")
    optimal = account(ev.Composition((step,), method="optimal", target_delta="1e-5", repeat=1000))
    assert optimal.guarantee.epsilon_upper < 2
    assert "amplification then composition cannot certify this δ" in optimal.rule


@pytest.mark.parametrize(
    "arguments",
    [(1, "1e308", "1e-5"), (1, 10**400, "1e-5"), ("1e308", "1e-308", "1e-5")],
)
def test_gaussian_sigma_answers_or_refuses_extreme_input_within_a_second(arguments):
    start = time.perf_counter()
    with pytest.raises(ValueError):
        gaussian_sigma(*arguments)
    assert time.perf_counter() - start < 1.0


def test_gaussian_sigma_is_certified_from_its_closed_form_bracket():
    result = gaussian_sigma(1, "1", "1e-5")
    assert account(result.event).guarantee.meets("1", "1e-5").holds
    assert not account(result.event_for(result.value * (1 - 2**-18))).guarantee.meets("1", "1e-5").holds


@pytest.mark.parametrize("epsilon", [1e-308, 1e-30])
def test_a_vanishing_target_epsilon_gets_the_noise_whose_loss_meets_it_at_delta(epsilon):
    """At ε → 0 the target is δ(0) ≤ δ (a total-variation bound): a finite noise multiplier meets
    it, the same for every tiny ε, found from a first guess near 1/ε without overflow."""
    calibration = dp_sgd_noise(60000, 256, epsilon, "1e-5", epochs=1)
    assert 1000 < float(calibration.value) < 10000
    assert calibration.guarantee.meets(epsilon, "1e-5").holds


@pytest.mark.slow
def test_a_small_target_delta_is_reached_on_a_coarser_grid_when_the_convolution_error_is_too_large():
    """δ = 10⁻¹⁰ for 235 Poisson-subsampled steps: at the default grid the composed vector is so
    long that the convolution's error bound alone exceeds δ; the coarser grid certifies a finite ε
    (≈ 1.0005), not a refusal; the rule names the coarser grid (h = 2⁻¹², where δ = 10⁻⁵ is
    certified on the default h = 2⁻¹³)."""
    accounting = dp_sgd_epsilon(60000, 256, 1.1, "1e-10", epochs=1)
    assert 0.9 < accounting.guarantee.epsilon_upper < 1.1
    assert "the grid h = 2^-12 " in account(accounting.event).rule
    assert "the grid h = 2^-13 " in account(dp_sgd_epsilon(60000, 256, 1.1, "1e-5", epochs=1).event).rule
