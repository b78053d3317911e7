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

A worker that dies (killed, out of memory) breaks a ``ProcessPoolExecutor`` for good: the
pool is then replaced at the next action, which is retried once on the new pool, so the
person never sees an error for it; :meth:`Thinker.state` tells ``/healthz``.  The workers
(and the forkserver that starts them) watch the web process through a pidfd and exit the
moment it dies, even by SIGKILL, so a crashed server leaves no processes behind.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import select
import threading
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any, TypeVar

from engine import loads
from engine.bots import HardBot, get_bot
from engine.bots.coach import hint as coach_hint
from engine.referee import computer_turns, move_rng
from engine.review import review_hand

T = TypeVar("T")

log = logging.getLogger(__name__)

POOLED = frozenset({"hard"})
"""Difficulties whose thinking goes to the pool; Easy and Medium take microseconds."""


WORKER_NICENESS = 10
_GUARD_ENV = "HEARTS_SERVER_PID"


def hard_budget_from_env() -> int | None:
    """``HARD_BUDGET`` from the environment: Hard's simulated card plays per play decision
    (unset or empty: Hard's own).  Anything but a positive whole number stops the server
    with a message that names the setting."""
    raw = os.environ.get("HARD_BUDGET", "").strip()
    if not raw:
        return None
    try:
        budget = int(raw)
    except ValueError:
        budget = 0
    if budget < 1:
        raise ValueError(f"HARD_BUDGET must be a positive whole number of simulated card plays, not {raw!r}")
    return budget


def _start_worker(server_pid: int) -> None:
    """In a worker, first thing: yield the CPU to the web process, and die with it.

    A search only has to finish within its budget, while every other player's request
    waits on the web process; on a busy machine the scheduler then serves the requests
    first (docs/benchmarks.md)."""
    try:
        os.nice(WORKER_NICENESS)
    except OSError:
        pass
    exit_with(server_pid)


def exit_with(pid: int) -> None:
    """Exit this process as soon as process ``pid`` ends.

    A worker's parent is the forkserver, not the web process, so PR_SET_PDEATHSIG cannot
    tell it; a pidfd (Linux 5.3+) becomes readable when ``pid`` exits, whoever reaps it, and
    cannot be fooled by the number being reused.  Elsewhere, polling ``os.kill(pid, 0)``."""
    try:
        fd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is None and not _alive(pid):
        os._exit(0)

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])
        else:
            while _alive(pid):
                threading.Event().wait(1.0)
        os._exit(0)  # no clean-up to do: the web process that wanted the answer is gone

    threading.Thread(target=watch, name=f"exit-with-{pid}", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def think(record: str, difficulty: str, people: AbstractSet[int], hard_budget: int | None = None,
          turns: int | None = None) -> list[str]:
    """In a worker: the computer players' moves, as codes, from this saved game on until
    one of the ``people`` must act, or ``turns`` moves at most (the same loop as in the web
    process)."""
    game = loads(record)
    steps = computer_turns(game, get_bot(difficulty, hard_budget), people)
    return [step.move.code() for step in islice(steps, turns)]


def review(record: str, seat: int, hand: int) -> list[dict[str, Any]]:
    """In a worker: every decision of ``seat`` in hand ``hand`` of the saved game, rated
    (:func:`engine.review.review_hand`), as plain dicts."""
    return [r.to_dict() for r in review_hand(record, seat, hand)]


def hint(record: str, seat: int, hard_budget: int | None = None) -> dict[str, Any]:
    """In a worker: Hard's choice for ``seat`` now and why, from that seat's view only
    (seeded like the computer players' moves, so a repeated hint is the same; the Hard of
    the app's ``HARD_BUDGET``)."""
    game = loads(record)
    hard = get_bot("hard", hard_budget)
    assert isinstance(hard, HardBot)
    h = coach_hint(game.view(seat), move_rng(game), hard)
    return {"cards": list(h.cards), "reason": h.reason, "values": h.values}


class Thinker:
    """A lazily started process pool for the computer players' searches."""

    def __init__(self, workers: int | None = None, timeout: float | None = None,
                 hard_budget: int | None = None) -> None:
        cpus = os.cpu_count() or 2
        wanted = workers if workers is not None else int(os.environ.get("BOT_WORKERS", max(1, cpus - 1)))
        self.workers = max(0, wanted)
        """0: no pool, Hard thinks in the web process (for comparison and debugging)."""
        self.timeout = timeout if timeout is not None else float(os.environ.get("BOT_TIMEOUT", "20"))
        self.hard_budget = hard_budget if hard_budget is not None else hard_budget_from_env()
        """Hard's simulated card plays per play decision (None: Hard's own,
        :data:`engine.bots.hardis.IS_BUDGET`): lower
        it where a core is slower than the one Hard's time was measured on
        (docs/strength.md), so a decision stays within its second."""
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                # forkserver: workers never inherit a copy of this multi-threaded process
                # (a fork could copy a lock some other thread was holding)
                ctx = multiprocessing.get_context("forkserver")
                # the forkserver itself dies with this process too (see exit_with)
                ctx.set_forkserver_preload(["app._forkserver_guard"])
                os.environ[_GUARD_ENV] = str(os.getpid())
                self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                                 initializer=_start_worker, initargs=(os.getpid(),))
            return self._pool

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        """Drop a broken pool (only if it is still the current one: another thread may
        have replaced it already); the next submit starts a new one."""
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def moves(self, record: str, difficulty: str, people: AbstractSet[int] = frozenset({0}),
              turns: int | None = None) -> list[str] | None:
        """The computer players' move codes until one of the ``people`` (the seats of
        persons; by default the solo table's, seat 0) must act, or ``turns`` moves at most;
        None when the pool did not answer in time (or failed twice running): a quicker
        player then stands in for this action."""
        for attempt in (1, 2):
            pool = self._executor()
            try:
                future: Future[list[str]] = pool.submit(think, record, difficulty, frozenset(people),
                                                        self.hard_budget, turns)
                return future.result(timeout=self.timeout)
            except FutureTimeout:
                future.cancel()
                log.warning("computer players' thinking took more than %.1f s; a quicker player stands in",
                            self.timeout)
                return None
            except (BrokenProcessPool, RuntimeError):
                # a worker died (killed, out of memory): this pool takes no more work
                # ("cannot schedule new futures" once broken); a new one gets the retry
                log.error("computer players' worker pool broke (attempt %d); starting a new one", attempt)
                self._discard(pool)
            except Exception:  # a bug in a search must not lose the person's move either
                log.exception("computer players' worker failed; a quicker player stands in this once")
                return None
        return None

    def call(self, fn: Callable[..., T], *args: Any, timeout: float | None = None) -> T | None:
        """``fn(*args)`` in a worker (a review, a hint), or None when the pool did not answer
        within ``timeout`` (default: the pool's) or failed twice running.  Without workers it
        runs here (tests, tools, ``BOT_WORKERS=0``)."""
        if not self.workers:
            return fn(*args)
        for attempt in (1, 2):
            pool = self._executor()
            try:
                future: Future[T] = pool.submit(fn, *args)
                return future.result(timeout=self.timeout if timeout is None else timeout)
            except FutureTimeout:
                future.cancel()
                log.warning("%s took longer than the pool's limit", getattr(fn, "__name__", fn))
                return None
            except (BrokenProcessPool, RuntimeError):
                log.error("worker pool broke during %s (attempt %d); starting a new one",
                          getattr(fn, "__name__", fn), attempt)
                self._discard(pool)
        return None

    def state(self) -> str:
        """For ``/healthz``: ``"idle"`` (no pool started yet, or none configured), ``"ok"``,
        or ``"broken"`` (a worker died; the next action starts a new pool)."""
        with self._lock:
            pool = self._pool
        if not self.workers or pool is None:
            return "idle"
        processes = getattr(pool, "_processes", None) or {}
        if getattr(pool, "_broken", False) or any(not p.is_alive() for p in list(processes.values())):
            return "broken"
        return "ok"

    def heal(self) -> None:
        """Replace a broken pool now (``/healthz`` does this after reporting it)."""
        with self._lock:
            pool = self._pool
        if pool is not None and self.state() == "broken":
            self._discard(pool)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
