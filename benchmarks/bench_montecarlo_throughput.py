"""Throughput of the Monte Carlo auditor on the catalog's snapped Laplace mechanism, scalar and 20-d.

Prints, per whole audit on ``--workers`` local worker processes: mechanism runs per second of wall
time, and where the CPU time went — the workers (generating runs, reducing the estimation split to
the fits' values once the fits are final, writing the rest to shared memory), the caller's main
thread (fits and event search on split 1, buffering split 1) and its other threads (evaluating the
statistics on the split-2 runs that were not reduced, receiving the pool's results). Beside it,
the workers' CPU time for generating the same chunks without sending them back (the floor no
audit can beat), so that the auditor's own share on the workers — reducing and sending — is
visible. On a shared machine wall time is inflated by other processes, CPU time
much less so: ``CPU-bound`` is the rate the measured CPU times allow on ``--workers`` idle cores,
runs / max(total CPU / workers, caller main-thread CPU) — the caller's main thread is serial.
``--profile`` adds the caller's main-thread CPU profile (cumulative, dpledger functions).

Targets: ≥ 5·10⁶ runs/s for scalars, ≥ 2·10⁶ runs/s for 20-d outputs, on 2 cores.
Usage: python benchmarks/bench_montecarlo_throughput.py [--samples N ...] [--dimensions 1 20] [--workers W]
       [--stages 4 1] [--repeats R] [--seed S] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import resource
import time
from dataclasses import dataclass

import numpy as np

from dpledger.verify.audit.montecarlo import NeighbourPair, audit, local_processes
from dpledger.verify.audit.montecarlo.catalogs.known_epsilon import Laplace
from dpledger.verify.audit.montecarlo.tasks import ChunkTask, chunk_seeds, chunk_sizes


@dataclass(frozen=True)
class Measured:
    """One audit's wall time and CPU seconds: worker processes, the caller's main thread, the
    caller's other threads."""

    runs: int
    wall: float
    workers_cpu: float
    main_cpu: float
    other_cpu: float

    def cpu_bound_rate(self, cores: int) -> float:
        """Runs per second the CPU times allow on ``cores`` idle cores (the main thread is serial)."""
        total = self.workers_cpu + self.main_cpu + self.other_cpu
        return self.runs / max(total / cores, self.main_cpu)


@dataclass(frozen=True)
class Discard:
    """A chunk task whose runs are generated and dropped: the workers' CPU without sending them."""

    task: ChunkTask

    def __call__(self) -> None:
        self.task()


def generation_cpu(mechanism: Laplace, inputs: tuple, samples: int, workers: int, seed: int) -> float:
    """Worker CPU seconds of generating the audit's chunks on both inputs, sending nothing back."""
    sizes = chunk_sizes(samples)
    seeds = chunk_seeds(seed, 1, len(sizes))[0]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    with local_processes(workers) as pool:
        for future in [
            pool.submit(Discard(ChunkTask(mechanism, data, size, seed)))  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
            for side, data in enumerate(inputs)
            for size, seed in zip(sizes, seeds[side], strict=True)
        ]:
            future.result()
    return _children_cpu(children)


def _children_cpu(before: resource.struct_rusage) -> float:
    """CPU seconds of the child processes that exited since ``before`` was read."""
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(
    mechanism: Laplace,
    pairs: list,
    samples: int,
    stages: int,
    workers: int,
    seed: int,
    profile: cProfile.Profile | None,
) -> tuple[Measured, str]:
    """One audit on a fresh pool (its workers' CPU is read once they have exited), and its result
    as printed (ε lower bound, claim, verdict)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    with local_processes(workers) as pool:
        pool.submit(int).result()  # fork the workers before the clock starts
        wall, process, main = time.perf_counter(), time.process_time(), time.thread_time()
        if profile:
            profile.enable()
        result = audit(mechanism, pairs, 1.0, samples=samples, stages=stages, executor=pool, seed=seed)  # type: ignore[arg-type]  # Mechanism.__call__ is not positional-only
        if profile:
            profile.disable()
        wall, process, main = (
            time.perf_counter() - wall,
            time.process_time() - process,
            time.thread_time() - main,
        )
    measured = Measured(result.samples_total, wall, _children_cpu(children), main, process - main)
    return measured, f"ε_lower {result.epsilon_lower:.4f}, claim 1, {result.verdict}"


def measure_dimension(dimension: int, samples: int, args: argparse.Namespace) -> None:
    """Print the generation floor and every (stages, repeat) audit of ``dimension``-d outputs."""
    a, b = (np.zeros(dimension), np.ones(dimension)) if dimension > 1 else (0.0, 1.0)
    pairs = [NeighbourPair(a, b, "0 vs 1 in every coordinate")]
    mechanism = Laplace(float(dimension))  # ε = 1 over all coordinates
    generation = generation_cpu(mechanism, (a, b), samples, args.workers, args.seed)
    print(
        f"{dimension:>3}-d generation alone (the audit's chunks on {args.workers} worker processes, "
        f"nothing sent back): {generation:.2f} CPU s = {2 * samples / generation / 1e6:.2f}·10⁶ runs/s "
        f"per core",
        flush=True,
    )
    for stages in args.stages:
        for repeat in range(args.repeats):
            profile = cProfile.Profile(time.thread_time) if args.profile else None
            measured, outcome = measure(mechanism, pairs, samples, stages, args.workers, args.seed, profile)
            total = measured.workers_cpu + measured.main_cpu + measured.other_cpu
            print(
                f"{dimension:>3}-d {stages} stage{'s' if stages > 1 else ' '} run {repeat + 1}: "
                f"{measured.runs:,} runs in {measured.wall:.2f} s = "
                f"{measured.runs / measured.wall / 1e6:.2f}·10⁶ runs/s wall on {args.workers} workers; "
                f"CPU s: workers {measured.workers_cpu:.2f} (reducing and sending ≈ {measured.workers_cpu - generation:.2f}), "
                f"caller main {measured.main_cpu:.2f}, "
                f"caller other threads {measured.other_cpu:.2f} (total {total:.2f}); "
                f"CPU-bound {measured.cpu_bound_rate(args.workers) / 1e6:.2f}·10⁶ runs/s on "
                f"{args.workers} cores ({outcome})",
                flush=True,
            )
            if profile:
                out = io.StringIO()
                stats = pstats.Stats(profile, stream=out).sort_stats("cumulative")
                stats.print_stats("dpledger|montecarlo", 14)
                print(out.getvalue().split("\n", 6)[-1], flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--samples", type=int, nargs="+", default=[1_000_000], help="runs per input (default 1e6)"
    )
    parser.add_argument("--dimensions", type=int, nargs="+", default=[1, 20], help="output dimensions")
    parser.add_argument("--workers", type=int, default=2, help="worker processes = cores assumed")
    parser.add_argument("--stages", type=int, nargs="+", default=[4, 1])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0, help="the audits' seed")
    parser.add_argument("--profile", action="store_true", help="profile the caller's main thread")
    args = parser.parse_args()
    for samples in args.samples:
        for dimension in args.dimensions:
            measure_dimension(dimension, samples, args)


if __name__ == "__main__":
    main()
