"""Checks of the mechanism contract the audit relies on, on a cheap probe before any audit run.

The audit's statistics assume that the n outputs of a batch are independent draws of the
mechanism, made with the ``rng`` it is given. Two ways a mechanism breaks that silently, and the
probe that catches each:

* **Outputs that do not depend on the rng** (a fixed internal seed, a constant): two batches
  with different rngs on each input of the first pair are compared. Refused when both repeat
  exactly and either vary within a batch (a fixed seed: for a random mechanism two varying
  batches agree in every position with negligible probability) or are one and the same value on
  both inputs (constant: an honestly constant mechanism is refused too — its ε is 0 and needs no
  audit). Outputs constant on each input but different between them are audited (and flagged:
  a deterministic function of its input is not private), as is a nearly deterministic
  mechanism such as randomized response at large ε. A mechanism drawing from numpy's global RNG
  or Python's ``random`` passes (the executor seeds those per task,
  :func:`tasks.seeded_globals`).
* **Batch outputs that are not independent** (one noise draw reused for the whole batch): a batch
  of :data:`PROBE_RUNS` outputs is compared with as many separate one-output calls by a two-sample
  test — a χ² test of homogeneity when the outputs take few values, else Kolmogorov–Smirnov on a
  fixed projection — and refused when the p-value is below :data:`PROBE_ALPHA` (so a correct
  mechanism is refused with probability about 10⁻⁹). Per-sample mechanisms
  (:class:`~dpledger.verify.audit.montecarlo.mechanism.PerSample`) are batches of separate calls
  already and skip this test.

The probe costs 4·:data:`PROBE_RUNS` outputs and as many one-output calls — far below 1% of a
default audit (10⁶ runs per input); a per-sample mechanism 4·:data:`PER_SAMPLE_PROBE_RUNS` calls.
One run comes first, to measure an output: a mechanism whose probe outputs would exceed
:data:`PROBE_MEMORY` is refused before they are drawn, and the audit estimates its own memory from
that size (:func:`dpledger.verify.audit.montecarlo.audit.check_memory`) and, from the batches'
time per run, whether it can finish within its timeout (:func:`~dpledger.verify.audit.montecarlo.audit.check_time`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpledger.verify.audit.montecarlo.mechanism import Mechanism, is_vectorised, run_mechanism
from dpledger.verify.audit.montecarlo.tasks import seeded_globals

PROBE_RUNS = 256
"""Outputs per probe batch (and one-output calls compared with a batch) of a vectorised mechanism."""

PER_SAMPLE_PROBE_RUNS = 16
"""Outputs per probe batch of a per-sample mechanism (each may be costly: a learner's fit)."""

PROBE_ALPHA = 1e-9
"""Significance level of the independence test: the chance of refusing a correct mechanism."""

PROBE_TAG = 0x70726F6265
"""Mixed into the audit seed for the probe's seed sequence, so the probe draws numbers the audit's
chunks never see."""

FEW_VALUES = 32
"""Up to this many distinct outputs the independence test is a χ² test on the value counts."""


class ContractError(ValueError):
    """The mechanism breaks the contract the audit relies on; the message says how, in one line."""


@dataclass(frozen=True)
class ProbeTask:
    """The probe's runs, submitted to the audit's executor like a chunk: two batches with different
    rngs on each of ``a`` and ``b`` and, for vectorised mechanisms, one-output calls on ``a``."""

    mechanism: Mechanism
    a: Any
    b: Any
    seed: int

    def __call__(self) -> dict[str, Any]:
        root = np.random.SeedSequence([self.seed, PROBE_TAG])
        vectorised = is_vectorised(self.mechanism)
        size = PROBE_RUNS if vectorised else PER_SAMPLE_PROBE_RUNS
        children = root.spawn(4)
        with seeded_globals(children[3]):  # one run first: the size of an output, before a thousand
            one = run_mechanism(self.mechanism, self.a, 1, np.random.default_rng(children[3]))
        check_probe_memory(one.nbytes, (4 + vectorised) * size)
        with seeded_globals(root):
            first, second, singles = (np.random.default_rng(child) for child in children[:3])
            started = time.perf_counter()
            runs: dict[str, Any] = {
                side: [run_mechanism(self.mechanism, data, size, rng) for rng in (first, second)]
                for side, data in (("a", self.a), ("b", self.b))
            }
            runs["seconds_per_run"] = (time.perf_counter() - started) / (4 * size)
            runs["singles"] = None
            runs["run_bytes"] = one.nbytes
            if vectorised:
                runs["singles"] = np.concatenate(
                    [run_mechanism(self.mechanism, self.a, 1, singles) for _ in range(PROBE_RUNS)]
                )
        return runs


PROBE_MEMORY = 1 << 30
"""Bytes the probe's outputs may take (1 GiB): beyond it the mechanism's outputs are too large for
any audit here — the audit itself keeps thousands of times as many runs."""


def check_probe_memory(run_bytes: int, runs: int) -> None:
    """Refuse, before the probe's batches, a mechanism whose ``runs`` outputs of ``run_bytes``
    each would exceed :data:`PROBE_MEMORY`.

    Args:
        run_bytes: bytes of one output (measured on one run).
        runs: outputs the probe would draw.

    Raises:
        ContractError: the probe's outputs would not fit, with the estimate.
    """
    if run_bytes * runs > PROBE_MEMORY:
        raise ContractError(
            f"the mechanism's output takes {run_bytes:,} bytes per run: the probe's {runs:,} runs alone would "
            f"need {run_bytes * runs / 2**30:.3g} GiB, and an audit keeps at least a quarter of its runs; "
            "audit a smaller output (a statistic of it, or fewer coordinates)"
        )


def check_probe(runs: dict[str, Any]) -> None:
    """Raise :class:`ContractError` when the probe's runs show outputs that ignore the rng or
    batches whose outputs are not independent."""
    (a, a_again), (b, b_again) = runs["a"], runs["b"]
    if np.array_equal(a, a_again) and np.array_equal(b, b_again):
        varies = _distinct(a) > 1 or _distinct(b) > 1
        if varies or np.array_equal(a[:1], b[:1]):
            what = (
                "outputs that vary within a batch but repeat exactly under another rng"
                if varies
                else "one and the same output in every run on both inputs"
            )
            raise ContractError(
                f"outputs do not depend on rng: {len(a)} runs on each input with one rng and as many with another "
                f"gave {what} — the mechanism must draw its randomness from the rng it is given "
                "(a constant mechanism has ε = 0 trivially and needs no audit)"
            )
    if runs["singles"] is not None:
        batch = runs["a"][0]
        p_value = two_sample_p_value(batch, runs["singles"])
        if p_value < PROBE_ALPHA:
            raise ContractError(
                f"batch outputs are not independent: a batch of {PROBE_RUNS} runs differs from {PROBE_RUNS} "
                f"separate one-run calls (two-sample test p = {p_value:.2g} on input a; "
                f"{_distinct(batch)} distinct values in the batch, {_distinct(runs['singles'])} in the calls) — "
                "each of the n outputs must be an independent draw (e.g. not one noise value reused); "
                "or pass --per-sample with f(data, rng)"
            )


def two_sample_p_value(x: np.ndarray, y: np.ndarray) -> float:
    """The p-value of "x and y have one distribution": χ² homogeneity on the value counts when the
    outputs take at most :data:`FEW_VALUES` values, else Kolmogorov–Smirnov on a fixed projection."""
    from scipy import stats

    keys_x, keys_y = _keys(x), _keys(y)
    values, codes = np.unique(np.concatenate([keys_x, keys_y]), return_inverse=True)
    if len(values) == 1:
        return 1.0
    if len(values) <= FEW_VALUES:
        table = np.stack(
            [
                np.bincount(codes[: len(keys_x)], minlength=len(values)),
                np.bincount(codes[len(keys_x) :], minlength=len(values)),
            ]
        )
        return float(stats.chi2_contingency(table, correction=False).pvalue)
    if x.dtype.kind == "U":
        return float(stats.ks_2samp(codes[: len(keys_x)], codes[len(keys_x) :]).pvalue)
    return float(stats.ks_2samp(_projection(x), _projection(y)).pvalue)


def _keys(outputs: np.ndarray) -> np.ndarray:
    """One hashable key per output row (its bytes; strings as they are)."""
    rows = outputs.reshape(len(outputs), -1)
    if outputs.dtype.kind == "U":
        return np.asarray(["\x00".join(row) for row in rows])
    return np.asarray([np.ascontiguousarray(row, dtype=np.float64).tobytes() for row in rows])


def _projection(outputs: np.ndarray) -> np.ndarray:
    """Each output row as one number: its dot product with a fixed direction."""
    rows = outputs.reshape(len(outputs), -1).astype(np.float64)
    return rows @ np.random.default_rng(0).normal(size=rows.shape[1])


def _distinct(outputs: np.ndarray) -> int:
    return len(np.unique(_keys(outputs)))
