"""Exact audits of CarryForwardLearner's blocks: Lemma 6.2, Lemma 6.4 and the oracle."""

import pytest
import sympy

from dpledger.verify.paper.block_audits import BlockAudit, audit_block

C = 4 + 2 * sympy.log(4 * sympy.E)


@pytest.mark.parametrize(
    "cls, domain, m", [("intervals", 4, 2), pytest.param("intervals", 5, 3, marks=pytest.mark.slow)]
)
def test_lemma_6_2_macro_block_exact_epsilon_within_C(cls, domain, m):
    result = audit_block(BlockAudit(cls, domain, m, "macro"), workers=1)
    assert result.holds is True
    assert result.pairs > 0 and 0 < result.epsilon[1] <= float(C)


@pytest.mark.parametrize(
    "cls, domain, m",
    [("thresholds", 4, 2), pytest.param("intervals", 3, 2, marks=pytest.mark.slow), ("rectangles", 2, 1)],
)
def test_lemma_6_4_initialization_block_exact_epsilon_within_C(cls, domain, m):
    result = audit_block(BlockAudit(cls, domain, m, "init"), workers=1)
    assert result.holds is True and result.epsilon[1] <= float(C)


@pytest.mark.parametrize("cls, domain", [("thresholds", 5), ("intervals", 4)])
def test_assumption_4_4_oracle_is_epsilon_a_private_on_realizable_neighbours(cls, domain):
    result = audit_block(BlockAudit(cls, domain, 2, "oracle"), workers=1)
    assert result.holds is True and 0 < result.epsilon[1] <= 4


def test_oracle_with_smaller_epsilon_a_is_audited_against_it():
    from fractions import Fraction

    result = audit_block(BlockAudit("intervals", 4, 2, "oracle", oracle_epsilon=Fraction(1, 2)), workers=1)
    assert result.holds is True and result.epsilon[1] <= 0.5


@pytest.mark.slow
def test_lemma_6_2_macro_block_with_carrier_release_rectangles():
    """k = 4: the macro-block includes the next round's carrier release (Claim 6.3)."""
    result = audit_block(BlockAudit("rectangles", 2, 2, "macro"), workers=2)
    assert result.holds is True and result.epsilon[1] <= float(C)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (("circles", 4, 2, "macro"), "class"),
        (("intervals", 40, 2, "macro"), "domain-size"),
        (("intervals", 4, 5, "macro"), "m must"),
        (("intervals", 4, 2, "nope"), "block"),
    ],
)
def test_bad_block_audit_parameters_are_refused(args, fragment):
    with pytest.raises(ValueError, match=fragment):
        BlockAudit(*args)


def test_macro_block_needs_two_components():
    with pytest.raises(ValueError, match="k ≥ 2"):
        audit_block(BlockAudit("thresholds", 4, 2, "macro"), workers=1)
