"""One-line privacy assertions for pytest: regression tests for privacy claims.

Each assertion returns the checker's result when the claim stands and raises
:class:`PrivacyViolation` (an ``AssertionError``) when it is refuted, with the witness in the
message — the way a failing hypothesis test prints its falsifying example:

* :func:`assert_private` — the Monte Carlo auditor (:func:`dpledger.verify.audit.montecarlo.audit`)
  must not catch the mechanism violating (ε, δ)-DP: a violation means a lower bound on ε above
  the claim that holds with the stated confidence (Clopper–Pearson bounds on a held-out split,
  Bonferroni-corrected; see :mod:`dpledger.verify.audit.montecarlo.audit`). The witness is the
  pair, the event, the hit counts and the bounds.
* :func:`assert_guarantee` — the certified guarantee the accountant derives from an event tree
  (:func:`dpledger.accountant.rules.account`) meets the claim, never through rounding, and every
  paper claim (:class:`~dpledger.accountant.events.Claim`) inside the tree holds. The witness is
  the derivation, rule and source at every node.
* :func:`assert_exact_private` — the exact auditor (:func:`dpledger.verify.audit.exact.worst_case`)
  certifies (ε, δ)-DP from the exact output distributions of a discrete mechanism on every given
  pair. The witness is the worst pair and the output (pure ε) or output set (δ) that shows it.

Seeds. Without ``seed=``, the Monte Carlo seed is derived from the running test's pytest node id
(:func:`node_seed`; pytest publishes it in ``PYTEST_CURRENT_TEST``): the same test gets the same
numbers in any order, on any pytest-xdist worker, and a failure names its seed. Nothing is kept
between calls. Defaults that a whole run may change — samples (100,000 per input), confidence
(0.95) and a base mixed into every derived seed (0) — come from the environment variables
``DPLEDGER_SAMPLES``, ``DPLEDGER_CONFIDENCE`` and ``DPLEDGER_SEED``, read at each call
(:mod:`dpledger.testing_settings`; the ``dpledger`` pytest plugin sets them from
``--dpledger-samples``, ``--dpledger-confidence``, ``--dpledger-seed``); an explicit argument
always wins.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Executor
from functools import partial
from typing import Any

import numpy as np
import sympy

from dpledger.accountant.deprecation import renamed_keyword
from dpledger.accountant.events import Event
from dpledger.accountant.numerics.certified import (
    certainly_le,
    enclose,
    exact,
    lower_bound_text,
    lower_float,
    upper_bound_text,
    upper_float,
    upper_text,
)
from dpledger.accountant.rules import Derivation, account
from dpledger.learners.randomness import Randomness, enumerate_outputs
from dpledger.testing_settings import CONFIDENCE, SAMPLES, SEED
from dpledger.verify.audit import exact as exact_audit
from dpledger.verify.audit.montecarlo import (
    InProcessExecutor,
    Mechanism,
    MonteCarloAuditResult,
    NeighbourPair,
    audit,
)
from dpledger.verify.audit.montecarlo.audit import FLOAT_LEAK, VIOLATION
from dpledger.verify.service.audit import FLOAT_REMEDY, event_text

__all__ = [
    "DEFAULT_LEAVES",
    "PrivacyViolation",
    "assert_exact_private",
    "assert_guarantee",
    "assert_private",
    "current_node_id",
    "node_seed",
]

DEFAULT_LEAVES = 100_000
"""Most branches one exact enumeration of :func:`assert_exact_private` may visit."""

_SHOWN = 8  # output values listed in a witness


class PrivacyViolation(AssertionError):
    """A privacy claim refuted (or, for the certified checks, not certified).

    Args:
        message: The claim, the verdict and the witness, as pytest shows them.
        result: What the checker returned (``MonteCarloAuditResult`` or ``ExactAuditResult``, or the
            accountant's ``Derivation``), kept as ``result``.
        seed: The Monte Carlo seed, kept as ``seed`` (None for the other checks).
    """

    def __init__(self, message: str, result: Any, seed: int | None = None) -> None:
        super().__init__(message)
        self.result = result
        self.seed = seed


# -- seeds and run-wide defaults -------------------------------------------------------------


def current_node_id() -> str | None:
    """The node id of the pytest test running now, read from ``PYTEST_CURRENT_TEST``.

    Returns:
        The node id without its phase (`` (call)``), or None outside a test.
    """
    running = os.environ.get("PYTEST_CURRENT_TEST")
    return running.rsplit(" (", 1)[0] if running else None


def node_seed(node_id: str | None = None) -> int:
    """The seed of a test: the first 8 bytes of SHA-256 of ``DPLEDGER_SEED`` and the node id.

    A stable hash, not Python's ``hash``: the same on every run, process and xdist worker.

    Args:
        node_id: The test's pytest node id; by default the running test's
            (:func:`current_node_id`; the empty string outside pytest).

    Returns:
        The seed, an integer in [0, 2⁶⁴).

    Raises:
        ValueError: ``DPLEDGER_SEED`` is set to something other than an integer ≥ 0.
    """
    name = current_node_id() if node_id is None else node_id
    digest = hashlib.sha256(f"dpledger:{SEED.value()}:{name or ''}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _number(value: Any, name: str) -> float:
    """An int or float argument as a float; ``ValueError`` for anything else (no text is parsed here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be an int or float, got {value!r}")
    return float(value)


# -- Monte Carlo ----------------------------------------------------------------------------


def assert_private(
    mechanism: Mechanism,
    input_a: Any = None,
    input_b: Any = None,
    *,
    pairs: Sequence[NeighbourPair | tuple[Any, Any]] | None = None,
    claimed_epsilon: float | None = None,
    claimed_delta: float | None = None,
    samples: int | None = None,
    confidence: float | None = None,
    seed: int | None = None,
    executor: Executor | None = None,
    timeout: float | None = None,
    allow_float_leak: bool = False,
    epsilon: float | None = None,
    delta: float | None = None,
) -> MonteCarloAuditResult:
    """Assert that the Monte Carlo auditor does not catch ``mechanism`` violating the claimed
    (ε, δ)-DP.

    The claim is refuted when the ε lower bound certified at ``confidence`` exceeds
    ``claimed_epsilon`` — from real-number events (``VIOLATION``: the mathematics is wrong) or
    only from float-artefact events (``FLOAT LEAK``: the float64 implementation leaks through its
    low bits, Mironov 2012). A correct mechanism fails with probability at most 1 − confidence
    over seeds; with a fixed seed the outcome never changes.

    Args:
        mechanism: ``mechanism(data, n_samples, rng)`` returns ``n_samples`` independent outputs
            on ``data``, drawing from the ``numpy.random.Generator`` ``rng`` (the interface of
            :mod:`dpledger.verify.audit.montecarlo.mechanism`; wrap a per-run ``f(data, rng)``
            with ``per_sample``).
        input_a: One input of the neighbour pair (with ``input_b``; or give ``pairs``).
        input_b: The other input of the pair.
        pairs: Several neighbour pairs (``NeighbourPair`` or ``(a, b)`` tuples), instead of
            ``input_a, input_b``.
        claimed_epsilon: The claimed ε (an int or float).
        claimed_delta: The claimed δ (an int or float; 0 when not given).
        samples: Runs per input (default ``DPLEDGER_SAMPLES``, 100,000).
        confidence: Confidence of the certified bound (default ``DPLEDGER_CONFIDENCE``, 0.95).
        seed: The Monte Carlo seed (default :func:`node_seed` of the running test).
        executor: Where the runs go, by default this process (closures and lambdas work; pass
            ``local_processes()`` for heavy mechanisms).
        timeout: Seconds the audit may take, enforced on process and Dask executors only, as in
            ``audit``.
        allow_float_leak: Accept a ``FLOAT LEAK`` verdict.
        epsilon: Deprecated name of ``claimed_epsilon``.
        delta: Deprecated name of ``claimed_delta``.

    Returns:
        The auditor's result (:class:`dpledger.MonteCarloAuditResult`) when the claim stands.

    Raises:
        PrivacyViolation: the claim is refuted; the message shows the witness and the seed.
        ValueError: bad arguments, a failing mechanism, or a sample budget too small to refute
            the claim at all.
        TypeError: no claimed ε, or a claim given under both its names.
    """
    __tracebackhide__ = True
    claimed_epsilon = renamed_keyword(
        "assert_private", "epsilon", "claimed_epsilon", epsilon, claimed_epsilon
    )
    claimed_delta = renamed_keyword("assert_private", "delta", "claimed_delta", delta, claimed_delta)
    if claimed_epsilon is None:
        raise TypeError("assert_private() missing the keyword argument claimed_epsilon")
    claimed = _number(claimed_epsilon, "claimed_epsilon")
    slack = _number(0.0 if claimed_delta is None else claimed_delta, "claimed_delta")
    neighbours = _monte_carlo_pairs(input_a, input_b, pairs)
    budget = samples if samples is not None else SAMPLES.value()
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)):
        raise ValueError(f"samples must be an integer, got {budget!r}")
    level = _number(confidence, "confidence") if confidence is not None else CONFIDENCE.value()
    used_seed = node_seed() if seed is None else seed
    if isinstance(used_seed, bool) or not isinstance(used_seed, (int, np.integer)) or used_seed < 0:
        raise ValueError(f"seed must be an integer ≥ 0, got {used_seed!r}")
    result = audit(
        mechanism,
        neighbours,
        claimed,
        claimed_delta=slack,
        samples=int(budget),
        confidence=level,
        seed=int(used_seed),
        executor=executor if executor is not None else InProcessExecutor(),
        timeout=timeout,
    )
    if result.verdict == VIOLATION or (result.verdict == FLOAT_LEAK and not allow_float_leak):
        raise PrivacyViolation(
            _monte_carlo_message(result, neighbours, int(used_seed), seed is None, int(budget)),
            result,
            int(used_seed),
        )
    return result


def _monte_carlo_pairs(input_a: Any, input_b: Any, pairs: Sequence[Any] | None) -> list[NeighbourPair]:
    """Exactly one of (input_a, input_b) or pairs, as ``NeighbourPair`` objects."""
    if pairs is None:
        if input_a is None or input_b is None:
            raise ValueError("give the neighbouring inputs as input_a and input_b, or a list as pairs=")
        return [NeighbourPair(input_a, input_b, "input_a vs input_b")]
    if input_a is not None or input_b is not None:
        raise ValueError("give either input_a and input_b or pairs=, not both")
    return [_as_pair(pair, index) for index, pair in enumerate(_nonempty(pairs))]


def _nonempty(pairs: Any) -> list[Any]:
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Sequence) or not pairs:
        raise ValueError(f"pairs must be a non-empty list of neighbour pairs, got {pairs!r}")
    return list(pairs)


def _as_pair(pair: Any, index: int) -> NeighbourPair:
    if isinstance(pair, NeighbourPair):
        return pair
    if isinstance(pair, tuple) and len(pair) == 2:
        return NeighbourPair(pair[0], pair[1], f"pairs[{index}]")
    raise ValueError(f"pairs[{index}] must be a NeighbourPair or an (a, b) tuple, got {pair!r}")


def _monte_carlo_message(
    result: MonteCarloAuditResult, pairs: list[NeighbourPair], seed: int, derived: bool, samples: int
) -> str:
    """The claim, the verdict, the certified bound and the falsifying example, hypothesis-style."""
    witness = result.witness or {}
    pair = pairs[witness["pair"]["index"]]
    (first, hits_first), (second, hits_second) = witness["hits"].items()
    runs = witness["runs"]
    leak = result.verdict == FLOAT_LEAK
    lower = result.float_epsilon_lower if leak else result.real_epsilon_lower
    assert lower is not None  # a failed claim has a certified lower bound on ε
    bound = lower_bound_text(lower)
    kind = (
        f"a FLOAT LEAK: the floating-point implementation leaks through the low bits of its outputs "
        f"(Mironov 2012), while real-number events certify only ε ≥ {lower_bound_text(result.real_epsilon_lower)}"
        if leak
        else "a VIOLATION by the mechanism's real-number outputs"
    )
    origin = f" (derived from test {current_node_id()!r})" if derived and current_node_id() else ""
    return "\n".join(
        [
            (
                f"({result.claimed_epsilon!r}, {result.claimed_delta!r})-DP refuted by the Monte Carlo auditor: "
                f"ε ≥ {bound} with confidence {result.confidence:g}, {kind}"
            ),
            "Falsifying example:",
            f"  pair:   {pair.label}: a = {_short(pair.a)}, b = {_short(pair.b)}",
            f"  event E: {event_text(witness['event'])}",
            f"  P[M({first}) ∈ E] ≥ {lower_bound_text(witness['p_lower'])}   ({hits_first} of {runs[first]} runs on {first})",
            f"  P[M({second}) ∈ E] ≤ {upper_bound_text(witness['q_upper'])}   ({hits_second} of {runs[second]} runs on {second})",
            (
                f"  each bound one-sided Clopper–Pearson at level {witness['bound_level']:.3g} (Bonferroni over "
                f"the events estimated on held-out runs and {result.stages_planned} stages)"
            ),
            (
                f"  so ε ≥ log(({lower_bound_text(witness['p_lower'])} − {result.claimed_delta!r}) / {upper_bound_text(witness['q_upper'])}) "
                f"≥ {bound} > {result.claimed_epsilon!r}"
            ),
            f"Reproduce with seed={seed}{origin}, samples={samples}, confidence={result.confidence:g}",
            *([f"Remedy: {FLOAT_REMEDY}"] if leak else []),
        ]
    )


# -- accountant -----------------------------------------------------------------------------


def assert_guarantee(
    event: Event,
    claimed_epsilon: Any = None,
    claimed_delta: Any = None,
    *,
    relation: str | None = None,
    epsilon: Any = None,
    delta: Any = None,
) -> Derivation:
    """Assert that the guarantee derived from ``event`` certainly meets the claimed (ε, δ), and
    that every :class:`~dpledger.accountant.events.Claim` in the tree holds.

    A comparison that certified arithmetic cannot settle fails: the claim is not certified.

    Args:
        event: The event tree of the mechanism (:mod:`dpledger.events`).
        claimed_epsilon: The claimed ε: a number, Fraction, sympy number or decimal string (read
            exactly, never evaluated); without it only the tree's claims are checked (it must
            have one).
        claimed_delta: The claimed δ, read the same way (0 when not given).
        relation: The neighbouring relation the claim is stated under, when it names one.
        epsilon: Deprecated name of ``claimed_epsilon``.
        delta: Deprecated name of ``claimed_delta``.

    Returns:
        The accountant's derivation (rule and source at every node).

    Raises:
        PrivacyViolation: the claim is not certified; the message shows the derivation.
        ValueError: ``event`` is not an event, a claim is not a number, or there is nothing to
            check.
        TypeError: a claim given under both its names.
    """
    __tracebackhide__ = True
    claimed_epsilon = renamed_keyword(
        "assert_guarantee", "epsilon", "claimed_epsilon", epsilon, claimed_epsilon
    )
    claimed_delta = renamed_keyword("assert_guarantee", "delta", "claimed_delta", delta, claimed_delta)
    claimed_delta = 0 if claimed_delta is None else claimed_delta
    if not isinstance(event, Event):
        raise ValueError(f"event must be a dpledger.accountant.events event, got {type(event).__name__}")
    derivation = account(event)
    if claimed_epsilon is None and not derivation.claims():
        raise ValueError(
            "nothing to check: give claimed_epsilon (and claimed_delta), or an event tree containing"
            " Claim events"
        )
    problems = [
        _claim_problem(check.statement, check.derived, check.claimed, check.verdict)
        for check in derivation.claims()
        if not check.verdict.holds
    ]
    if claimed_epsilon is not None:
        verdict = derivation.guarantee.meets(claimed_epsilon, claimed_delta, relation)
        if not verdict.holds:
            problems.insert(0, _target_problem(derivation, claimed_epsilon, claimed_delta, relation, verdict))
    if problems:
        raise PrivacyViolation(
            "\n".join([*problems, "Derivation:", _indent(derivation.to_text())]), derivation
        )
    return derivation


def _target_problem(
    derivation: Derivation, epsilon: Any, delta: Any, relation: str | None, verdict: Any
) -> str:
    g = derivation.guarantee
    derived = f"ε ≤ {_upper(g.epsilon)}, δ ≤ {_upper(g.delta)}{g.scope()}"
    target = f"ε ≤ {epsilon}, δ ≤ {delta}" + (f" under {relation} neighbours" if relation else "")
    reasons = []
    if not verdict.epsilon_holds:
        reasons.append("ε")
    if not verdict.delta_holds:
        reasons.append("δ")
    why = (
        f"{' and '.join(reasons)} not certified below the claim"
        if reasons
        else "it holds only "
        + ("on realizable inputs" if g.domain == "realizable" else f"under {g.relation} neighbours")
    )
    undecided = "" if verdict.decided else " (certified arithmetic could not decide the comparison)"
    return f"derived guarantee {derived} does not meet the claim {target}: {why}{undecided}"


def _claim_problem(statement: str, derived: Any, claimed: Any, verdict: Any) -> str:
    return (
        f"claim of {statement} fails: claimed ε ≤ {claimed.epsilon}, δ ≤ {claimed.delta}, "
        f"derived ε ≤ {_upper(derived.epsilon)}, "
        f"δ ≤ {_upper(derived.delta)}{derived.scope()}" + ("" if verdict.decided else " (undecided)")
    )


# -- exact ----------------------------------------------------------------------------------


def assert_exact_private(
    mechanism: Callable[[Any, Randomness], Hashable],
    input_a: Any = None,
    input_b: Any = None,
    *,
    pairs: Sequence[NeighbourPair | tuple[Any, Any]] | None = None,
    claimed_epsilon: Any = None,
    claimed_delta: Any = None,
    leaves_per_run: int = DEFAULT_LEAVES,
    workers: int = 1,
    epsilon: Any = None,
    delta: Any = None,
) -> exact_audit.ExactAuditResult:
    """Assert that ``mechanism`` is certainly (ε, δ)-DP at the claim on every given neighbour
    pair, from its exact output distributions (:func:`dpledger.verify.audit.exact.worst_case`).

    With δ = 0 the verdict compares the exact worst privacy-loss ratio with e^ε; with δ > 0 the
    hockey-stick divergence δ(ε). Both are certified: a claim that interval arithmetic cannot
    settle fails as not certified.

    Args:
        mechanism: ``mechanism(data, rng)`` makes its random choices through the
            :class:`~dpledger.learners.randomness.Randomness` ``rng`` (``integer``, ``choice``,
            ``choice_log_weights``, ``subset`` …; no continuous draws or unbounded noise) and
            returns a hashable output; it is replayed along every branch.
        input_a: One input of the neighbour pair (with ``input_b``; or give ``pairs``). Inputs
            must be hashable (lists and arrays become tuples).
        input_b: The other input of the pair.
        pairs: Several pairs (``(a, b)`` tuples or ``NeighbourPair`` objects:
            ``small_domain_pairs(domain, size)`` gives every substitution pair of a small
            domain), instead of ``input_a, input_b``.
        claimed_epsilon: The claimed ε, read exactly (a number, Fraction or decimal string).
        claimed_delta: The claimed δ, read the same way (0 when not given).
        leaves_per_run: Most branches of one enumeration.
        workers: Processes to enumerate in (above 1, ``mechanism`` must pickle).
        epsilon: Deprecated name of ``claimed_epsilon``.
        delta: Deprecated name of ``claimed_delta``.

    Returns:
        The exact auditor's result (:class:`dpledger.ExactAuditResult`) when the claim is
        certified.

    Raises:
        PrivacyViolation: the claim is refuted or not certified; the message shows the worst
            pair and the output (set) that shows it.
        ValueError: bad pairs or inputs, a claimed ε < 0 or δ outside [0, 1).
        TypeError: no claimed ε, or a claim given under both its names.
    """
    __tracebackhide__ = True
    claimed_epsilon = renamed_keyword(
        "assert_exact_private", "epsilon", "claimed_epsilon", epsilon, claimed_epsilon
    )
    claimed_delta = renamed_keyword("assert_exact_private", "delta", "claimed_delta", delta, claimed_delta)
    if claimed_epsilon is None:
        raise TypeError("assert_exact_private() missing the keyword argument claimed_epsilon")
    claimed_delta = 0 if claimed_delta is None else claimed_delta
    bound, slack = exact(claimed_epsilon, "claimed_epsilon"), exact(claimed_delta, "claimed_delta")
    if not (certainly_le(0, bound) and certainly_le(0, slack) and certainly_le(1, slack) is False):
        raise ValueError(
            f"need claimed_epsilon ≥ 0 and 0 ≤ claimed_delta < 1, got {claimed_epsilon!r} and {claimed_delta!r}"
        )
    given = _exact_pairs(input_a, input_b, pairs)
    datasets = list(dict.fromkeys(d for pair in given for d in pair))
    partners: dict[Any, list[Any]] = {d: [] for d in datasets}
    for a, b in given:
        partners[a].append(b)
        partners[b].append(a)
    result = exact_audit.worst_case(
        mechanism, datasets, partners.__getitem__, bound, leaves_per_run=leaves_per_run, workers=workers
    )
    holds = _exact_verdict(result, slack)
    if holds is not True:
        raise PrivacyViolation(_exact_message(mechanism, result, bound, slack, holds, leaves_per_run), result)
    return result


def _exact_pairs(input_a: Any, input_b: Any, pairs: Sequence[Any] | None) -> list[tuple[Hashable, Hashable]]:
    """The pairs as hashable (a, b) tuples; ``ValueError`` for unhashable or equal inputs."""
    raw: list[tuple[Any, ...] | None]
    if pairs is None:
        if input_a is None or input_b is None:
            raise ValueError("give the neighbouring inputs as input_a and input_b, or a list as pairs=")
        raw = [(input_a, input_b)]
    elif input_a is not None or input_b is not None:
        raise ValueError("give either input_a and input_b or pairs=, not both")
    else:
        raw = [
            (pair.a, pair.b)
            if isinstance(pair, NeighbourPair)
            else tuple(pair)
            if isinstance(pair, (tuple, list)) and len(pair) == 2
            else None
            for pair in _nonempty(pairs)
        ]
    out = []
    for index, pair in enumerate(raw):
        if pair is None:
            raise ValueError(f"pairs[{index}] must be a NeighbourPair or an (a, b) tuple")
        a, b = (_hashable(value, index) for value in pair)
        if a == b:
            raise ValueError(f"pair {index} has two equal inputs {a!r}: neighbours must differ")
        out.append((a, b))
    return out


def _hashable(value: Any, index: int) -> Hashable:
    if isinstance(value, (list, np.ndarray)):
        value = tuple(np.asarray(value).tolist()) if isinstance(value, np.ndarray) else tuple(value)
    try:
        hash(value)
    except TypeError:
        raise ValueError(
            f"inputs of the exact audit must be hashable (tuples, numbers, strings); "
            f"pair {index} has {type(value).__name__}"
        ) from None
    return value


def _exact_verdict(result: exact_audit.ExactAuditResult, slack: sympy.Expr) -> bool | None:
    """True: certainly (ε, δ)-DP; False: certainly not; None: undecided."""
    if result.holds is True or slack == 0:
        return result.holds
    if certainly_le(exact(result.delta_at_bound, "delta"), slack):
        return True
    lower = result.worst_delta_profile["curve"][-1]["delta"][0]
    return False if certainly_le(exact(lower, "delta"), slack) is False else None


def _exact_message(
    mechanism: Callable[[Any, Randomness], Hashable],
    result: exact_audit.ExactAuditResult,
    bound: sympy.Expr,
    slack: sympy.Expr,
    holds: bool | None,
    leaves: int,
) -> str:
    """The claim, the exact verdict and the witness pair with its output (set)."""
    pure = slack == 0
    witness = result.worst_pair if pure else result.worst_delta_pair
    assert witness is not None  # a failed claim has a witness pair
    a, b = witness
    P, Q = (enumerate_outputs(partial(mechanism, data), limit=leaves) for data in (a, b))
    verdict = "refuted" if holds is False else "not certified (interval arithmetic could not decide)"
    lines = [
        f"({bound}, {slack})-DP {verdict} by the exact auditor over {result.pairs} pair(s)",
        "Worst pair:",
        f"  a = {_short(a)}, b = {_short(b)}",
    ]
    if pure:
        output = max(set(P) | set(Q), key=lambda o: _loss(P.get(o), Q.get(o)))
        lines += [
            f"  output o = {output!r}:",
            f"    P[M(a) = o] ∈ {_interval(P.get(output))}",
            f"    P[M(b) = o] ∈ {_interval(Q.get(output))}",
            f"  exact ε of the pair ∈ [{lower_bound_text(result.epsilon[0])}, {upper_bound_text(result.epsilon[1])}] vs claimed {bound}",
        ]
    else:
        factor = float(enclose(sympy.exp(bound)).mid)
        _, first, second, outputs = max(_excess(P, Q, factor, "a", "b"), _excess(Q, P, factor, "b", "a"))
        shown = sorted(map(repr, outputs))
        lower, upper = result.worst_delta_profile["curve"][-1]["delta"]
        listed = ", ".join(shown[:_SHOWN]) + (", …" if len(shown) > _SHOWN else "")
        lines += [
            f"  output set S = {{o : P[M({first}) = o] > e^ε P[M({second}) = o]}} = {{{listed}}}",
            (
                f"  δ(ε) = P[M({first}) ∈ S] − e^ε P[M({second}) ∈ S] (the larger direction) "
                f"∈ [{lower_bound_text(float(lower))}, {upper_bound_text(float(upper))}] vs claimed δ = {slack}"
            ),
        ]
    return "\n".join(lines)


def _excess(
    P: exact_audit.Distribution,
    Q: exact_audit.Distribution,
    factor: float,
    first: str,
    second: str,
) -> tuple[float, str, str, list[Hashable]]:
    """One direction's hockey-stick set {o : P(o) > e^ε Q(o)} and its δ, at interval midpoints
    (they only choose what to show; the verdict is certified)."""
    outputs = [o for o in P if _mid(P[o]) > factor * _mid(Q.get(o))]
    return sum(_mid(P[o]) - factor * _mid(Q.get(o)) for o in outputs), first, second, outputs


def _mid(p: Any) -> float:
    return 0.0 if p is None else float(p.mid)


def _loss(p: Any, q: Any) -> float:
    """|log p/q| at interval midpoints, ∞ where one side is missing: chooses the output to show."""
    return math.inf if p is None or q is None else abs(math.log(_mid(p) / _mid(q)))


def _interval(p: Any) -> str:
    return (
        "[0, 0] (not in the support)"
        if p is None
        else f"[{lower_bound_text(lower_float(p))}, {upper_bound_text(upper_float(p))}]"
    )


# -- formatting -----------------------------------------------------------------------------


def _upper(value: sympy.Expr) -> str:
    """An exact guarantee parameter as a decimal when it is one of at most 12 digits (1/10⁶ as
    1e-06), else rounded up to 6 significant digits."""
    exact_decimal = upper_text(value, 12)
    return exact_decimal if sympy.Rational(exact_decimal) == value else upper_text(value, 6)


def _short(value: Any) -> str:
    """An input for a message: small arrays in full, large ones by shape, any other value's repr
    cut at 200 characters."""
    if isinstance(value, np.ndarray):
        return repr(value.tolist()) if value.size <= 64 else f"<array of shape {value.shape}>"
    text = repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())
