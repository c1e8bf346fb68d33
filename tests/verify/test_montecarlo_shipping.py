"""Mechanisms reach the auditor's workers however they are defined, and a worker that cannot run
one fails the audit in one line instead of hanging it."""

from __future__ import annotations

import importlib
import pickle
import sys
import textwrap
import time

import numpy as np
import pytest

from dpledger.verify.audit.montecarlo import NeighbourPair, audit, load_mechanism
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace
from dpledger.verify.audit.montecarlo.executors import check_workers
from dpledger.verify.audit.montecarlo.mechanism import LoadError, Shipped, per_sample, ship

ZERO_ONE = [NeighbourPair(np.asarray(0.0), np.asarray(1.0), "0 vs 1")]


def test_a_closure_defined_inside_a_test_runs_on_local_worker_processes():
    scale = 1.0
    snapped = Laplace(1.0 / scale)

    def mechanism(data, n, rng):  # a closure: the standard pickle cannot send it to a process
        return snapped(data, n, rng)

    result = audit(mechanism, ZERO_ONE, 1.0, samples=20_000)
    assert result.samples == 20_000 and not result.violation


def test_a_lambda_with_a_wrong_scale_is_still_caught_on_local_worker_processes():
    result = audit(lambda data, n, rng: Laplace(0.25)(data, n, rng), ZERO_ONE, 1.0, samples=50_000)
    assert result.violation and result.epsilon_lower > 1.0


def test_shipping_keeps_the_per_sample_flag_the_probe_relies_on():
    assert ship(per_sample(lambda data, rng: rng.normal())).vectorised is False
    assert ship(lambda data, n, rng: rng.normal(size=n)).vectorised is True


def test_a_mechanism_that_cannot_be_pickled_is_refused_in_one_line():
    lock = __import__("threading").Lock()

    def holds_a_lock(data, n, rng):
        with lock:
            return rng.normal(size=n)

    with pytest.raises(ValueError, match=r"cannot send the mechanism to worker processes.*InProcessExecutor"):
        audit(holds_a_lock, ZERO_ONE, 1.0, samples=20_000)


def test_a_missing_module_on_the_worker_is_a_load_error_naming_it(tmp_path, monkeypatch):
    (tmp_path / "gone_on_workers.py").write_text(
        "def mechanism(data, n, rng):\n    return rng.normal(size=n)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    gone_on_workers = importlib.import_module("gone_on_workers")  # the module just written

    shipped = Shipped(
        pickle.dumps(gone_on_workers.mechanism), True, "mechanism"
    )  # by reference to the module
    sys.path.remove(str(tmp_path))
    monkeypatch.delitem(sys.modules, "gone_on_workers")
    with pytest.raises(LoadError, match="No module named 'gone_on_workers'"):
        shipped(0.0, 1, np.random.default_rng(0))


class _Workers:
    """A Dask client's ``wait_for_workers``/``run`` answering as a cluster with given versions."""

    def __init__(self, versions: dict[str, str]) -> None:
        self.versions = versions

    def wait_for_workers(self, n: int, timeout: float) -> None:
        if len(self.versions) < n:
            raise TimeoutError

    def run(self, function, *args):
        return dict(self.versions)


def test_workers_with_another_dpledger_version_are_refused_up_front():
    from importlib.metadata import version

    check_workers(_Workers({"tcp://a": version("dpledger")}))
    with pytest.raises(ValueError, match=r"another dpledger version.*tcp://b has 0\.0\.1"):
        check_workers(_Workers({"tcp://a": version("dpledger"), "tcp://b": "0.0.1"}))
    with pytest.raises(ValueError, match="no worker"):
        check_workers(_Workers({}), wait_seconds=0.1)


@pytest.mark.slow
def test_dask_workers_missing_a_module_the_mechanism_imports_fail_the_audit_in_one_line(
    tmp_path, monkeypatch
):
    """The scheduler can deserialise the task but the workers cannot: before shipping, the audit
    waited forever (no --timeout) or reported a misleading timeout."""
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    from dpledger.verify.audit.montecarlo import dask_executor

    (tmp_path / "helper_only_here.py").write_text("def noise(rng, n):\n    return rng.laplace(size=n)\n")
    (tmp_path / "user_mechanism_mod.py").write_text(
        textwrap.dedent("""
        import helper_only_here

        def mechanism(data, n, rng):
            return float(data) + helper_only_here.noise(rng, n)
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    mechanism = load_mechanism("user_mechanism_mod:mechanism")
    sys.path.remove(str(tmp_path))  # worker processes started from now on cannot import the helper
    started = time.perf_counter()
    with (
        LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        dask_executor(cluster.scheduler_address) as executor,
        pytest.raises(ValueError, match=r"could not load the mechanism.*No module named 'helper_only_here'"),
    ):
        audit(mechanism, ZERO_ONE, 1.0, samples=20_000, executor=executor)
    assert time.perf_counter() - started < 60
