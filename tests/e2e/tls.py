"""HTTPS for the cross-site embed tests: a throwaway self-signed certificate (openssl) and
the app served over TLS (the host page on another site is ``server.host_page`` with TLS)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tools.server import ROOT, free_port, start_app, stop_app


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1, valid for two days; (cert, key)."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


@contextmanager
def https_app(data_dir: Path, cert: Path, key: Path) -> Iterator[str]:
    """The app (migrations, then uvicorn with TLS) on https://localhost:PORT."""
    port = free_port()
    env = {"DATA_DIR": str(data_dir), "DATABASE_URL": f"sqlite:///{data_dir / 'hearts.db'}",
           "SECRET_KEY": "e2e-tls-secret", "BOT_WORKERS": "0"}
    data_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT, env={**os.environ, **env},
                   check=True, capture_output=True)
    with open(data_dir / "server.log", "w") as log:
        proc = start_app(port, env, log, "--ssl-certfile", str(cert), "--ssl-keyfile", str(key),
                         health_url=f"https://localhost:{port}/healthz")
        try:
            yield f"https://localhost:{port}"
        finally:
            stop_app(proc, timeout=10)


def chromium_profile(directory: Path, block_all_cookies: bool = False) -> Path:
    """A Chromium profile that blocks third-party cookies (the "Block third-party cookies"
    setting), or every cookie."""
    (directory / "Default").mkdir(parents=True, exist_ok=True)
    prefs: dict[str, object] = {"profile": {"cookie_controls_mode": 1, "block_third_party_cookies": True}}
    if block_all_cookies:
        prefs["profile"] = {**prefs["profile"], "default_content_setting_values": {"cookies": 2}}  # type: ignore[dict-item]
    (directory / "Default" / "Preferences").write_text(json.dumps(prefs))
    return directory
