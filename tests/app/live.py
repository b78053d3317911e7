"""The real server for integrity tests: uvicorn in a subprocess on a free loopback port,
over an SQLite file that outlives the process (so it can be killed and started again)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import IO, Any

import httpx
from sqlmodel import SQLModel, create_engine

import app.models  # noqa: F401  (the tables)
from app.security import CSRF_HEADER
from tools.server import free_port, start_app, stop_app

SECRET = "live-test-secret"


class LiveServer:
    def __init__(self, data_dir: Path, database_url: str | None = None, bot_workers: int = 1,
                 env: dict[str, str] | None = None, args: tuple[str, ...] = ()) -> None:
        self.data_dir = data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        self.database_url = database_url or f"sqlite:///{data_dir / 'hearts.db'}"
        engine = create_engine(self.database_url)
        SQLModel.metadata.create_all(engine)
        engine.dispose()
        self.proc: subprocess.Popen[bytes] | None = None
        self.bot_workers = bot_workers
        self.env = env or {}
        self.args = args
        """More of uvicorn's options."""
        self.port = 0
        self.starts = 0
        self._log: IO[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> LiveServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self.port = free_port()
        env = {"DATA_DIR": str(self.data_dir), "DATABASE_URL": self.database_url,
               "SECRET_KEY": SECRET, "BOT_WORKERS": str(self.bot_workers), **self.env}
        self._log = open(self.data_dir / "server.log", "a")  # noqa: SIM115  (closed in stop)
        self.starts += 1
        self.proc = start_app(self.port, env, self._log, "--no-access-log", *self.args)

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flushing, exactly like a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc = None
        if self._log:
            self._log.close()

    def stop(self) -> None:
        if self.proc is not None:
            stop_app(self.proc, timeout=10)
            self.proc = None
        if self._log:
            self._log.close()


class Player:
    """A browser tab's worth of state: the cookie and the CSRF token the server handed out."""

    COOKIE = "hearts_player"

    def __init__(self, server: LiveServer, cookie: str | None = None, token: str = "") -> None:
        self.server = server
        self.cookie = cookie
        self.token = token

    def request(self, method: str, path: str, timeout: float = 30, **kw: Any) -> httpx.Response:
        headers = {CSRF_HEADER: self.token} if self.token else {}
        if self.cookie:
            headers["cookie"] = f"{self.COOKIE}={self.cookie}"
        r = httpx.request(method, self.server.url + path, headers=headers, timeout=timeout, **kw)
        for line in r.headers.get_list("set-cookie"):
            name, _, rest = line.partition("=")
            if name.strip() == self.COOKIE:
                self.cookie = rest.split(";", 1)[0]
        if CSRF_HEADER in r.headers:
            self.token = r.headers[CSRF_HEADER]
        return r

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, **kw)


def next_action(game: dict[str, Any], rng: Any = None) -> tuple[str, dict[str, Any]] | None:
    """The person's next action on this game (``/api/v1`` JSON): path suffix and body, or
    None when the game is over.  ``rng`` picks among legal choices; without it, the first."""
    view = game["view"]
    version = game["version"]
    phase = view["phase"]

    def pick(options: list[Any], k: int = 1) -> list[Any]:
        return rng.sample(options, k) if rng is not None else options[:k]

    if phase == "pass":
        return "pass", {"version": version, "cards": pick(view["hand"], 3)}
    if phase == "play":
        return "play", {"version": version, "card": pick(view["legal"])[0]}
    if phase == "moon_choice":
        return "moon", {"version": version, "subtract": bool(pick([False, True])[0])}
    if phase == "round_over":
        return "next", {"version": version}
    return None
