"""HTTPS for the cross-site embed tests: a throwaway self-signed certificate (openssl), the
app served over TLS, and a host page on another site (127.0.0.1 vs localhost) over TLS too."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tools.server import ROOT, free_port, start_app, stop_app


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


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


@contextmanager
def https_host_page(directory: Path, app_url: str, cert: Path, key: Path) -> Iterator[str]:
    """Another site (https://127.0.0.1:PORT) whose page frames the game with the snippet."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "host.html").write_text(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>A blog about card games</title></head><body><h1>My card games blog</h1>
<div style="position:relative;width:100%;max-width:960px;aspect-ratio:4/5;min-height:560px;margin:0 auto">
<iframe src="{app_url}/embed" title="Hearts" style="position:absolute;inset:0;width:100%;height:100%;border:0"></iframe>
</div><p><a href="{app_url}/">Play Hearts online</a></p></body></html>""")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(directory)))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/host.html"
    finally:
        server.shutdown()
        server.server_close()


def chromium_profile(directory: Path, block_all_cookies: bool = False) -> Path:
    """A Chromium profile that blocks third-party cookies (the "Block third-party cookies"
    setting), or every cookie."""
    (directory / "Default").mkdir(parents=True, exist_ok=True)
    prefs: dict[str, object] = {"profile": {"cookie_controls_mode": 1, "block_third_party_cookies": True}}
    if block_all_cookies:
        prefs["profile"] = {**prefs["profile"], "default_content_setting_values": {"cookies": 2}}  # type: ignore[dict-item]
    (directory / "Default" / "Preferences").write_text(json.dumps(prefs))
    return directory
