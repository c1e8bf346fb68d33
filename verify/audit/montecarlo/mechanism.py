"""The mechanism interface of the Monte Carlo auditor.

A mechanism is a callable ``mechanism(data, n_samples, rng) -> array`` returning ``n_samples``
independent outputs on the input ``data``, drawing all randomness from the
``numpy.random.Generator`` ``rng``. Outputs are scalars (shape ``(n,)``), vectors (shape
``(n, d)``) or discrete labels (integer, boolean or string arrays, one label or one row per run).
Mechanisms that cannot batch are written per run, ``f(data, rng) -> output``, and wrapped with
:func:`per_sample`. Users name their mechanism on the command line as ``module:function``.

A mechanism is code that runs: loading ``module:function`` imports the module (running its
top-level code) and the audit calls the function, in this process and on every worker, with the
rights of the user who runs the audit. Audit only code you would run yourself. What the auditor
does guard against is code that fails: a module that does not import (a syntax error, an
exception, ``sys.exit`` at import), a mechanism that raises or calls ``sys.exit`` — each is
reported as a one-line ``ValueError``. The current directory is importable (appended to
``sys.path``, so it never shadows installed modules).
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import cloudpickle
import numpy as np

OutputKind = Literal["scalar", "vector", "discrete"]


class OutputError(ValueError):
    """A mechanism's outputs are unusable (wrong count or shape, NaN, unsupported type)."""


class LoadError(ValueError):
    """A worker could not rebuild a shipped mechanism (a module it needs is missing there)."""


class Mechanism(Protocol):
    """A vectorised randomized mechanism."""

    def __call__(self, data: Any, n_samples: int, rng: np.random.Generator) -> np.ndarray: ...


@dataclass(frozen=True)
class PerSample:
    """Batch a per-run mechanism ``function(data, rng) -> output`` by calling it n times."""

    function: Callable[[Any, np.random.Generator], Any]

    def __call__(self, data: Any, n_samples: int, rng: np.random.Generator) -> np.ndarray:
        outputs = [np.asarray(self.function(data, rng)) for _ in range(n_samples)]
        shapes = {output.shape for output in outputs}
        if len(shapes) > 1:
            raise OutputError(f"mechanism returned outputs of inconsistent shape: {sorted(shapes)[:2]}")
        return np.stack(outputs)


def per_sample(function: Callable[[Any, np.random.Generator], Any]) -> PerSample:
    """The per-sample fallback: usable as a decorator on ``f(data, rng) -> output``.

    The result pickles by reference to ``function``, so it runs on process and Dask executors
    when ``function`` is defined at module level.

    Args:
        function: ``f(data, rng) -> output``, one run.

    Returns:
        The mechanism ``(data, n_samples, rng) -> array`` that calls ``function`` once per run.

    Raises:
        ValueError: ``function`` is not callable.
    """
    if not callable(function):
        raise ValueError(f"per_sample needs a function f(data, rng), got {type(function).__name__}")
    return PerSample(function)


@dataclass(frozen=True)
class Shipped:
    """A mechanism carried to workers as ``cloudpickle`` bytes and rebuilt where it runs.

    Executors pickle their tasks with the standard ``pickle``, which sends functions by reference
    (module and name): a closure, a lambda or a function defined inside a test cannot be sent,
    and on Dask a module missing on a worker fails while the task is being deserialised — before
    any code of the audit runs, so the failure never reaches the caller and the audit waits
    forever. Shipped bytes deserialise as plain ``bytes`` everywhere; the mechanism is rebuilt
    inside the task, where a missing module becomes a one-line :class:`LoadError` delivered
    through the task's future like any other error.
    """

    payload: bytes
    vectorised: bool
    name: str

    def __call__(self, data: Any, n_samples: int, rng: np.random.Generator) -> np.ndarray:
        return _rebuild(self.payload, self.name)(data, n_samples, rng)


def ship(mechanism: Mechanism) -> Shipped:
    """``mechanism`` as :class:`Shipped` bytes; ``ValueError`` if cloudpickle cannot serialise it
    (a mechanism holding a lock, an open file or a generator runs only in process)."""
    try:
        payload = cloudpickle.dumps(mechanism)
    except Exception as error:
        raise ValueError(
            f"cannot send the mechanism to worker processes: {_describe(error)}; run it in this process "
            "with executor=InProcessExecutor()"
        ) from None
    name = getattr(mechanism, "__qualname__", None) or type(mechanism).__qualname__
    return Shipped(payload, is_vectorised(mechanism), name)


@functools.lru_cache(maxsize=8)
def _rebuild(payload: bytes, name: str) -> Mechanism:
    """The shipped mechanism, unpickled once per worker process."""
    try:
        return cloudpickle.loads(payload)
    except Exception as error:
        raise LoadError(
            f"a worker could not load the mechanism {name}: {_describe(error)} — the modules the mechanism "
            "imports must be installed on every worker (its own module is sent with it)"
        ) from None


def is_vectorised(mechanism: Mechanism) -> bool:
    """False for a per-run mechanism batched by :func:`per_sample` (shipped or not)."""
    if isinstance(mechanism, Shipped):
        return mechanism.vectorised
    return not isinstance(mechanism, PerSample)


def load_mechanism(spec: str, per_run: bool = False) -> Mechanism:
    """Import ``module:function``; with ``per_run`` the function has the form ``f(data, rng)``.

    The current directory is importable: appended to ``sys.path`` (never put first, so that
    local files do not shadow installed modules imported later). Importing runs the module's
    code; any failure of it — ``SyntaxError``, an exception, ``sys.exit`` — becomes a one-line
    ``ValueError``. Unless it is installed, the module is registered with ``cloudpickle`` to be
    pickled by value (:func:`ship`), so that Dask workers that cannot import it still receive the
    mechanism (modules it imports itself must be importable on the workers).

    Args:
        spec: ``"module:function"``.
        per_run: The function is ``f(data, rng)`` (one run) rather than a mechanism.

    Returns:
        The mechanism ``(data, n_samples, rng) -> array``.

    Raises:
        ValueError: the module or the function cannot be loaded.
    """
    if not isinstance(spec, str):
        raise ValueError(f"mechanism must be given as a string module:function, got {type(spec).__name__}")
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(f"mechanism must be given as module:function, got {spec!r}")
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as error:
        raise ValueError(f"cannot import mechanism module {module_name!r}: {_describe(error)}") from None
    _pickle_by_value(module)
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"{spec} is not callable")
    return per_sample(target) if per_run else target


def _pickle_by_value(module: Any) -> None:
    """Send a user module's code to remote workers with the mechanism, unless it is installed."""
    location = getattr(module, "__file__", None) or ""
    if "site-packages" not in location and not module.__name__.startswith("dpledger."):
        cloudpickle.register_pickle_by_value(module)


def _describe(error: BaseException) -> str:
    """``Type: message`` of a failure of user code; ``sys.exit(code)`` named as such."""
    if isinstance(error, SystemExit):
        return f"SystemExit: the code called sys.exit({error.code!r})"
    if isinstance(error, SyntaxError):
        return f"SyntaxError: {error.msg} ({error.filename}, line {error.lineno})"
    return f"{type(error).__name__}: {error}"


def run_mechanism(mechanism: Mechanism, data: Any, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    """Run and validate: n outputs, one consistent shape, no NaN or infinity; else OutputError.

    Exceptions raised by the mechanism are re-raised as ValueError naming the original error,
    so that they cross process boundaries and become one-line CLI errors.
    """
    try:
        outputs = np.asarray(mechanism(data, n_samples, rng))
    except (OutputError, LoadError):
        raise
    except (Exception, SystemExit) as error:
        raise ValueError(f"mechanism raised {_describe(error)}") from None
    if outputs.dtype == object:
        raise OutputError(
            "mechanism returned outputs of inconsistent shape or type "
            "(numpy could only build an object array from them)"
        )
    if outputs.ndim == 0 or outputs.shape[0] != n_samples:
        raise OutputError(
            f"mechanism returned shape {outputs.shape} for {n_samples} samples; "
            f"the first axis must have length {n_samples}"
        )
    if outputs.dtype.kind in "fc" and not np.all(np.isfinite(outputs)):
        raise OutputError("mechanism returned NaN or infinite outputs")
    if outputs.dtype.kind not in "biufU":
        raise OutputError(f"mechanism returned unsupported output type {outputs.dtype}")
    return outputs


def output_kind(outputs: np.ndarray) -> OutputKind:
    """``discrete`` for integer, boolean and string outputs; else ``scalar`` or ``vector``."""
    if outputs.dtype.kind in "biuU":
        return "discrete"
    return "scalar" if outputs.ndim == 1 or int(np.prod(outputs.shape[1:])) == 1 else "vector"


def harmonise(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outputs on the two inputs of a pair, brought to one type; ValueError if incomparable.

    Runs must have the same shape on both inputs; integers on one side and floats on the other
    are compared as floats; strings compare only with strings.
    """
    if a.shape[1:] != b.shape[1:]:
        raise ValueError(
            f"mechanism outputs have inconsistent shapes: {a.shape[1:]} on one input, {b.shape[1:]} on the other"
        )
    if (a.dtype.kind == "U") != (b.dtype.kind == "U"):
        raise ValueError("mechanism returns strings on one input and numbers on the other")
    if a.dtype.kind == "U" or a.dtype == b.dtype:
        return a, b
    common = np.result_type(a.dtype, b.dtype)
    return a.astype(common), b.astype(common)
