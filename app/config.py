"""Settings, read from the environment once and passed to the app factory."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Settings:
    database_url: str
    secret_key: str
    host: str = "127.0.0.1"
    port: int = 8000
    cookie_name: str = "hearts_player"
    cookie_max_age: int = 400 * 24 * 3600
    """Long enough to resume a game or keep records for more than a year."""
    force_secure_cookie: bool = False
    """Mark the cookie Secure (and SameSite=None; Partitioned) even when the request
    arrived over plain HTTP, e.g. behind a TLS-terminating proxy without forwarded headers."""
    extra: dict[str, str] = field(default_factory=dict)

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
            host=env.get("HOST", "127.0.0.1"),
            port=int(env.get("PORT", "8000")),
            force_secure_cookie=env.get("SECURE_COOKIES", "").lower() in ("1", "true", "yes"),
        )
