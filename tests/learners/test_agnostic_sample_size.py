"""Sample-size calibration of Theorems 2.1, 3.1, 4.1 of seed 002 (learners/calibration/agnostic_sample_size.py)."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import pytest

from dpledger.accountant import account
from dpledger.accountant.events import Composition, Gaussian
from dpledger.learners.agnostic.private_l1 import excess_risk_bound
from dpledger.learners.agnostic.proper import cover_size
from dpledger.learners.calibration.agnostic_noise import certified_ratio
from dpledger.learners.calibration.agnostic_sample_size import (
    HYPOTHESES,
    THEOREMS,
    AgnosticSampleSize,
    paper_step_ratio,
    sample_size,
    tight_step_ratio,
)

BASE: dict[str, Any] = {"alpha": "0.2", "beta": "0.1", "epsilon": "0.5", "delta": "1e-6", "dim": 10}


def size(theorem: str, accounting: str = "paper", **changes: Any) -> AgnosticSampleSize:
    args = {**BASE, **changes}
    if theorem != "Theorem 4.1":
        args.setdefault("degree", 2)
    return sample_size(theorem, accounting=accounting, **args)


@pytest.mark.parametrize("theorem", THEOREMS)
def test_n_is_the_exact_sum_of_its_terms_and_json_ready(theorem):
    result = size(theorem)
    assert isinstance(result.n, int) and result.n == sum(t.value for t in result.terms)
    assert all(isinstance(t.value, int) and t.value > 0 for t in result.terms)
    assert json.loads(json.dumps(result.to_dict()))["n"] == result.n
    assert result.substitutes and theorem in HYPOTHESES


@pytest.mark.parametrize("theorem", THEOREMS)
@pytest.mark.parametrize("accounting", ["paper", "tight"])
def test_n_grows_as_alpha_epsilon_delta_shrink_and_dim_grows(theorem, accounting):
    n = size(theorem, accounting).n
    assert size(theorem, accounting, alpha="0.1").n > n
    assert size(theorem, accounting, epsilon="0.25").n > n
    assert size(theorem, accounting, delta="1e-9").n > n
    assert size(theorem, accounting, dim=20).n > n


def test_theorem_2_1_n_grows_as_alpha_shrinks_at_default_degree():
    ns = [sample_size("Theorem 2.1", **{**BASE, "alpha": a}).n for a in ("0.4", "0.3", "0.2")]
    assert ns[0] < ns[1] < ns[2]


@pytest.mark.parametrize("theorem", THEOREMS)
@pytest.mark.parametrize("epsilon", ["0.5", "0.9"])
def test_tight_n_at_most_paper_n_with_privacy_terms_strictly_smaller(theorem, epsilon):
    paper, tight = size(theorem, "paper", epsilon=epsilon), size(theorem, "tight", epsilon=epsilon)
    assert tight.n <= paper.n
    assert tight.privacy_n < paper.privacy_n
    for term in tight.terms:  # statistical parts equal, except through 4.1's clip radius R(n) (smaller n)
        assert term.value <= paper.term(term.name).value


def test_theorem_2_1_tight_is_smaller_even_at_epsilon_one():
    """T steps: advanced composition of classic steps stays valid at ε ≥ 1 (ε₀ < 1)."""
    assert (
        size("Theorem 2.1", "tight", epsilon=1).privacy_n < size("Theorem 2.1", "paper", epsilon=1).privacy_n
    )


@pytest.mark.parametrize("theorem", ["Theorem 3.1", "Theorem 4.1"])
def test_paper_single_gaussian_switches_to_analytic_explicitly_at_epsilon_at_least_one(theorem):
    below, at = size(theorem, "paper", epsilon="0.99"), size(theorem, "paper", epsilon=1)
    assert "classic Gaussian" in below.parameters["gaussian_rule"]
    assert "classic invalid" in at.parameters["gaussian_rule"]
    assert any("ε ≥ 1" in s for s in at.substitutes)
    assert at.n == size(theorem, "tight", epsilon=1).n


def test_theorem_3_1_validation_terms_scale_as_alpha_minus_4_and_5_at_fixed_degree():
    """Fixed D, subspace not capped by d: k ∝ 1/α², ln N ≈ k ln s, so the validation statistical
    term ∝ k ln N/… grows by 2⁴ (·log factor) and the privacy term by 2³ (·log factor) when α
    halves; with D = ⌈1/α²⌉ these become Table 1's 1/α⁶ and 1/(εα⁵). The polynomial terms
    scale as 1/ζ² (statistical) and F/ζ² (privacy, clip norm ∝ F/ζ): ×4."""
    wide: dict[str, Any] = {"dim": 10**6, "degree": 2}
    coarse, fine = size("Theorem 3.1", **wide, alpha="0.2"), size("Theorem 3.1", **wide, alpha="0.1")
    assert fine.parameters["subspace_dim"] < 10**6
    ratio = {t.name: fine.term(t.name).value / t.value for t in coarse.terms}
    assert 16 <= ratio["validation: statistical"] <= 16 * 1.5
    assert 8 <= ratio["validation: privacy"] <= 8 * 1.5
    assert 3.9 <= ratio["polynomial: statistical"] <= 4.1
    assert 3.9 <= ratio["polynomial: privacy"] <= 4.1


def test_theorem_3_1_cover_matches_the_learners_cover_size():
    result = size("Theorem 3.1", dim=3)
    p = result.parameters
    assert cover_size(p["subspace_dim"], float(Fraction(p["cover_resolution"]))) == p["cover_size"]
    assert p["candidates"] == p["cover_size"] * p["n_thresholds"]


@pytest.mark.parametrize("accounting", ["paper", "tight"])
def test_theorem_2_1_blocks_make_excess_risk_bound_within_the_allocated_budget(accounting):
    alpha, beta = Fraction(1, 5), Fraction(1, 10)
    result = size("Theorem 2.1", accounting, dim=3, degree=1, alpha=alpha)
    p = result.parameters
    steps, m = p["T"], p["block_size"]
    ratio = (paper_step_ratio if accounting == "paper" else tight_step_ratio)(
        BASE["epsilon"], BASE["delta"], steps
    )
    clip = math.sqrt(float(Fraction(p["clip_norm_squared"])))
    sigma = 2 * clip / m / float(ratio)
    bound = excess_risk_bound(
        radius=1.0,
        clip_norm=clip,
        n_features=p["F"],
        sigma=sigma,
        steps=steps,
        m=m,
        beta=float(beta / (3 * p["blocks"])),
    )
    assert bound["optimisation"] <= float(alpha / 6)
    assert bound["generalisation"] <= float(alpha / 3)
    # the block is not padded wildly: a quarter of it breaks the budget (the additive split costs ≤ 2×)
    smaller = excess_risk_bound(
        radius=1.0,
        clip_norm=clip,
        n_features=p["F"],
        sigma=sigma * m / (m // 4),
        steps=steps,
        m=m // 4,
        beta=float(beta / (3 * p["blocks"])),
    )
    assert smaller["total"] > float(alpha / 6 + alpha / 3)


def test_tight_step_ratio_is_certified_and_below_the_learners_own_ratio():
    eps, delta, steps = Fraction(1, 2), Fraction(1, 10**6), 300
    ours = tight_step_ratio(eps, delta, steps)
    assert ours <= certified_ratio(eps, delta, steps, "optimal")
    event = Composition(
        children=(Gaussian(sigma=1, delta=delta / (2 * steps), sensitivity=ours),),
        method="optimal",
        target_delta=delta,
        repeat=steps,
    )
    assert account(event).guarantee.meets(eps, delta).holds


def test_paper_step_ratio_is_certified_by_advanced_composition_of_classic_gaussians():
    eps, delta, steps = Fraction(1, 2), Fraction(1, 10**6), 300
    ratio = paper_step_ratio(eps, delta, steps)
    event = Composition(
        children=(Gaussian(sigma=1, delta=delta / (2 * steps), sensitivity=ratio, calibration="classical"),),
        method="advanced",
        target_delta=delta,
        repeat=steps,
    )
    assert account(event).guarantee.meets(eps, delta).holds
    assert ratio < tight_step_ratio(eps, delta, steps)


def test_huge_feature_count_is_exact():
    result = sample_size("Theorem 2.1", alpha="0.05", beta="0.1", epsilon=1, delta="1e-6", dim=50)
    assert result.target["degree"] == 400
    assert result.parameters["F"] == math.comb(450, 400)
    assert result.n > 10**70 and result.n == sum(t.value for t in result.terms)


def test_theorem_4_1_clip_radius_covers_laurent_massart_at_the_final_n():
    result = size("Theorem 4.1")
    u = math.log(4 * result.n / 0.1)
    assert result.parameters["clip_radius"] >= math.sqrt(10 + 2 * math.sqrt(10 * u) + 2 * u)
    assert result.parameters["smallest_guess"] == "1/8"


def test_decimal_strings_and_numbers_give_the_same_calibration():
    assert (
        size("Theorem 3.1", alpha="0.25").n
        == size("Theorem 3.1", alpha=0.25).n
        == size("Theorem 3.1", alpha=Fraction(1, 4)).n
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"alpha": 0}, "alpha must be in (0, 1) (hypothesis of Theorem 2.1)"),
        ({"alpha": "1"}, "alpha must be in (0, 1)"),
        ({"beta": 1.5}, "beta must be in (0, 1) (hypothesis of Theorem 2.1)"),
        ({"delta": 0}, "delta must be in (0, 1)"),
        ({"epsilon": 0}, "epsilon must be in (0, 100]"),
        ({"epsilon": 101}, "epsilon must be in (0, 100]"),
        ({"epsilon": True}, "epsilon must be a number"),
        ({"dim": True}, "dim must be an integer ≥ 1 (hypothesis of Theorem 2.1)"),
        ({"dim": 0}, "dim must be an integer ≥ 1"),
        ({"dim": 2.0}, "dim must be an integer ≥ 1"),
        ({"degree": 0}, "degree must be an integer ≥ 1"),
        ({"degree": False}, "degree must be an integer ≥ 1"),
        ({"alpha": "abc"}, "alpha must be a finite number"),
    ],
)
def test_bad_input_is_refused_naming_the_hypothesis(changes, message):
    with pytest.raises(ValueError, match=re_escape(message)):
        sample_size("Theorem 2.1", **{**BASE, **changes})


def test_unknown_theorem_accounting_and_degree_for_theorem_4_1_are_refused():
    with pytest.raises(ValueError, match="theorem must be one of"):
        sample_size("Theorem 9.9", **BASE)
    with pytest.raises(ValueError, match="accounting must be one of"):
        sample_size("Theorem 2.1", **BASE, accounting="loose")
    with pytest.raises(ValueError, match=r"Theorem 4\.1"):
        sample_size("Theorem 4.1", **BASE, degree=2)


def re_escape(text: str) -> str:
    import re

    return re.escape(text)
