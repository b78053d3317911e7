# Hearts web app: slim Python, non-root, data in /data, migrations before the server starts.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8000

WORKDIR /srv/hearts
RUN useradd --system --uid 10001 --home-dir /srv/hearts hearts \
    && mkdir -p /data && chown hearts /data

COPY pyproject.toml README.md ./
COPY engine ./engine
COPY app ./app
RUN pip install .
COPY alembic.ini ./
COPY alembic ./alembic
COPY templates ./templates
COPY static ./static
COPY locales ./locales

USER hearts
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"

# SECRET_KEY should be given in production; without it a secret is generated once and kept in /data.
CMD ["sh", "-c", "alembic upgrade head && exec uvicorn --factory app.main:app_from_env --host \"$HOST\" --port \"$PORT\" --proxy-headers --forwarded-allow-ips='*'"]
