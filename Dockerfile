# Hearts web app: slim Python, non-root, data in /data, migrations before the server starts.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8000 \
    FORWARDED_ALLOW_IPS=127.0.0.1

# tini as PID 1: forwards SIGTERM to the server and reaps the bot pool's exited processes
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /srv/hearts
RUN useradd --system --uid 10001 --home-dir /srv/hearts hearts \
    && mkdir -p /data && chown hearts /data && chmod 700 /data

# the locked set (every file's hash checked), then the app itself without resolving anything
COPY requirements.lock ./
RUN pip install --require-hashes --no-deps -r requirements.lock
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY app ./app
RUN pip install --no-deps --no-build-isolation .
COPY alembic.ini ./
COPY alembic ./alembic
COPY templates ./templates
COPY static ./static
COPY locales ./locales
# the compiled catalogues the app reads (make catalogues does the same in a checkout)
RUN pybabel compile -d locales -D messages

USER hearts
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"

# SECRET_KEY should be given in production; without it a secret is generated once and kept in /data.
# X-Forwarded-For/-Proto are believed only from FORWARDED_ALLOW_IPS (the proxy's address;
# the client address decides rate limits, so a header from anyone else must not set it).
# An idle connection is kept 75 s (uvicorn's default is 5 s), and a request must arrive
# within 20 s of its first byte: see README, "Idle and slow connections".
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["sh", "-c", "alembic upgrade head && exec uvicorn --factory app.main:app_from_env --host \"$HOST\" --port \"$PORT\" --proxy-headers --forwarded-allow-ips=\"$FORWARDED_ALLOW_IPS\" --timeout-keep-alive 75 --http app.protocol:GuardedHttpToolsProtocol"]
