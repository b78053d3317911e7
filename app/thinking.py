"""Hard computer players think in a bounded pool of worker processes.

Hard's search is pure Python and CPU-bound: in the web process it would hold the GIL
and slow every other request.  A worker process receives the saved game, lets the
computer players move until the person must act, and returns their move codes; the web
process replays them (cheap) to get the events and views.  The computer players' random
choices are seeded by the game and the move number, so a worker decides exactly what the
web process would have.

The pool is bounded (``BOT_WORKERS``, default: one process per CPU but one, at least one;
0 turns the pool off)
and each action waits at most ``BOT_TIMEOUT`` seconds for it (default 20).  When the
pool is saturated beyond that, the careful Medium player moves for Hard this once
rather than leave the person waiting; this is logged.  No database transaction is open
while a worker thinks: see :func:`app.services._act`.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Set as AbstractSet
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from engine import loads
from engine.bots import get_bot
from engine.referee import computer_turns

log = logging.getLogger(__name__)

POOLED = frozenset({"hard"})
"""Difficulties whose thinking goes to the pool; Easy and Medium take microseconds."""


WORKER_NICENESS = 10


def _lower_priority() -> None:
    """In a worker: yield the CPU to the web process.  A search only has to finish within
    its budget, while every other player's request waits on the web process; on a busy
    machine the scheduler then serves the requests first (docs/benchmarks.md)."""
    try:
        os.nice(WORKER_NICENESS)
    except OSError:
        pass


def think(record: str, difficulty: str, people: AbstractSet[int]) -> list[str]:
    """In a worker: the computer players' moves, as codes, from this saved game on until
    one of the ``people`` must act (the same loop as in the web process)."""
    game = loads(record)
    return [step.move.code() for step in computer_turns(game, get_bot(difficulty), people)]


class Thinker:
    """A lazily started process pool for the computer players' searches."""

    def __init__(self, workers: int | None = None, timeout: float | None = None) -> None:
        cpus = os.cpu_count() or 2
        wanted = workers if workers is not None else int(os.environ.get("BOT_WORKERS", max(1, cpus - 1)))
        self.workers = max(0, wanted)
        """0: no pool, Hard thinks in the web process (for comparison and debugging)."""
        self.timeout = timeout if timeout is not None else float(os.environ.get("BOT_TIMEOUT", "20"))
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                # forkserver: workers never inherit a copy of this multi-threaded process
                # (a fork could copy a lock some other thread was holding)
                ctx = multiprocessing.get_context("forkserver")
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                                 initializer=_lower_priority)
            return self._pool

    def moves(self, record: str, difficulty: str, people: AbstractSet[int] = frozenset({0})) -> list[str] | None:
        """The computer players' move codes until one of the ``people`` (the seats of
        persons; by default the solo table's, seat 0) must act, or None when the pool did not
        answer in time."""
        future: Future[list[str]] = self._executor().submit(think, record, difficulty, frozenset(people))
        try:
            return future.result(timeout=self.timeout)
        except FutureTimeout:
            future.cancel()
            log.warning("computer players' thinking took more than %.1f s; a quicker player stands in",
                        self.timeout)
        except Exception:  # a crashed worker (BrokenProcessPool) must not lose the person's move
            log.exception("computer players' worker failed; a quicker player stands in this once")
            with self._lock:
                broken, self._pool = self._pool, None
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
        return None

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
