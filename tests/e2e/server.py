"""Start the real app (migrations, then uvicorn) and a tiny host page for iframe tests."""

from __future__ import annotations

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

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


class AppProcess:
    """The real app on a fixed port and database, which a test may stop and start again
    (the page keeps its URL and its player across the restart)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://localhost:{self.port}"
        self.database_url = f"sqlite:///{data_dir / 'hearts.db'}"
        self.env = {"DATA_DIR": str(data_dir), "DATABASE_URL": self.database_url, "SECRET_KEY": "e2e-secret",
                    # the iframe test frames the app from another site: the cookie must be
                    # SameSite=None; Secure; Partitioned, which browsers accept from localhost
                    "SECURE_COOKIES": "1",
                    # every browser of the suite comes from 127.0.0.1: the per-client limits are
                    # tested in tests/app/test_anonymous_data.py
                    "GAMES_PER_MINUTE": "0", "PLAYERS_PER_HOUR": "0", "STREAMS_PER_CLIENT": "0"}
        self.proc: subprocess.Popen[bytes] | None = None
        data_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "alembic", "upgrade", "head"], cwd=ROOT,
                       env={**os.environ, **self.env}, check=True, capture_output=True)

    def start(self) -> None:
        with open(self.data_dir / "server.log", "a") as log:
            self.proc = start_app(self.port, self.env, log)

    def stop(self) -> None:
        if self.proc is not None:
            stop_app(self.proc, timeout=10)
            self.proc = None


@contextmanager
def app_server(data_dir: Path) -> Iterator[str]:
    """Serve the app from a fresh database; yields its base URL (on ``localhost``)."""
    app = AppProcess(data_dir)
    app.start()
    try:
        yield app.url
    finally:
        app.stop()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def host_page(directory: Path, app_url: str, tls: tuple[Path, Path] | None = None) -> Iterator[str]:
    """Another site (127.0.0.1, another port) whose page frames the game; over HTTPS with
    ``tls`` (certificate and key files, tests/e2e/tls.py)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "host.html").write_text(f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>A blog about card games</title></head><body><h1>My card games blog</h1>
<div style="position:relative;width:100%;max-width:960px;aspect-ratio:4/5;min-height:560px;margin:0 auto">
<iframe src="{app_url}/embed" title="Hearts" style="position:absolute;inset:0;width:100%;height:100%;border:0"></iframe>
</div><p><a href="{app_url}/">Play Hearts online</a></p></body></html>""")
    handler = partial(_QuietHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(tls[0]), str(tls[1]))
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}/host.html"
    finally:
        server.shutdown()
        server.server_close()
