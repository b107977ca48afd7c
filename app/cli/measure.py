"""`bench` and `soak`: measuring grading and the web tier as a class meets them."""

from __future__ import annotations

import argparse
from typing import Any


def cmd_soak(args: argparse.Namespace) -> int:
    """Run the soak test and print before/after numbers."""
    from app.soak import run

    run(total=args.jobs, hostile_share=args.hostile_share)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """Measure grading as a class meets it (docs/benchmarks.md); 1 if a verdict was wrong."""
    from app.bench import SCENARIOS, Options, run

    chosen = SCENARIOS[:-1] if args.scenario == "all" else (args.scenario,)
    options = Options(
        scenarios=chosen,
        scale_out=args.scale_out,
        workers=args.workers,
        samples=args.samples,
        burst_flax=args.burst_flax,
        burst_numpy=args.burst,
        lab_rate=args.lab_rate,
        lab_seconds=args.lab_seconds,
        kill_worker_at=args.kill_worker_at,
        idle_samples=args.baseline_samples,
        students=tuple(int(n) for n in args.students.split(",") if n.strip()),
        streams=args.streams,
        web_processes=args.web_processes,
        similar_submissions=args.similar,
    )
    return run(options)


def add_parsers(sub: Any) -> None:
    """Register `bench` and `soak` on the command line's subparsers."""
    bench = sub.add_parser("bench", help="measure submit-to-verdict latency and throughput")
    bench.add_argument(
        "--scenario",
        choices=["cold", "sequential", "burst", "lab", "pages", "similarity", "idle", "all"],
        default="all",
    )
    bench.add_argument("--scale-out", action="store_true", help="PostgreSQL, Redis, workers")
    bench.add_argument("--workers", type=int, default=2, help="worker processes (scale-out)")
    bench.add_argument("--samples", type=int, default=20, help="per kind (sequential)")
    bench.add_argument("--burst", type=int, default=60, help="NumPy submissions at once")
    bench.add_argument("--burst-flax", type=int, default=20, help="Flax submissions at once")
    bench.add_argument("--lab-rate", type=float, default=1.0, help="arrivals per second")
    bench.add_argument("--lab-seconds", type=float, default=90.0)
    bench.add_argument("--kill-worker-at", type=float, default=None, help="lab, scale-out")
    bench.add_argument("--baseline-samples", type=int, default=5, help="idle scenario")
    bench.add_argument(
        "--students", default="300,1000", help="pages: class sizes to try, comma-separated"
    )
    bench.add_argument("--streams", type=int, default=300, help="pages: live streams at once")
    bench.add_argument(
        "--web-processes", type=int, default=1, help="web processes (scale-out mode only)"
    )
    bench.add_argument(
        "--similar", type=int, default=300, help="similarity: final submissions compared"
    )
    bench.set_defaults(func=cmd_bench)
    soak = sub.add_parser("soak", help="many mixed and hostile jobs: the grader must not degrade")
    soak.add_argument("--jobs", type=int, default=1000)
    soak.add_argument("--hostile-share", type=float, default=0.3)
    soak.set_defaults(func=cmd_soak)
