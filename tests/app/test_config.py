"""Settings from the environment: SQLite by default, a development secret kept on disk."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings


def test_defaults_use_sqlite_in_the_data_dir_and_keep_a_generated_secret(tmp_path: Path) -> None:
    env = {"DATA_DIR": str(tmp_path / "data")}
    first = Settings.from_env(env)
    assert first.database_url == f"sqlite:///{tmp_path / 'data' / 'hearts.db'}"
    assert len(first.secret_key) > 40
    assert (tmp_path / "data" / "secret_key").stat().st_mode & 0o777 == 0o600
    # a restart reads the same secret back, so signed cookies stay valid
    assert Settings.from_env(env).secret_key == first.secret_key


def test_environment_overrides(tmp_path: Path) -> None:
    s = Settings.from_env({"DATA_DIR": str(tmp_path), "DATABASE_URL": "postgresql+psycopg://u:p@db/hearts",
                           "SECRET_KEY": "given", "SECURE_COOKIES": "1"})
    assert s.database_url == "postgresql+psycopg://u:p@db/hearts"
    assert (s.secret_key, s.force_secure_cookie) == ("given", True)
    assert not (tmp_path / "secret_key").exists()
