"""``dpledger audit``: exact audits of the seeds' releases and Monte Carlo audits of mechanisms.

* ``labelboost``: the exact worst-case ε of a LabelBoost release (Algorithm 1) over all neighbour
  pairs of small datasets, against Lemma 3.17 (carrier), 3.14 (weights), 3.15 (continuation)
  (:mod:`dpledger.verify.paper.labelboost_audit`);
* ``macro-block``: the exact ε of a CarryForwardLearner block against Lemmas 6.2, 6.4 and the
  oracle's Assumption 4.4 (:mod:`dpledger.verify.paper.block_audits`);
* ``mechanism``: a certified Monte Carlo lower bound on the ε of a user's mechanism on two
  neighbouring inputs (:func:`dpledger.verify.audit.montecarlo.audit.audit`);
* ``catalog``: the same for the mechanisms of :mod:`dpledger.verify.audit.montecarlo.catalogs.known_epsilon`,
  compared with their known ε;
* ``suites``: the same for StatDP's and DP-Sniper's mechanism suites, beside the optimal-statistic
  limit and DP-Sniper's published bounds (:mod:`dpledger.verify.audit.montecarlo.catalogs.suites`);
* ``learner``: the same for an agnostic halfspace learner of seed 002 on neighbouring datasets
  chosen to be hard (:func:`dpledger.verify.audit.montecarlo.learner_adapter.audit_learner_hard`).
"""

from __future__ import annotations

import decimal
import json
import math
import textwrap
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dpledger.accountant.numerics.certified import lower_bound_text, upper_bound_text
from dpledger.verify.service import Exact, Output
from dpledger.verify.service.progress import progress, progress_callback

if TYPE_CHECKING:  # the auditors (scipy.stats, numpy) are imported when an audit runs
    from dpledger.verify.audit.montecarlo.audit import MonteCarloAuditResult
    from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import CatalogRow


def _describe(pair: Any) -> dict[str, Any]:
    """A dataset (S, T) as JSON: S as [point, label] records, T as points."""
    s, t = pair
    return {"S": [[x, y] for x, y in s], "T": list(t)}


def labelboost(
    *,
    class_name: str,
    domain_size: int,
    labeled: int,
    unlabeled: int,
    release: str = "carrier",
    continuation_epsilon: Exact = "0.5",
    workers: int = 2,
    scheduler: str | None = None,
) -> Output:
    """The exact privacy of the LabelBoost ``release`` for ``class_name`` on [0, D)^d over all
    neighbour pairs of datasets with ``labeled`` labeled and ``unlabeled`` unlabeled records,
    enumerated by ``workers`` processes, or on Dask when a ``scheduler`` address (or "local") is
    given — the same result bit for bit ('hypothesis' releases the selected representative, which
    no lemma covers). Exit status 1 unless the bound is proved to hold."""
    from dpledger.verify.audit.exact import json_number
    from dpledger.verify.paper.labelboost_audit import LabelBoostAudit, audit_labelboost

    audit = LabelBoostAudit(
        class_name, domain_size, labeled, unlabeled, release, Fraction(continuation_epsilon)
    )
    started = time.perf_counter()
    if scheduler is None:
        result = audit_labelboost(audit, workers=workers, progress=progress)
    else:
        from dpledger.verify.audit.montecarlo.executors import open_executor

        with open_executor(scheduler, workers) as executor:
            result = audit_labelboost(audit, executor=executor, progress=progress)
    seconds = time.perf_counter() - started
    holds = result.holds
    payload = {
        "class": class_name,
        "domain_size": domain_size,
        "labeled": labeled,
        "unlabeled": unlabeled,
        "release": release,
        "statement": audit.statement,
        "epsilon_exact": json_number(result.epsilon[1]),
        "epsilon_exact_interval": [json_number(v) for v in result.epsilon],
        "bound": float(result.claimed_epsilon),
        "bound_expr": str(result.claimed_epsilon),
        "holds": holds,
        "tightness": json_number(result.tightness),
        "pairs": result.pairs,
        "datasets": result.datasets,
        "distributions": result.distributions,
        "worst_pair": [_describe(d) for d in result.worst_pair] if result.worst_pair else None,
        "worst_pair_profile": result.worst_profile,
        "delta_at_bound": result.delta_at_bound,
        "worst_delta_pair": [_describe(d) for d in result.worst_delta_pair]
        if result.worst_delta_pair
        else None,
        "worst_delta_pair_profile": result.worst_delta_profile,
        "seconds": round(seconds, 2),
        "certified": "epsilon_exact is the upper end of a certified interval; holds is decided rigorously "
        "(null when certified arithmetic cannot decide)",
        "reduction": "S and T are enumerated as multisets and pairs substitute one element "
        "(LabelBoost depends on S as a multiset and on T through its distinct points); "
        "for thresholds, intervals and rectangles each distribution is enumerated once per "
        "rank pattern of the points, the hypothesis release excepted (the same certified intervals)",
    }
    verdict = {True: "holds", False: "VIOLATED", None: "undecided"}[holds]
    text = (
        f"LabelBoost {release} release, {class_name} on D={domain_size}, "
        f"|S|={labeled}, |T|={unlabeled} ({audit.statement}):\n"
        f"  exact worst-case ε ∈ [{lower_bound_text(result.epsilon[0], 12)}, {upper_bound_text(result.epsilon[1], 12)}] over {result.pairs} neighbour pairs "
        f"({result.distributions} exact distributions)\n"
        f"  bound {result.claimed_epsilon} = {float(result.claimed_epsilon):.12g}: {verdict} (tightness {result.tightness:.4f})\n"
        f"  worst pair: {result.worst_pair}\n"
        f"  largest δ at ε = bound over all pairs ≤ {upper_bound_text(result.delta_at_bound)}\n"
        f"  {seconds:.1f} s"
    )
    return Output(payload, text, 0 if holds is True else 1)


def macro_block(
    *,
    concept: str = "intervals",
    domain_size: int = 4,
    m: int = 2,
    block: str = "macro",
    reservoir: int = 3,
    oracle_epsilon: Exact = 4,
) -> Output:
    """The exact worst-case ε of a CarryForwardLearner ``block`` (macro, init or oracle) for
    ``concept`` on a domain of ``domain_size``, active sample size ``m``, a fixed next reservoir of
    ``reservoir`` points and a completion-score oracle of ε_A = ``oracle_epsilon``. Exit status 1
    unless the bound is proved to hold."""
    from dpledger.verify.paper.block_audits import BlockAudit, audit_block

    audit = BlockAudit(concept, domain_size, m, block, Fraction(oracle_epsilon), reservoir)
    result = audit_block(audit, progress=progress)
    payload = {
        "block": block,
        "statement": audit.statement,
        "class": concept,
        "domain_size": domain_size,
        "m": m,
        "epsilon_exact": result.epsilon[1],
        "epsilon_exact_interval": list(result.epsilon),
        "bound": float(audit.bound),
        "bound_expr": str(audit.bound),
        "holds": result.holds,
        "tightness": result.tightness,
        "pairs": result.pairs,
        "worst_pair": [repr(side) for side in result.worst_pair] if result.worst_pair else None,
    }
    verdict = {True: "holds", False: "FAILS", None: "undecided"}[result.holds]
    text = (
        f"{audit.statement}: exact worst-case ε of the {block} block ({concept}, D = {domain_size}, "
        f"m = {m}) over {result.pairs} neighbour pairs\n"
        f"  ε_exact ∈ [{lower_bound_text(result.epsilon[0], 10)}, {upper_bound_text(result.epsilon[1], 10)}]  bound {audit.bound} ≈ {float(audit.bound):.6g}"
        f"  → {verdict} (tightness {result.tightness:.3g})\n  worst pair: {payload['worst_pair']}"
    )
    return Output(payload, text, 0 if result.holds is True else 1)


QCOPT_STEPS = ("choosing", "level", "recconcave")


def qcopt(*, step: str = "level") -> Output:
    """The exact ε at the claimed δ of QCOpt as implemented (RecConcave, Proposition 8.6) or one of
    its steps, over every neighbour pair of a small instance (:mod:`dpledger.verify.paper.qcopt_audits`):
    ``choosing`` — the choosing mechanism (ε = 2, t = 10, k = 3, scores in [0, 16]); ``level`` —
    one level's steps given k = 0 at (ε, δ) = (6, 10⁻³), qualities of 3 positions; ``recconcave`` —
    the whole optimiser at depth 1, (ε, δ) = (8, 3/10), qualities of 4 positions in [0, 8]. Exit
    status 1 unless the claim is proved to hold."""
    from dpledger.verify.paper import qcopt_audits

    if step not in QCOPT_STEPS:
        raise ValueError(f"step must be one of {', '.join(QCOPT_STEPS)}, got {step!r}")
    audits = {
        "choosing": lambda: qcopt_audits.audit_choosing(2, 10, 3, 16),
        "level": lambda: qcopt_audits.audit_level(6, "1/1000"),
        "recconcave": lambda: qcopt_audits.audit_recconcave(8, "3/10", size=4, top=8),
    }
    claim, result = audits[step]()
    measured = result.epsilon_at_delta or (math.nan, math.nan)
    claimed = (float(claim.epsilon), float(claim.delta))
    payload = {
        "step": step,
        **claim.to_dict(),
        "claimed_epsilon": claimed[0],
        "claimed_delta": claimed[1],
        "epsilon_at_delta": list(measured),
        "epsilon_exact": measured[1],
        "bound": claimed[0],
        "tightness": measured[1] / claimed[0],
        "holds": result.holds,
        "pairs": result.pairs,
        "datasets": result.datasets,
    }
    verdict = {True: "holds", False: "FAILS", None: "undecided"}[result.holds]
    text = (
        f"{claim.statement} — {step}: exact ε at δ = {claimed[1]:.6g} over {result.pairs:,} neighbour pairs "
        f"of {result.datasets:,} inputs\n"
        f"  ε(δ) ∈ [{lower_bound_text(measured[0], 10)}, {upper_bound_text(measured[1], 10)}]  claim ε = {claim.epsilon} ≈ {claimed[0]:.6g}"
        f"  → {verdict} (measured/claim {payload['tightness']:.3g})"
    )
    return Output(payload, text, 0 if result.holds is True else 1)


MAX_PAIRS = 1_000
"""Neighbour pairs of one ``audit mechanism`` (``--domain`` makes records × values of them): each
pair costs 2·samples runs and a search; 1000 pairs at 10⁶ samples are 2·10⁹ runs (minutes)."""

MAX_RUNS = 2 * 10**10
"""Mechanism runs of one ``audit mechanism`` over all pairs (one pair at the CLI's 10¹⁰ samples per
input): about 40 minutes at 9·10⁶ runs per second."""


def _check_work(pairs: int, samples: int) -> None:
    """Refuse, with the estimate, an audit above :data:`MAX_PAIRS` pairs or :data:`MAX_RUNS` runs."""
    from dpledger.verify.audit.montecarlo.tasks import chunk_sizes

    runs = 2 * pairs * samples
    if pairs > MAX_PAIRS or runs > MAX_RUNS:
        raise ValueError(
            f"too much work: {pairs:,} neighbour pairs × 2 inputs × {samples:,} runs = {runs:.3g} mechanism runs in "
            f"{2 * pairs * len(chunk_sizes(samples)):,} tasks; at most {MAX_PAIRS:,} pairs and {MAX_RUNS:.0e} runs "
            "per audit — use fewer records or --domain values, or fewer --samples"
        )


def mechanism(
    *,
    mechanism: str,
    claimed_epsilon: float,
    input_a: Any = None,
    input_b: Any = None,
    domain: Any = None,
    delta: float = 0.0,
    samples: int = 1_000_000,
    per_sample: bool = False,
    confidence: float = 0.95,
    seed: int = 0,
    scheduler: str | None = None,
    workers: int | None = None,
    stages: int = 4,
    timeout: float | None = None,
    search: bool = False,
    input_length: int | None = None,
    relation: str = "substitute",
    screen_samples: int | None = None,
    network: bool = False,
) -> Output:
    """A Monte Carlo lower bound on the ε of ``mechanism`` (``module:function``, vectorised
    ``f(data, n, rng)``, or ``f(data, rng)`` with ``per_sample``) on the inputs ``input_a`` and
    ``input_b`` (lists become arrays) and, given a ``domain`` of record values, on every
    substitute-one neighbour of ``input_a``; run on ``scheduler`` (a Dask address or 'local') or
    ``workers`` local processes, stopped after ``timeout`` seconds. With ``search``, or when no
    pair is given, the neighbouring inputs are searched instead (:func:`_searched`). ``network``:
    also search a small perceptron's score on vector outputs (DP-Sniper's MLP; opt-in). The mechanism
    is code that runs (:func:`~dpledger.verify.audit.montecarlo.mechanism.load_mechanism`). Audits
    above :data:`MAX_PAIRS` pairs or :data:`MAX_RUNS` runs are refused with the estimate. Exit
    status 1 when the claim fails: a ``VIOLATION`` (real-number events) or a ``FLOAT LEAK``
    (float-artefact events only)."""
    import numpy as np

    from dpledger.verify.audit.montecarlo.audit import audit
    from dpledger.verify.audit.montecarlo.executors import open_executor
    from dpledger.verify.audit.montecarlo.mechanism import load_mechanism
    from dpledger.verify.audit.montecarlo.pairs import NeighbourPair, identical_inputs, substitute_one

    if (input_a is None) != (input_b is None):
        raise ValueError(
            "give both --input-a and --input-b, or neither (a search over --input-length records)"
        )
    if search or input_a is None:
        return _searched(
            mechanism=mechanism,
            claimed_epsilon=claimed_epsilon,
            input_a=input_a,
            input_b=input_b,
            domain=domain,
            delta=delta,
            samples=samples,
            per_sample=per_sample,
            confidence=confidence,
            seed=seed,
            scheduler=scheduler,
            workers=workers,
            timeout=timeout,
            input_length=input_length,
            relation=relation,
            screen_samples=screen_samples,
            network=network,
        )
    function = load_mechanism(mechanism, per_run=per_sample)
    first = _as_data(input_a)
    given = NeighbourPair(first, _as_data(input_b), "input-a vs input-b")
    pairs = [] if domain is not None and identical_inputs(given.a, given.b) else [given]
    if domain is not None:
        if np.ndim(first) != 1 or np.ndim(domain) != 1:
            raise ValueError("--domain needs input-a and the domain to be JSON lists of records")
        records, values = first.tolist(), _as_data(domain).tolist()
        counts = Counter(json.dumps(value) for value in values)
        _check_work(
            1 + sum(len(values) - counts[json.dumps(record)] for record in records), samples
        )  # before building
        pairs += substitute_one(records, values)
    _check_work(len(pairs), samples)
    with open_executor(scheduler, workers) as executor:
        result = audit(
            function,
            pairs,
            claimed_epsilon,
            claimed_delta=delta,
            samples=samples,
            confidence=confidence,
            seed=seed,
            executor=executor,
            stages=stages,
            on_progress=progress_callback("audit"),
            timeout=timeout,
            network=network,
        )
    return Output(payload=result.to_json(), text=_mechanism_text(result), status=1 if result.violation else 0)


SEARCH = {"rounds": 3, "moves": 6, "keep": 3, "certify": 3}
"""The CLI's search plan (:func:`dpledger.verify.audit.montecarlo.input_search.search_inputs`)."""


def _searched(
    *,
    mechanism: str,
    claimed_epsilon: float,
    input_a: Any,
    input_b: Any,
    domain: Any,
    delta: float,
    samples: int,
    per_sample: bool,
    confidence: float,
    seed: int,
    scheduler: str | None,
    workers: int | None,
    timeout: float | None,
    input_length: int | None,
    relation: str,
    screen_samples: int | None,
    network: bool,
) -> Output:
    """``audit mechanism --search``: the pattern pairs (and the given pair) screened with
    ``screen_samples`` runs per input (default samples/10, at least 2,000), hill-climbed, and the
    best certified on fresh runs (:mod:`~dpledger.verify.audit.montecarlo.input_search`); records
    ``input_length`` long (default: input-a's length) over ``domain``."""
    import numpy as np

    from dpledger.verify.audit.montecarlo.executors import open_executor
    from dpledger.verify.audit.montecarlo.input_search import search_inputs, search_work
    from dpledger.verify.audit.montecarlo.mechanism import load_mechanism
    from dpledger.verify.audit.montecarlo.pairs import NeighbourPair, identical_inputs

    given = (
        [] if input_a is None else [NeighbourPair(_as_data(input_a), _as_data(input_b), "input-a vs input-b")]
    )
    given = [pair for pair in given if not identical_inputs(pair.a, pair.b)]  # the search finds others
    if input_length is None:
        if input_a is None or np.ndim(input_a) != 1:
            raise ValueError("a search needs --input-length N (or --input-a as a JSON list of records)")
        input_length = len(input_a)
    if domain is not None and np.ndim(domain) != 1:
        raise ValueError("--domain must be a JSON list of record values")
    if relation == "substitute" and domain is None:
        raise ValueError(
            "a search over datasets (--relation substitute) needs --domain, a JSON list of record values"
        )
    screen = screen_samples if screen_samples is not None else max(2_000, samples // 10)
    tried = search_work(
        relation, input_length, domain, len(given), SEARCH["rounds"], SEARCH["moves"], SEARCH["keep"]
    )
    _check_work(tried, screen)
    _check_work(SEARCH["certify"], samples)
    function = load_mechanism(mechanism, per_run=per_sample)
    with open_executor(scheduler, workers) as executor:
        found = search_inputs(
            function,
            claimed_epsilon,
            relation=relation,
            length=input_length,
            domain=domain,
            given=given,
            delta=delta,
            samples=samples,
            screen_samples=screen,
            confidence=confidence,
            seed=seed,
            executor=executor,
            timeout=timeout,
            network=network,
            on_progress=progress_callback,
            **SEARCH,
        )
    lines = [
        f"searched {found.tried} neighbouring pairs ({relation}; {screen:,} screening runs per input), "
        f"certified the best {len(found.certified)} on fresh runs:"
    ]
    lines += [f"  {s.pair.label}: screening bound {s.score:.4f}" for s in found.certified]
    return Output(
        payload=found.to_json(),
        text="\n".join(lines) + "\n" + _mechanism_text(found.result),
        status=1 if found.result.violation else 0,
    )


def _as_data(value: Any) -> Any:
    """An input as the mechanism receives it: a list becomes a numpy array."""
    import numpy as np

    return np.asarray(value) if isinstance(value, list) else value


FLOAT_ATTACK = (
    'Mironov 2012, "On significance of the least significant bits for differential privacy" (CCS): '
    "noise drawn and added in floating point reaches different sets of doubles from neighbouring inputs, "
    "so the low bits of an output tell the inputs apart"
)
FLOAT_REMEDY = (
    "release through Mironov's snapping mechanism (dpledger.learners.snapping.snapping_laplace) or exact "
    "discrete noise on a grid (dpledger.learners.noise.laplace_noise, gaussian_noise); see docs/audit.md"
)


def _floor_text(value: float, above: float) -> str:
    """A certified lower bound rounded down (never above it), in 3 significant digits or as many
    more as show it ``above`` the claim it exceeds."""
    for digits in range(3, 18):
        with decimal.localcontext() as context:
            context.prec, context.rounding = digits, decimal.ROUND_FLOOR
            text = +decimal.Decimal(value)
        if text > decimal.Decimal(above):
            break
    return str(text)


def _mechanism_text(result: MonteCarloAuditResult) -> str:
    """The verdict said plainly: both bounds, what failed, the witness in words, the remedy."""
    float_bound = (
        "n/a (no float outputs)"
        if result.float_epsilon_lower is None
        else lower_bound_text(result.float_epsilon_lower, 4)
    )
    lines = [
        f"verdict: {result.verdict}  (claimed ε = {result.claimed_epsilon}, δ = {result.claimed_delta}, "
        f"confidence {result.confidence})"
    ]
    if result.delta_violation and result.delta_lower is not None:
        lines.append(
            f"VIOLATION: δ ≥ {_floor_text(result.delta_lower, result.claimed_delta)} at ε = "
            f"{result.claimed_epsilon} (claimed δ = {result.claimed_delta})"
        )
    if result.one_sided and result.verdict != "NO VIOLATION FOUND":
        witness = result.witness or {}
        first, second = witness["hits"]
        lines.append(
            _wrapped(
                f"an output only one input produced: {witness['hits'][first]} runs on {first} fell in the "
                f"event, none of the {witness['runs'][second]} on {second} — the true ε may be ∞; the "
                "ε bound below is the ceiling these runs can certify, not an estimate"
            )
        )
    if result.verdict == "VIOLATION":
        lines.append(
            _wrapped(
                "the claim fails on events about the output's value: the mechanism is not ε-DP even as "
                "a mechanism over the real numbers (check the noise scale, the sensitivity, the "
                "accounting)"
            )
        )
    elif result.verdict == "FLOAT LEAK":
        lines.append(
            _wrapped(
                "the claim holds as far as events about the output's value show, but the floating-point "
                "implementation leaks through the low bits of its outputs (float attack: "
                + FLOAT_ATTACK
                + ")"
            )
        )
    lines += [
        f"ε lower bound from real-number events  {lower_bound_text(result.real_epsilon_lower, 4)}",
        f"ε lower bound from float-artefact events {float_bound}",
        f"{result.samples} runs per input ({result.samples_total} in all), {result.seconds:.2f} s, "
        f"stage {result.stages_run} of {result.stages_planned}",
        f"corrected for {result.candidates_corrected} events estimated on split 2 "
        f"(chosen among {result.candidates_searched} compared on split 1)",
    ]
    if result.witness:
        lines += _witness_lines(result.witness)
    if result.verdict == "FLOAT LEAK":
        lines.append(_wrapped(f"remedy: {FLOAT_REMEDY}", first=""))
    return "\n".join(lines)


def _wrapped(text: str, first: str = "  ") -> str:
    """A long explanation wrapped at 100 columns, continuation lines indented."""
    return textwrap.fill(text, width=100, initial_indent=first, subsequent_indent="  ")


def _witness_lines(witness: dict[str, Any]) -> list[str]:
    """A witness in words: the pair, the event, the hit counts."""
    first, second = witness["hits"]
    return [
        f"witness ({witness['kind']} event): pair {witness['pair']['label']!r}, E = {event_text(witness['event'])}",
        f"  {witness['hits'][first]} of {witness['runs'][first]} runs on {first} fell in E, "
        f"{witness['hits'][second]} of {witness['runs'][second]} on {second}; "
        f"tested {witness['direction']}",
    ]


def event_text(event: dict[str, Any]) -> str:
    """An event of a witness (``Event.describe()``) in words."""
    if event["type"] == "exact values":
        return "the output is one of " + ", ".join(json.dumps(value) for value in event["values"])
    if event["type"] == "one-sided outputs":
        where = (
            "equals"
            if event["view"] == "exact values"
            else f"lies in the cell (width {event['cell_width']}) of"
        )
        examples = ", ".join(json.dumps(value) for value in event["examples"])
        return f"the output {where} one of {event['keys']} outputs only one input produced on split 1 (e.g. {examples})"
    statistic = event["statistic"]
    bits = event.get("zero_low_significand_bits")
    subject = {
        "output": "the output",
        "output on lattice": (
            f"the output{'' if 'coordinate' not in event else ' coordinate ' + str(event['coordinate'])}"
            f", whose float64 significand ends in {bits} zero bits,"
        ),
        "coordinates on lattice (count)": f"the number of coordinates whose float64 significand ends in {bits} zero bits",
        "coordinates off the grid": f"the number of coordinates off the grid {event.get('grid')}",
    }.get(statistic, "the distinguisher's score " + statistic)
    lower, upper = event["lower_exclusive"], event["upper_inclusive"]
    if lower == "-inf":
        return f"{subject} is ≤ {upper:.6g}"
    if upper == "inf":
        return f"{subject} is > {lower:.6g}"
    return f"{subject} lies in ({lower:.6g}, {upper:.6g}]"


LEARNER_SAMPLES = 600
"""Default fits per input of ``audit learner``: the three hard pairs cost 3,600 fits (one chunk, one
stage); the proper learner fits in about 25 ms."""

RELEASED = {
    "improper": ("block_coefs_", "direction_", "block_", "threshold_"),
    "proper": ("polynomial_", "coef_", "intercept_"),
    "semi-agnostic": ("iterates_", "run_thresholds_", "coef_", "intercept_"),
}
"""The fitted state each learner releases and its theorem's claim covers (the noisy statistics of
its trace and the selected hypothesis), audited by ``audit learner``
(:class:`~dpledger.verify.audit.montecarlo.learner_adapter.FittedState`). Every part has a shape
fixed by the parameters: the improper learner's selected model is named by ``block_`` (its
coefficients are ``block_coefs_[block_]``, whose length depends on the block's degree)."""

LEARNER_MODES = ("both", "white-box", "black-box")
"""``audit learner --mode``: the white-box audit of every release against its event
(:mod:`dpledger.verify.paper.white_box`), the black-box Monte Carlo audit of the released state, or
the white-box audit first and the black-box one only when it finds nothing."""


def learner(
    *,
    algorithm: str,
    epsilon: float,
    delta: float = 1e-5,
    dimension: int = 2,
    records: int | None = None,
    extreme: float = 10.0,
    samples: int = LEARNER_SAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    scheduler: str | None = None,
    workers: int | None = None,
    stages: int = 4,
    timeout: float | None = None,
    mode: str = "both",
) -> Output:
    """Audit the seed-002 learner ``algorithm`` (improper, proper, semi-agnostic; Theorems 2.1, 3.1,
    4.1) built with privacy (``epsilon``, ``delta``) and its defaults otherwise, against that claim.

    Args:
        algorithm: ``"improper"``, ``"proper"``, ``"semi-agnostic"`` or ``"carry-forward"``
            (CarryForwardLearner on intervals over 64 points, white-box only: its selections
            redrawn against their events' ε and its ledger against the claim; its oracles'
            sensitivities are checked by the test suite).
        epsilon: The learner's ε, and the claim.
        delta: The learner's δ, and the claim.
        dimension: Dimension of the records.
        records: Records per dataset (black-box: default the fewest the learner accepts; white-box:
            default 3000).
        extreme: Distance of the canaries from the origin (black-box).
        samples: Fits per input (black-box).
        confidence: Confidence of the black-box audit; the white-box audit's is at least
            1 − 10⁻⁶ (:data:`~dpledger.verify.paper.white_box.WHITE_BOX_CONFIDENCE`).
        seed: Seed of the audit.
        scheduler: Executor of the black-box audit (:func:`open_executor`).
        workers: Its number of workers.
        stages: Its number of stages.
        timeout: Its time limit in seconds.
        mode: One of :data:`LEARNER_MODES`. White-box
            (:func:`~dpledger.verify.paper.white_box.white_box_audit`): every release's noise against
            its declared law, every selection redrawn against its declared ε, every statistic on
            worst-case neighbours against its declared sensitivity, the model as post-processing of
            the releases — on ``records`` halfspace records in ``dimension`` dimensions, one in ten
            pushed beyond every clipping radius. Black-box: a Monte Carlo lower bound on the ε of
            the released state (:data:`RELEASED`) on the hard pairs of
            :func:`~dpledger.verify.audit.montecarlo.pairs.hard_learner_pairs`. ``"both"`` runs the
            white-box audit first and stops at its violation.

    Returns:
        The :class:`Output`; exit status 1 when a check finds the claim violated.

    Raises:
        ValueError: On bad input.
    """
    from dpledger.learners.agnostic.repeated_fits import LearnerFactory

    if (records is not None and records < 1) or dimension < 1:
        raise ValueError(f"records and dimension must be at least 1, got {records} and {dimension}")
    if mode not in LEARNER_MODES:
        raise ValueError(f"mode must be one of {LEARNER_MODES}, got {mode!r}")
    if algorithm == "carry-forward":
        if mode == "black-box":
            raise ValueError(
                "the carry-forward learner has no black-box audit here: its blocks are audited exactly "
                "(dpledger audit macro-block); use --mode white-box"
            )
        white = _white_box_carry_forward(epsilon, delta, records, confidence, seed)
        summary = {"algorithm": algorithm, "mode": "white-box", "white_box": white.to_json()}
        return Output(payload=summary, text=white.to_text(), status=1 if white.violation else 0)
    factory = LearnerFactory(algorithm, (("epsilon", epsilon), ("delta", delta)))
    payload: dict[str, Any] = {"algorithm": algorithm, "dimension": dimension, "mode": mode}
    text = ""
    if mode != "black-box":
        white = _white_box_learner(factory, algorithm, epsilon, delta, dimension, records, confidence, seed)
        payload["white_box"] = white.to_json()
        text = white.to_text()
        if white.violation or mode == "white-box":
            return Output(payload=payload, text=text, status=1 if white.violation else 0)
    black = _black_box_learner(
        factory,
        algorithm,
        epsilon,
        delta,
        dimension,
        records,
        extreme,
        samples,
        confidence,
        seed,
        scheduler,
        workers,
        stages,
        timeout,
    )
    payload["released"] = list(RELEASED[algorithm])
    payload.update(black.to_json())
    text = (text + "\n" if text else "") + (
        f"learner {algorithm} (ε = {epsilon:g}, δ = {delta:g}) on hard pairs:\n" + _mechanism_text(black)
    )
    return Output(payload=payload, text=text, status=1 if black.violation else 0)


WHITE_BOX_RECORDS = 3000
"""Records of the white-box audit's dataset when ``records`` is not given."""


def _white_box_learner(
    factory: Any,
    algorithm: str,
    epsilon: float,
    delta: float,
    dimension: int,
    records: int | None,
    confidence: float,
    seed: int,
) -> Any:
    import numpy as np

    from dpledger.learners.agnostic.data import halfspace_data
    from dpledger.learners.randomness import Sampled
    from dpledger.verify.paper.white_box import WHITE_BOX_CONFIDENCE, white_box_audit

    n = WHITE_BOX_RECORDS if records is None else records
    sample = halfspace_data(n, dimension, 0.1, "random", Sampled(seed))
    X = np.array(sample.X, dtype=float)
    X[::10] *= 20  # one record in ten beyond every clipping radius (value-independent positions)
    return white_box_audit(
        algorithm,
        factory,
        X,
        sample.y,
        claim=(epsilon, delta),
        confidence=max(confidence, WHITE_BOX_CONFIDENCE),
        seed=seed,
        on_progress=progress_callback("white-box audit"),
    )


CARRY_FORWARD_RECORDS = 1_000_000
"""Records of the carry-forward white-box audit's dataset (intervals over 64 points) by default."""


@dataclass(frozen=True)
class CarryForwardFactory:
    """``factory(seed)``: CarryForwardLearner on intervals over 64 points at (ε, δ), the tight
    calibration, ``random_state=seed``."""

    epsilon: float
    delta: float

    def __call__(self, seed: int) -> Any:
        from dpledger.learners.carry_forward import CarryForwardLearner
        from dpledger.learners.concept_classes import Intervals

        return CarryForwardLearner(
            Intervals(64), epsilon=self.epsilon, delta=self.delta, calibration="tight", random_state=seed
        )


def _white_box_carry_forward(
    epsilon: float, delta: float, records: int | None, confidence: float, seed: int
) -> Any:
    import numpy as np

    from dpledger.learners.concept_classes import Intervals
    from dpledger.learners.synthetic import random_concept
    from dpledger.verify.paper.white_box import WHITE_BOX_CONFIDENCE, white_box_audit

    n = CARRY_FORWARD_RECORDS if records is None else records
    rng = np.random.default_rng(seed)
    concept_class = Intervals(64)
    X = rng.integers(0, 64, size=n)
    y = np.asarray(concept_class.evaluate(random_concept(concept_class, rng), X))
    return white_box_audit(
        "carry-forward",
        CarryForwardFactory(epsilon, delta),
        X,
        y,
        claim=(epsilon, delta),
        confidence=max(confidence, WHITE_BOX_CONFIDENCE),
        seed=seed,
        neighbours=False,
        on_progress=progress_callback("white-box audit"),
    )


def _black_box_learner(
    factory: Any,
    algorithm: str,
    epsilon: float,
    delta: float,
    dimension: int,
    records: int | None,
    extreme: float,
    samples: int,
    confidence: float,
    seed: int,
    scheduler: str | None,
    workers: int | None,
    stages: int,
    timeout: float | None,
) -> MonteCarloAuditResult:
    from dpledger.verify.audit.montecarlo.executors import open_executor
    from dpledger.verify.audit.montecarlo.learner_adapter import FittedState, audit_learner_hard

    with open_executor(scheduler, workers) as executor:
        result = audit_learner_hard(
            factory,
            epsilon,
            dimension=dimension,
            records=records,
            extreme=extreme,
            featurize=FittedState(RELEASED[algorithm]),
            executor=executor,
            claimed_delta=delta,
            samples=samples,
            confidence=confidence,
            seed=seed,
            stages=stages,
            on_progress=progress_callback("audit"),
            timeout=timeout,
        )
    return result


def suites(
    *,
    samples: int = 100_000,
    only: Sequence[str] | None = None,
    seed: int = 0,
    scheduler: str | None = None,
    workers: int | None = None,
) -> Output:
    """dpledger's lower bound on each mechanism of StatDP's and DP-Sniper's suites (``only``: these
    names) with ``samples`` runs per input on DP-Sniper's pair, against the mechanism's claim,
    beside the true ε, the optimal-statistic limit at the same runs and DP-Sniper's published
    bound (:func:`dpledger.verify.audit.montecarlo.catalogs.suites.run_suites`). Exit status 1 when a
    correct mechanism is flagged or a bound exceeds the true ε (the audit unsound); how many buggy
    ones are flagged is reported (it grows with ``samples``)."""
    from dpledger.verify.audit.montecarlo.catalogs.suites import run_suites, select, suites_text
    from dpledger.verify.audit.montecarlo.executors import open_executor

    rows = select(only)
    with open_executor(scheduler, workers) as executor:
        payload = run_suites(rows, samples, executor, seed, progress_callback)
    return Output(payload=payload, text=suites_text(payload), status=0 if payload["all_sound"] else 1)


def catalog(
    *,
    samples: int = 200_000,
    only: Sequence[str] | None = None,
    confidence: float = 0.95,
    seed: int = 0,
    scheduler: str | None = None,
    workers: int | None = None,
    stages: int = 4,
) -> Output:
    """Audit the catalog's mechanisms (``only``: these names) and compare each bound with the known
    ε; exit status 1 unless every verdict is the expected one."""
    from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import run_catalog
    from dpledger.verify.audit.montecarlo.executors import open_executor

    with open_executor(scheduler, workers) as executor:
        rows = run_catalog(
            executor,
            samples=samples,
            confidence=confidence,
            seed=seed,
            names=only,
            on_progress=progress_callback,
            stages=stages,
        )
    payload = {
        "samples": samples,
        "confidence": confidence,
        "mechanisms": [row.to_json() for row in rows],
        "all_as_expected": all(row.as_expected for row in rows),
    }
    return Output(payload=payload, text=catalog_table(rows), status=0 if payload["all_as_expected"] else 1)


def catalog_table(rows: list[CatalogRow]) -> str:
    """The catalog results as a text table: true ε, claim, the real-number and float-artefact bounds,
    ratio, verdict and whether it is the expected one."""
    header = (
        f"{'mechanism':<32} {'true ε':>7} {'claim':>6} {'real ε≥':>8} {'float ε≥':>8} {'ratio':>6}  "
        f"{'verdict':<19} expected"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        truth = row.entry.true_epsilon
        true_text = "?" if truth is None else ("inf" if math.isinf(truth) else f"{truth:.3f}")
        ratio = "" if row.ratio is None else f"{row.ratio:.3f}"
        floating = "" if row.result.float_epsilon_lower is None else f"{row.result.float_epsilon_lower:.4f}"
        expected = "yes" if row.as_expected else f"NO ({row.entry.expected_verdict})"
        lines.append(
            f"{row.entry.name:<32} {true_text:>7} {row.entry.claimed_epsilon:>6g} "
            f"{row.result.real_epsilon_lower:>8.4f} {floating:>8} {ratio:>6}  {row.result.verdict:<19} {expected}"
        )
    return "\n".join(lines)
