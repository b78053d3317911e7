"""Preloaded by the bot pool's forkserver (:mod:`app.thinking`): the forkserver exits when
the web process that started it dies, even by SIGKILL, instead of living on as an orphan.

CPython's forkserver exits by itself only when its "alive" pipe closes; its workers hold
nothing of that pipe, but they do hold the resource tracker's, so orphans kept each other
alive.  With the workers and the forkserver both watching the web process, everything the
pool started is gone within moments of a crash."""

from __future__ import annotations

import os

from .thinking import _GUARD_ENV, exit_with

_pid = os.environ.get(_GUARD_ENV, "")
if _pid.isdigit():
    exit_with(int(_pid))
