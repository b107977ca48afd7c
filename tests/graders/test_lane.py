"""graders/host/lane.py: background starts take turns; one nobody waits for waits while jobs run."""

from __future__ import annotations

import threading

from graders.host.lane import Lane


def test_a_start_nobody_waits_for_goes_only_once_no_job_runs_or_waits() -> None:
    log: list[str] = []
    answers = iter([True, True, True])  # jobs in hand for three looks, then none

    def busy() -> bool:
        answer = next(answers, False)
        log.append(f"busy={answer}")
        return answer

    lane = Lane(lambda key: False, busy=busy)
    with lane.turn("jax:refill"):
        log.append("started")
    assert log == ["busy=True", "busy=True", "busy=True", "busy=False", "started"]


def test_a_start_a_job_waits_for_goes_while_jobs_run() -> None:
    looked: list[bool] = []
    lane = Lane(lambda key: key == "numpy", busy=lambda: looked.append(True) or True)
    with lane.turn("numpy"):
        started = True
    assert started and looked == []  # urgency alone decides: the jobs in hand were not asked


def test_starts_take_turns_and_the_urgent_one_goes_first() -> None:
    urgent = {"numpy", "torch"}  # a job waits for the torch start that holds the lane
    lane = Lane(lambda key: key in urgent)
    order: list[str] = []
    first_in = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with lane.turn("torch"):
            first_in.set()
            release.wait()
            order.append("torch")

    def start(key: str) -> None:
        with lane.turn(key):
            order.append(key)

    holder = threading.Thread(target=hold)
    holder.start()
    first_in.wait()
    later = threading.Thread(target=start, args=("jax:refill",))
    later.start()
    urgent_one = threading.Thread(target=start, args=("numpy",))
    while len(lane._queue) < 1:  # the refill is queued before the urgent start arrives
        threading.Event().wait(0.01)
    urgent_one.start()
    while len(lane._queue) < 2:
        threading.Event().wait(0.01)
    release.set()
    for thread in (holder, later, urgent_one):
        thread.join()
    assert order == ["torch", "numpy", "jax:refill"]


def test_a_start_a_job_waits_for_goes_beside_a_start_nobody_waits_for_any_more() -> None:
    urgent = {"jax:burst"}  # the burst's jobs wait for this start ...
    lane = Lane(lambda key: key in urgent)
    order: list[str] = []
    holder, release = _holding(lane, "jax:burst", order)

    def start(key: str) -> None:
        with lane.turn(key):
            order.append(key)

    urgent.add("numpy")  # ... and a NumPy job waits too: it waits its turn
    numpy = threading.Thread(target=start, args=("numpy",))
    numpy.start()
    numpy.join(0.3)
    assert order == []
    urgent.discard("jax:burst")  # the burst ended: nobody waits for the JAX start any more
    lane.nudge()
    numpy.join(5)
    assert order == ["numpy"]  # it went while the JAX start still held the lane
    release.set()
    holder.join()
    # and another start waits while an urgent one holds the lane beside the stale one
    assert order == ["numpy", "jax:burst"]


def test_queued_starts_go_in_the_pools_order_not_their_arrival() -> None:
    # the pool ranks the keys (what the class asked for before a restart first: demand.py)
    rank = {"jax:rope": 0, "numpy": 1, "torch": 2}
    lane = Lane(lambda key: False, rank=lambda key: rank[key])
    order: list[str] = []
    holder, release = _holding(lane, "numpy", order)

    def start(key: str) -> None:
        with lane.turn(key):
            order.append(key)

    waiting = [threading.Thread(target=start, args=(key,)) for key in ("torch", "jax:rope")]
    for thread in waiting:  # torch queues first, the remembered exercise after it
        thread.start()
        threading.Event().wait(0.05)
    release.set()
    for thread in [holder, *waiting]:
        thread.join(5)
    assert order == ["numpy", "jax:rope", "torch"]


def _holding(lane: Lane, key: str, order: list[str]) -> tuple[threading.Thread, threading.Event]:
    """A start of `key` holding the lane until the returned event is set (then noted in order)."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lane.turn(key):
            holding.set()
            release.wait()
            order.append(key)

    holder = threading.Thread(target=hold)
    holder.start()
    holding.wait()
    return holder, release
