"""Boolean compositions G(H_1, …, H_k) (seed 000, Section 8.4) with the relabel-and-learn
oracles of Proposition 8.16: ``--class boolean --formula "x1 and (x2 or not x3)"
--components thresholds,intervals,thresholds`` (or ``--truth-table 00001011``).

Domain: the common grid [0, N)^D, D = the largest component dimension; each component class
reads the first dim(H_i) coordinates of a point (see :mod:`dpledger.learners.boolean.composition`).
"""

from __future__ import annotations

from collections.abc import Sequence

from dpledger.verify.paper.setups import ClassSetup, Problem

ORACLE = (
    "Proposition 8.16 relabel-and-learn (ARelabel ε = 1, then Lemma 8.15's empirical exponential "
    "learner, ε_B = 1): (ε_A, δ_A) = (4, 0) claimed by Corollary 8.17, whose structural conditions hold by "
    "Lemma 8.18 (product parameterisation; arity and non-empty H_i checked); the trace derives B̂'s ε from its "
    "draws with replacement (Lemma 8.15), so ε_A ≤ 3 + (e − 1)/9 ≈ 3.19"
)


def _build(
    *,
    alpha: float,
    beta: float,
    domain_size: int | None = None,
    formula: str | None = None,
    truth_table: str | None = None,
    components: Sequence[str] | None = None,
) -> Problem:
    """G from ``formula`` (and/or/not over x1..xk) or ``truth_table`` (2^k bits, x1 the most
    significant input), the component classes ``components`` on the grid [0, ``domain_size``)
    (default 2^16; 16 with rectangles), and the Proposition 8.16 oracles at Algorithm 2's
    τ = α/(40k), β_A = β/(4k)."""
    from fractions import Fraction

    from dpledger.learners.boolean.composition import BooleanComposition, component_class
    from dpledger.learners.boolean.formula import from_truth_table, parse_formula
    from dpledger.learners.boolean.oracle import RelabelOracle

    if (formula is None) == (truth_table is None):
        raise ValueError("formula: --class boolean needs exactly one of --formula and --truth-table")
    if not components:
        raise ValueError(
            "components: --class boolean needs --components, e.g. thresholds,intervals,thresholds"
        )
    size = domain_size or (16 if "rectangles" in components else 2**16)
    if formula is not None:
        G = parse_formula(formula)
    else:
        assert truth_table is not None  # exactly one of the two, checked above
        G = from_truth_table(truth_table)
    concept_class = BooleanComposition(G, [component_class(name, size) for name in components])
    k = concept_class.k
    oracle = RelabelOracle(tau=Fraction(alpha) / (40 * k), beta_a=Fraction(beta) / (4 * k))
    shape = () if concept_class.dimension == 1 else (concept_class.dimension,)
    description = (
        f"{ORACLE}; domain [0, {size})^{concept_class.dimension}, H_i reads its first dim(H_i) coordinates"
    )
    return Problem(concept_class, oracle, description, lambda rng, n: rng.integers(0, size, size=(n, *shape)))


SETUPS = [
    ClassSetup(
        "boolean",
        "G(H_1, …, H_k): Boolean composition (Section 8.4)",
        ("domain_size", "formula", "truth_table", "components"),
        _build,
    )
]
