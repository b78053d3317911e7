"""Settings, read from the environment once and passed to the app factory."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATA_DIR = Path("data")


def _dev_secret(data_dir: Path) -> str:
    """A development secret kept next to the database, so cookies survive restarts."""
    path = data_dir / "secret_key"
    if path.exists():
        text = path.read_text().strip()
        if text:
            return text
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    path.write_text(key + "\n")
    path.chmod(0o600)
    return key


def _number(env: dict[str, str], name: str, default: float) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {raw!r}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative, not {raw!r}")
    return value


@dataclass(frozen=True)
class Settings:
    database_url: str
    secret_key: str
    cookie_name: str = "hearts_player"
    cookie_max_age: int = 400 * 24 * 3600
    """Long enough to resume a game or keep records for more than a year; a token older
    than this no longer names its player, and one past half its age is renewed on use."""
    force_secure_cookie: bool = False
    """Mark the cookie Secure (and SameSite=None; Partitioned) even when the request
    arrived over plain HTTP, e.g. behind a TLS-terminating proxy without forwarded headers."""

    # ---- bounded work (SPEC §8) ----
    max_active_requests: int = 16
    """Requests served at once (``MAX_ACTIVE_REQUESTS``); the database pool is sized from it,
    so a request that got in always gets its connection and a thread."""
    queue_timeout: float = 1.0
    """Seconds a request may wait for its turn (``QUEUE_TIMEOUT``) before it is answered
    503 with Retry-After."""
    max_queue: int = 256
    """Requests that may wait at once (``MAX_QUEUE``); past it, 503 at once."""
    streams_per_client: int = 64
    """Event streams of tables (open pages of tables) one client address may hold in a
    server process (``STREAMS_PER_CLIENT``); past it, 429.  A household or a classroom
    behind one address stays far below it.  0 turns the limit off."""

    # ---- anonymous data (SPEC §8) ----
    games_per_minute: float = 20.0
    """New games a client (an IP address, a /64 for IPv6) may start per minute
    (``GAMES_PER_MINUTE``), after a burst of ``games_burst``; 0 turns the limit off."""
    games_burst: int = 20
    players_per_hour: float = 120.0
    """New players stored per client and hour (``PLAYERS_PER_HOUR``), after a burst of
    ``players_burst``; 0 turns the limit off."""
    players_burst: int = 30
    retention_days: float = 180.0
    """Anonymous players idle this long, and games left unfinished this long, are deleted
    with their records (``RETENTION_DAYS``)."""
    retention_interval_hours: float = 6.0
    """How often the server runs the clean-up (``RETENTION_INTERVAL_HOURS``; 0: never, run
    ``python -m app.retention`` from cron instead)."""

    @property
    def pool_size(self) -> int:
        # one connection per admitted request: a request has one session, which the
        # refusal handlers use too (app.deps.get_session); the engine allows as many
        # again at peaks (app.db.make_engine)
        return self.max_active_requests

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if environ is None else environ)
        data_dir = Path(env.get("DATA_DIR", str(DEFAULT_DATA_DIR)))
        url = env.get("DATABASE_URL") or f"sqlite:///{data_dir / 'hearts.db'}"
        if url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        secret = env.get("SECRET_KEY") or _dev_secret(data_dir)
        return cls(
            database_url=url,
            secret_key=secret,
            force_secure_cookie=env.get("SECURE_COOKIES", "").lower() in ("1", "true", "yes"),
            max_active_requests=max(1, int(_number(env, "MAX_ACTIVE_REQUESTS", 16))),
            queue_timeout=_number(env, "QUEUE_TIMEOUT", 1.0),
            max_queue=int(_number(env, "MAX_QUEUE", 256)),
            streams_per_client=int(_number(env, "STREAMS_PER_CLIENT", 64)),
            games_per_minute=_number(env, "GAMES_PER_MINUTE", 20.0),
            players_per_hour=_number(env, "PLAYERS_PER_HOUR", 120.0),
            retention_days=_number(env, "RETENTION_DAYS", 180.0),
            retention_interval_hours=_number(env, "RETENTION_INTERVAL_HOURS", 6.0),
        )
