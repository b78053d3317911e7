"""Start the real app as a uvicorn process on a free loopback port and wait until it answers.

Shared by the load test, the browser tests and the live-server app tests, so there is one
way to start the app for real.
"""

from __future__ import annotations

import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


KEEP_ALIVE_S = 75
"""How long the server keeps an idle connection open, as `make run` and the Docker image
serve (uvicorn's default, 5 s, closes connections that browsers and proxies still count on:
a request sent as it closes one fails without an answer; README, "Idle and slow connections")."""

HTTP_PROTOCOL = "app.protocol:GuardedHttpToolsProtocol"
"""uvicorn's HTTP protocol with deadlines for a request's arrival (:mod:`app.protocol`)."""


def start_app(port: int, env: dict[str, str], log: IO[str], *extra_args: str,
              health_url: str | None = None, root: Path = ROOT) -> subprocess.Popen[bytes]:
    """uvicorn serving ``app.main:app_from_env`` on 127.0.0.1:``port`` with ``env`` added to
    this process's environment; returns once ``/healthz`` (or ``health_url``, e.g. over TLS
    with a self-signed certificate) answers 200.  Raises RuntimeError (naming the log file)
    if the process exits or never answers.  ``root``: the source tree to serve (another
    checkout of the project, e.g. an earlier commit to compare with)."""
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory", "app.main:app_from_env",
                             "--host", "127.0.0.1", "--port", str(port), "--timeout-keep-alive", str(KEEP_ALIVE_S),
                             "--http", HTTP_PROTOCOL, *extra_args],
                            cwd=root, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT)
    url = health_url or f"http://127.0.0.1:{port}/healthz"
    # a self-signed certificate is what the TLS tests serve: do not verify it here
    context = ssl._create_unverified_context() if url.startswith("https") else None
    for _ in range(600):  # polls, not a timing: a server that never answers fails below
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited at start; see {log.name}")
        try:
            with urllib.request.urlopen(url, timeout=1, context=context) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    proc.wait()
    raise RuntimeError(f"the app did not start; see {log.name}")


def stop_app(proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    """Terminate gracefully, or kill after ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
