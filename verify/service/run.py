"""``dpledger run``: a learner on synthetic data, with the guarantee the accountant derives from
the run's trace against the claim.

* ``carry-forward``: CarryForwardLearner (Algorithm 2 of seed 000) on realizable data from a random
  target concept of a class set up by :mod:`dpledger.verify.paper.setups`, with round telemetry;
* ``agnostic``: a private agnostic halfspace learner of seed 002 (Theorems 2.1, 3.1, 4.1) on
  Gaussian data labelled by a random halfspace with label noise, beside the target halfspace and
  the same algorithm with privacy off.

Seeds: ``seed`` s is the root of a ``numpy.random.SeedSequence``; ``SeedSequence(s).spawn(2)`` gives
the data's seed (target concept, training and test records) and the learner's (``random_state``)
— independent streams, and the same s gives the same data, the same run and the same trace.
Long steps draw a progress bar on stderr (:mod:`dpledger.verify.service.progress`); stdout keeps
the result.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

from dpledger.verify.paper.setups import setup
from dpledger.verify.service import Exact, Output
from dpledger.verify.service.progress import progress, progress_callback

LOGISTIC_CANDIDATE = (
    "logistic-loss candidate (ours, not in the seed): a private logistic regression (noisy clipped gradient "
    "descent) on a block of its own, which the learner's private selection may choose"
)
SUBSTITUTES = {
    "improper": (
        "private L1 optimiser: noisy projected subgradient descent (substitute for Kulkarni–Lee–Liu 2021); "
        "subspace step: a degree-5 L1 regression along a direction chosen privately in the top-2 subspace "
        f"of E[∇p∇pᵀ] (not in Algorithm 1); {LOGISTIC_CANDIDATE}"
    ),
    "proper": "subspace: top-k eigenvectors of E[∇p∇pᵀ], k in (1, 2) chosen privately with the degree "
    f"(substitute for DKKTZ21a's eigenvalue threshold); {LOGISTIC_CANDIDATE}",
    "semi-agnostic": "ramp surrogate of width = OPT guess (stand-in for the seed's lost Equation 12); "
    f"{LOGISTIC_CANDIDATE}",
}

ALGORITHMS = ("improper", "proper", "semi-agnostic")
"""The learners of seed 002 (``dpledger.learners.agnostic.LEARNERS``; imported when a run starts)."""

MAX_VALUES = 10**8
"""Largest n·dim of one ``run agnostic`` (2·10⁸ floats ≈ 1.6 GB; about a minute of fitting), and
of (n + test size)·record size of one ``run carry-forward`` (checked before anything is allocated)."""


def run_seeds(seed: int) -> tuple[Any, Any]:
    """The data's and the learner's seeds of a run: the two children of ``SeedSequence(seed)``."""
    import numpy as np

    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"--seed must be an integer ≥ 0, got {seed!r}")
    data, learner = np.random.SeedSequence(seed).spawn(2)
    return data, learner


def carry_forward(
    *,
    concept: str,
    n: int,
    m: int | None = None,
    calibration: str = "tight",
    epsilon: Exact = "1",
    delta: Exact = "1e-6",
    alpha: float = 0.1,
    beta: float = 0.1,
    seed: int = 0,
    test_size: int = 10_000,
    **class_options: Any,
) -> Output:
    """CarryForwardLearner on ``n`` records of the class ``concept`` (a setup's name, built with
    ``class_options``: the keyword values its :attr:`~dpledger.verify.paper.setups.ClassSetup.options`
    name), scored on ``test_size`` fresh records; m from ``calibration`` unless given. Exit
    status 1 when the derived guarantee misses the target (ε, δ); the output then says why and
    what would meet it (:func:`dpledger.accountant.section6_shortfall.shortfall`)."""
    import numpy as np

    from dpledger.learners.carry_forward import HOLDOUT_NOTE, CarryForwardLearner, UtilityWarning, jsonable
    from dpledger.learners.component_oracles import CompletionScoreOracle
    from dpledger.learners.synthetic import random_concept

    problem = setup(concept).build(alpha=alpha, beta=beta, **class_options)
    record_size = max(1, problem.sample(np.random.default_rng(0), 1)[0].size)
    if (n + test_size) * record_size > MAX_VALUES:
        raise ValueError(
            f"(n + test size)·record size must be at most {MAX_VALUES:.0e} (the run holds the training "
            f"and test records in memory), got ({n} + {test_size})·{record_size}; use the learner's API "
            "for more"
        )
    concept_class = problem.concept_class
    data_seed, learner_seed = run_seeds(seed)
    report = progress_callback(
        "CarryForwardLearner (steps)"
    )  # its delay counts from here: the data, then fit
    rng = np.random.default_rng(data_seed)
    target = random_concept(concept_class, rng)
    X = problem.sample(rng, n)
    X_test = problem.sample(rng, test_size)
    oracle = (
        problem.oracle if problem.oracle is not None else CompletionScoreOracle()
    )  # the learner's default
    learner = CarryForwardLearner(
        concept_class,
        oracle=oracle,
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        beta=beta,
        m=m,
        calibration=calibration,
        random_state=learner_seed,
        telemetry=True,  # the run reports Lemma 7.1's round telemetry (exact, unaccounted) with the model
    )
    learner.fit(X, concept_class.evaluate(target, X), X_holdout=X_test, on_progress=report)
    y_test = concept_class.evaluate(target, X_test)
    with warnings.catch_warnings():  # the output carries them, each as a WARNING line
        warnings.simplefilter("ignore", UtilityWarning)
        utility = learner.utility(X_test, y_test)
    sample_size = learner.sample_size_
    g, derivation = learner.guarantee_, learner.derivation_
    assert g is not None and derivation is not None  # a private fit records its ledger
    utility_warnings = list(utility.warnings)
    if utility_warnings and learner.m is None and calibration == "paper":
        utility_warnings.append("the paper's calibration takes the smallest m: try --calibration tight")
    if sample_size.meets is False:
        utility_warnings.append(
            f"n = {n:,} is below Theorem 5.1's sample size for (α, β) = ({alpha}, {beta}) with this calibration: "
            "the learner is not promised error ≤ α at this n"
        )
    above = [r.round for r in learner.rounds_ if r.above_bound]
    if above:
        utility_warnings.append(
            f"LabelBoost's disagreement exceeds its 2τ bound (Lemma 7.1's success event) in round"
            f"{'s' if len(above) > 1 else ''} {', '.join(map(str, above))} of {len(learner.rounds_)}"
        )
    payload = {
        "alpha": float(Fraction(alpha)),
        "beta": float(Fraction(beta)),
        "calibration": sample_size.calibration,
        "constant_error": utility.constant_error,
        "utility": utility.to_dict(),
        "utility_warnings": utility_warnings,
        "sample_size": sample_size.to_dict(),
        "class": repr(concept_class),
        "target_concept": jsonable(target),
        "hypothesis": jsonable(learner.hypothesis_),
        "test_error": utility.test_error,
        "n": n,
        "m": learner.m_,
        "seed": seed,
        "oracle": problem.oracle_description,
        "guarantee": g.bounds(),
        "claimed": {
            "epsilon": float(Fraction(epsilon)),
            "delta": float(Fraction(delta)),
            "epsilon_expr": str(Fraction(epsilon)),
            "delta_expr": str(Fraction(delta)),
        },
        "holds": learner.holds_,
        "why_not": None if learner.holds_ else _shortfall(learner, oracle, n, epsilon, delta).to_dict(),
        "rounds": [r.to_dict() for r in learner.rounds_],
        "oracle_rounds": [r.to_dict() for r in getattr(problem.oracle, "history_", [])],
        "trace": derivation.to_dict(),
    }
    test_error = utility.test_error
    lines = [
        f"CarryForwardLearner on {concept_class!r}, n = {n}, m = {learner.m_} ({sample_size.calibration} "
        f"calibration); oracle: {problem.oracle_description}",
        f"  target concept {payload['target_concept']}, learned {payload['hypothesis']}",
        f"  utility: {sample_size.to_text()}",
        f"  utility: test error {test_error:.4g} on {test_size:,} held-out records against the target α = {alpha} "
        f"and {utility.constant_error:.4g} for the best constant hypothesis",
        f"    ({HOLDOUT_NOTE})",
        *[f"  WARNING: {warning}" for warning in utility_warnings],
        f"  derived guarantee ε ≤ {g.epsilon_text()}, δ ≤ {g.delta_text()} (certified); "
        f"target ({epsilon}, {delta}): {'holds' if learner.holds_ else 'DOES NOT HOLD for this m and n'}",
    ]
    if payload["why_not"] is not None:
        lines.append(f"  why: {payload['why_not']['reason']}")
        lines += [f"  to hold: {remedy}" for remedy in payload["why_not"]["remedies"]]
    lines.append("  round telemetry (telemetry=True: exact, noise-free, covered by no event of the trace):")
    for r in learner.rounds_:
        population = (
            "" if r.population_disagreement is None else f", population {r.population_disagreement:.4g}"
        )
        flag = " — ABOVE 2τ (outside Lemma 7.1's success event)" if r.above_bound else ""
        lines.append(
            f"  round {r.round}: y = {r.component}, oracle τ̂ = {r.oracle_disagreement:.4g}, "
            f"LabelBoost disagreement {r.labelboost_disagreement:.4g} (2τ = {r.bound:.4g}){flag}{population}"
        )
    for r in payload["oracle_rounds"]:
        lines.append(
            f"  oracle round {r['round']}: depth {r['depth']} of m = {r['m']}"
            f" (full depth in the domain: {r['full_depth_in_domain']})"
        )
    lines += ["", derivation.to_text()]
    return Output(payload, "\n".join(lines), 0 if learner.holds_ else 1)


def _shortfall(learner: Any, oracle: Any, n: int, epsilon: Exact, delta: Exact) -> Any:
    """Why the fitted ``learner``'s guarantee misses (ε, δ), from the events its oracle declares
    for the prefixes it ran on (round i's prefix: the first i − 1 learned components)."""
    from dpledger.accountant.section6 import Target
    from dpledger.accountant.section6_shortfall import shortfall

    C = learner.concept_class
    prefixes = [tuple(learner.hypothesis_[:i]) for i in range(C.k)]
    return shortfall(
        Target.of(n, C.k, epsilon, delta),
        learner.m_,
        lambda m: [oracle.event(C, prefix, m) for prefix in prefixes],
        on_progress=progress_callback("why it does not hold: n and m searches (accountings)"),
    )


def agnostic(
    *,
    algorithm: str,
    dim: int,
    n: int,
    epsilon: Exact,
    delta: Exact = "1e-5",
    noise: float = 0.1,
    noise_model: str = "random",
    degree: int | None = None,
    seed: int = 0,
) -> Output:
    """The seed-002 learner ``algorithm`` (one of :data:`ALGORITHMS`) at (ε, δ) on n training and n
    test points in ``dim`` dimensions with a fraction ``noise`` of flipped labels (``noise_model``);
    ``degree``: the polynomial degree (improper, proper; None for the learner's default). Exit status 1
    when the derived guarantee misses the claim."""
    import numpy as np

    from dpledger.learners.agnostic import LEARNERS
    from dpledger.learners.agnostic.data import halfspace_data, labelled_sample
    from dpledger.learners.randomness import Sampled

    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    data_seed, learner_seed = run_seeds(seed)
    if degree is not None and algorithm == "semi-agnostic":
        raise ValueError("--degree does not apply to --algorithm semi-agnostic")
    if n * dim > MAX_VALUES:
        raise ValueError(
            f"n·dim must be at most {MAX_VALUES:.0e} (the run holds a training and a test sample of "
            f"n points in memory and fits twice), got {n}·{dim}; use the learners' API for more"
        )
    advance = progress(3, f"run agnostic {algorithm} (data, private fit, privacy-off fit)")
    rng = Sampled(data_seed)
    train = halfspace_data(n, dim, noise, noise_model, rng)
    test = labelled_sample(n, train.w, train.t, noise, noise_model, rng, tilt=train.tilt)
    advance(1)
    options: dict[str, Any] = {} if degree is None else {"degree": degree}
    learner_class = LEARNERS[algorithm]
    private = learner_class(epsilon, delta, random_state=learner_seed, **options).fit(train.X, train.y)
    advance(2)
    baseline = learner_class(None, None, random_state=learner_seed, **options).fit(train.X, train.y)
    advance(3)
    derivation, g = private.derivation_, private.guarantee_
    assert derivation is not None and g is not None  # a private fit records its ledger
    claim = derivation.claims()[0]
    payload = {
        "algorithm": algorithm,
        "statement": claim.statement,
        "dim": dim,
        "n": n,
        "noise": noise,
        "noise_model": noise_model,
        "seed": seed,
        "test_error": 1.0 - private.score(test.X, test.y),
        "opt_error": float(np.mean(test.target_predictions(test.X) != test.y)),
        "nonprivate_error": 1.0 - baseline.score(test.X, test.y),
        "guarantee": g.to_dict(),
        "claimed": {"statement": claim.statement, "epsilon": epsilon, "delta": delta},
        "holds": private.claim_holds(),
        "substitute": SUBSTITUTES[algorithm],
        "selections": [selection.to_dict() for selection in private.selections_],
        "trace": derivation.to_dict(),
    }
    text = "\n".join(
        [
            f"{algorithm} learner ({claim.statement}), d={dim}, n={n}, {noise:g} {noise_model} label noise, seed {seed}",
            f"  test error        {payload['test_error']:.4f}",
            f"  target halfspace  {payload['opt_error']:.4f}  (OPT on the same noisy labels)",
            f"  privacy off       {payload['nonprivate_error']:.4f}",
            f"  certified         ε ≤ {g.epsilon_text()}, δ ≤ {g.delta_text()}",
            f"  claimed           ε = {epsilon}, δ = {delta}: {'holds' if payload['holds'] else 'FAILS'}",
            f"  substitute        {payload['substitute']}",
            "selections (candidates and choice of every private selection step):",
            *[f"  {selection.to_text()}" for selection in private.selections_],
            "derivation:",
            derivation.to_text(),
        ]
    )
    return Output(payload, text, 0 if payload["holds"] is True else 1)
