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
    from app.bench import ALL, Options, run
    from app.bench.platform_data import Sizes

    chosen = ALL if args.scenario == "all" else (args.scenario,)
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
        class_size=args.class_size,
        cluster_students=args.cluster_students,
        declared=not args.no_declared,
        platform=Sizes(
            courses=args.courses,
            offerings=args.offerings,
            students=args.platform_students,
            submissions=args.submissions,
            big_offering=args.big_offering,
        ),
        page_requests=args.requests,
        page_warmup=args.warmup,
        keep_database=args.keep_database,
        json=args.json,
        memory_jobs=args.jobs,
        memory_every=args.sample_every,
        memory_clients=args.clients,
    )
    return run(options)


def corpus_grader(slugs: list[str]) -> Any:
    """A started grader like the server's, with warmed JAX servers for these exercises only."""
    from dataclasses import replace

    from app.config import get_settings
    from app.grading.service import mistakes_cache_dir, pool_settings
    from graders import Grader, encode_warmup, warmup_bundles

    exercises_dir = get_settings().exercises_dir
    bundles = warmup_bundles(exercises_dir)
    warmups = {slug: encode_warmup(bundles[slug]) for slug in slugs if slug in bundles}
    sizes = {"numpy": 0, "torch": 0, "jax": 1, **{f"jax:{slug}": 1 for slug in warmups}}
    settings = replace(pool_settings(warm=True), sizes=sizes, warmups=warmups)
    grader = Grader(exercises_dir, settings, mistakes_cache_dir=mistakes_cache_dir())
    grader.start()
    return grader


def cmd_corpus(args: argparse.Namespace) -> int:
    """Grade every corpus file with the real grader; 1 if a verdict disagrees with its manifest."""
    import json

    from app.bench import corpus

    chosen = args.exercise or corpus.exercises()
    problems = [p for slug in chosen for p in corpus.static_problems(slug)]
    entries = [e for slug in chosen for e in corpus.entries(slug)]
    grader = corpus_grader(chosen)

    def grade(entry: corpus.Entry) -> Any:
        return grader.grade(exercise=entry.exercise, code=entry.code, framework=entry.framework)

    def say(entry: corpus.Entry, why: str | None) -> None:
        if why is not None or args.verbose:
            mark = "ok  " if why is None else "FAIL"
            print(f"  {mark} {entry.exercise}/{entry.file}: {why or ''}", flush=True)

    try:
        checked = corpus.check(grade, entries, say)
    finally:
        grader.stop()
    problems += checked.problems
    counts = {
        slug: {
            "submissions": len(corpus.entries(slug)),
            "accepted": sum(e.right for e in corpus.entries(slug)),
            "rejected": sum(not e.right for e in corpus.entries(slug)),
        }
        for slug in chosen
    }
    for slug, count in counts.items():
        print(
            f"{slug}: {count['submissions']} files, {count['accepted']} accepted, "
            f"{count['rejected']} rejected"
        )
    for problem in problems:
        print(f"problem: {problem}")
    for starved in checked.starved:
        print(f"starved (the machine is too busy to tell; run again): {starved}")
    print(json.dumps({"corpus": counts, "problems": problems, "starved": checked.starved}))
    return 1 if problems else 0


def add_parsers(sub: Any) -> None:
    """Register `bench` and `soak` on the command line's subparsers."""
    bench = sub.add_parser("bench", help="measure submit-to-verdict latency and throughput")
    bench.add_argument(
        "--scenario",
        choices=[
            *("cold", "sequential", "burst", "lab", "pages", "similarity", "items", "idle"),
            *("platform", "clusters", "page-cpu", "authoring-check", "memory", "all"),
        ],
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
    bench.add_argument(
        "--class-size", type=int, default=200, help="items: students in the generated class"
    )
    bench.add_argument(
        "--cluster-students", type=int, default=500, help="clusters: students in the class"
    )
    bench.add_argument(
        "--no-declared",
        action="store_true",
        help="skip the lines of declared answers only (model solution and declared mistakes)",
    )
    bench.add_argument("--jobs", type=int, default=10_000, help="memory: submissions")
    bench.add_argument("--sample-every", type=int, default=250, help="memory: verdicts per sample")
    bench.add_argument("--clients", type=int, default=4, help="memory: submissions in flight")
    _platform_arguments(bench)
    bench.set_defaults(func=cmd_bench)
    check = sub.add_parser("corpus", help="grade the bench corpus; compare with its manifests")
    check.add_argument("--exercise", action="append", help="only this exercise (repeatable)")
    check.add_argument("--verbose", action="store_true", help="print every file, not only failures")
    check.set_defaults(func=cmd_corpus)
    soak = sub.add_parser("soak", help="many mixed and hostile jobs: the grader must not degrade")
    soak.add_argument("--jobs", type=int, default=1000)
    soak.add_argument("--hostile-share", type=float, default=0.3)
    soak.set_defaults(func=cmd_soak)


def _platform_arguments(bench: Any) -> None:
    """The `platform` scenario's sizes (defaults: issue 27's) and how much to time."""
    group = bench.add_argument_group("platform (generated data set on PostgreSQL)")
    group.add_argument("--courses", type=int, default=20)
    group.add_argument("--offerings", type=int, default=100)
    group.add_argument(
        "--platform-students", type=int, default=20_000, help="students in the data set"
    )
    group.add_argument("--submissions", type=int, default=2_000_000)
    group.add_argument(
        "--big-offering", type=int, default=500, help="students in the timed gradebook"
    )
    group.add_argument("--requests", type=int, default=40, help="timed requests per page")
    group.add_argument("--warmup", type=int, default=5, help="untimed requests per page first")
    group.add_argument(
        "--keep-database", action="store_true", help="leave the generated database (to EXPLAIN)"
    )
    group.add_argument("--json", action="store_true", help="also print the results as JSON")
