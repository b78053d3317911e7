"""The Hearts web app: FastAPI + Jinja2 + HTMX over the rules engine.

Build it with :func:`app.main.create_app`; no app is created at import time.
"""
